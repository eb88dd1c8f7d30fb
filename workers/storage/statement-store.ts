/**
 * The KeyStore methods that only build a statement and submit it: shared by the lanes'
 * LaneStore and a script transaction's ScriptStore, which differ in where an op goes.
 */
import type { Rows, SetRequest, Statement } from '../../core/engine/key-store';
import type { Reply } from '../../core/engine/reply';
import type { Session } from '../../core/engine/session';
import { kOk } from '../../core/engine/shared-replies';
import { StmtOp, type Op } from '../../core/engine/ops';
import { Noted, type PendingReply } from '../../core/engine/pending-reply';
import { kKeySql } from '../../core/engine/commands/keys/sql';
import { kStringSql } from '../../core/engine/commands/string/sql';
import { encodeBufferArray, int2Array, int8 } from '../../core/engine/pg-driver/binary-array';

export abstract class StatementStore {
  abstract submit<T extends Op>(s: Session, op: T): T;

  exec(s: Session, stmt: Statement, values: unknown[], map: (rows: Rows) => Reply | Noted): PendingReply {
    return this.submit(s, new StmtOp(stmt, values, map));
  }

  setCond(s: Session, key: Buffer, req: SetRequest, map: (rows: Rows) => Reply | Noted): PendingReply {
    const values = [String(s.db), key, req.value, req.expiresAt === null ? null : int8(req.expiresAt),
      String(req.cond), req.keepTtl ? 'true' : 'false', req.get ? 'true' : 'false', int8(Date.now())];
    return this.exec(s, kStringSql.setCond, values, map);
  }

  private keyStmt(s: Session, stmt: typeof kKeySql.del, keys: Buffer[]): PendingReply {
    const values = [int2Array(keys.map(() => s.db)), encodeBufferArray(keys), int8(Date.now())];
    return this.exec(s, stmt, values, firstValue);
  }

  /** the count, noted with which of the keys were deleted (the write hook's `del` events) */
  del(s: Session, keys: Buffer[]): PendingReply {
    const values = [int2Array(keys.map(() => s.db)), encodeBufferArray(keys), int8(Date.now())];
    return this.exec(s, kKeySql.del, values, (rows) => {
      const deleted = new Array<boolean>(keys.length).fill(false);
      for (const i of (rows[0][1] ?? []) as number[]) deleted[i - 1] = true;
      return new Noted(rows[0][0] as number, deleted);
    });
  }

  exists(s: Session, keys: Buffer[]): PendingReply {
    return this.keyStmt(s, kKeySql.exists, keys);
  }

  dbsize(s: Session): PendingReply {
    const values = [String(s.db), int8(Date.now())];
    return this.exec(s, kKeySql.dbsize, values, firstValue);
  }

  flush(s: Session, db: number | null): PendingReply {
    const stmt = db === null ? kKeySql.flushall : kKeySql.flushdb;
    const values = db === null ? [] : [String(db)];
    return this.exec(s, stmt, values, () => kOk);
  }
}

/** the count a DEL / EXISTS / DBSIZE statement returns */
const firstValue = (rows: Rows): Reply => rows[0][0] as number;
