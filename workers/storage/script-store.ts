/**
 * The KeyStore a script's redis.call commands see: every op is sent at once into the call's
 * transaction (ScriptTx), through the same run code as a lane (runs.ts), so each command's
 * statements and replies are the ones it has outside scripts. The transaction-control methods are
 * unreachable from a script (WATCH, EXEC, EVAL are `noscript`) and answer an error.
 */
import type { AtomicRequest, AtomicRun, KeyStore } from '../../core/engine/key-store';
import { OpKind, type Op } from '../../core/engine/ops';
import { PendingReply } from '../../core/engine/pending-reply';
import { RespError } from '../../core/engine/reply';
import type { Session, WatchedKey } from '../../core/engine/session';
import { sendRun } from './runs';
import type { ScriptTx } from './script-tx';
import { StatementStore } from './statement-store';

const kNotInScript = new RespError('ERR This Redis command is not allowed from script');

export class ScriptStore extends StatementStore implements KeyStore {
  constructor(private readonly tx: ScriptTx) {
    super();
  }

  submit<T extends Op>(_s: Session, op: T): T {
    if (op.kind === OpKind.Tx) op.settle(kNotInScript);
    else sendRun(this.tx, [op], 0, 1);
    return op;
  }

  watch(): PendingReply {
    const r = new PendingReply();
    r.settle(kNotInScript);
    return r;
  }

  unwatch(_s: Session, _watched: WatchedKey[]): void {}

  async transaction(): Promise<RespError> {
    return kNotInScript;
  }

  async atomic<T>(_s: Session, _req: AtomicRequest, _body: (run: AtomicRun) => Promise<T>): Promise<T | RespError> {
    return kNotInScript;
  }
}

