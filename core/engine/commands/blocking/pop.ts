/**
 * The shape every blocking pop shares: parse the line (the command's own), then either block
 * (BlockedCall) or, inside MULTI and scripts, answer at once as the non-blocking form would:
 * the first non-empty key's elements, or the timeout reply.
 */
import { RespError, type Reply } from '../../reply';
import { Err } from '../../resp-errors';
import type { Rows } from '../../key-store';
import type { Session } from '../../session';
import { defineCommand } from '../define';
import type { CommandSpec } from '../spec';
import { BlockedCall, type BlockingPlan } from './blocked-call';
import { blockingAllowed } from './context';

/** What a command's parse returns: its plan without the db, and its timeout in ms (0 = forever). */
export interface ParsedBlocking {
  plan: Omit<BlockingPlan, 'db'>;
  timeoutMs: number;
}

type Spec = Omit<Parameters<typeof defineCommand>[0], 'run'>;

export function blockingCommand(spec: Spec, parse: (s: Session, argv: Buffer[]) => ParsedBlocking | RespError): CommandSpec {
  return defineCommand({
    ...spec,
    run(s, argv) {
      const p = parse(s, argv);
      if (p instanceof RespError) return p;
      const plan: BlockingPlan = { db: s.db, ...p.plan };
      if (!blockingAllowed()) return s.server.store.exec(s, plan.stmt, plan.values(null, false), (rows) => nonBlocking(rows, plan));
      return new BlockedCall(s, s.server.blocking, plan, p.timeoutMs).reply;
    },
  });
}

function nonBlocking(rows: Rows, plan: BlockingPlan): Reply {
  if (rows[0][0] === 0) return plan.emptyReply === undefined ? plan.timeoutReply : plan.emptyReply;
  for (const r of rows) if (r[0] === 2) return Err.wrongType;
  return plan.reply(rows);
}

/** The status-1 rows of a served pop (the elements; the status 5 row is left out). */
export function served(rows: Rows): Rows {
  return rows.filter((r) => r[0] === 1);
}
