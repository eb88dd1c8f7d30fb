/**
 * How command handlers run their statements: exec() on the session's lane (in order with the
 * client's other commands), the arguments every statement takes — $1 the session's db, its last
 * $n now — and the rows → reply mappers of the conventions the families' statements follow:
 *
 *   reads     kv.type in the first column, no row = missing or expired key (typedRead)
 *   functions a status first: 0 = not done / missing, 1 = done, 2 = WRONGTYPE, family codes
 *             above (statusReply)
 *
 * Parameters go in Postgres's binary format where it saves a text round trip (bytea, bytea[],
 * int8).
 */
import { RespError, type Reply } from '../reply';
import { Err } from '../resp-errors';
import type { Session } from '../session';
import type { Rows, Statement } from '../key-store';
import { Noted, type PendingReply } from '../pending-reply';
import { encodeBufferArray, int8 } from '../pg-driver/binary-array';

export { encodeBufferArray, int8 };

export function exec(s: Session, stmt: Statement, values: unknown[], map: (rows: Rows) => Reply | Noted): PendingReply {
  return s.server.store.exec(s, stmt, values, map);
}

/** $1 of every keyspace statement */
export const dbArg = (s: Session): string => String(s.db);
/** $now: the client's clock in Unix ms, the same clock SET EX uses for expires_at */
export const nowArg = (now: number | bigint = Date.now()): Buffer => int8(now);

/**
 * The reply of a read whose rows start with kv.type: `empty` when the key is missing, WRONGTYPE
 * when it holds another type, else map(rows).
 */
export function typedRead(type: number, empty: Reply, map: (rows: Rows) => Reply | Noted): (rows: Rows) => Reply | Noted {
  return (rows) => {
    if (rows.length === 0) return empty;
    if (rows[0][0] !== type) return Err.wrongType;
    return map(rows);
  };
}

/** A function's status column (first) mapped to its error; status ≥ 0 and not an error → map(rows). */
export function statusReply(errors: Record<number, RespError>, map: (rows: Rows) => Reply | Noted): (rows: Rows) => Reply | Noted {
  return (rows) => {
    const status = rows[0][0] as number;
    if (status === 2) return Err.wrongType;
    const e = errors[status];
    return e ?? map(rows);
  };
}

/**
 * (status, n, flag): the count as the reply, the flag as its note for the write hook (the key
 * went: HDEL, SREM, LREM…; the destination existed: S*STORE, Z*STORE).
 */
export function countNoted(rows: Rows): Noted {
  return new Noted(int8Reply(rows[0][1]), rows[0][2] === true ? 1 : 0);
}

/** reply, with the note 1 when column `col` of the first row is true (a pop took the last element) */
export function goneNoted(rows: Rows, col: number, reply: Reply): Noted {
  return new Noted(reply, rows[0][col] === true ? 1 : 0);
}

/** A family function's (status, count) as the reply: WRONGTYPE for status 2, else the count (SADD, LPUSH, HSET). */
export function countReply(status: number, n: number): Reply {
  return status === 2 ? Err.wrongType : n;
}

/** Postgres int8 and numeric come back as text: numbers below 2^53 as numbers, else bigint. */
export function int8Reply(v: unknown): number | bigint {
  if (typeof v === 'number') return v;
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : BigInt(v as string);
}
