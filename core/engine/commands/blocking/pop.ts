/**
 * The shape every blocking pop shares: parse the line (the command's own), then either block
 * (BlockedCall) or, inside MULTI and scripts, answer at once as the non-blocking form would:
 * the first non-empty key's elements, or the timeout reply.
 */
import { RespError, kNullArray, type Reply } from '../../reply';
import { Err } from '../../resp-errors';
import type { Rows, Statement } from '../../key-store';
import type { Session } from '../../session';
import type { EventsOf } from '../../write-hook';
import { parseMpop } from '../collection/args';
import { defineCommand } from '../define';
import { popEvents } from '../events';
import { encodeBufferArray, nowArg } from '../exec';
import type { CommandSpec } from '../spec';
import { Noted } from '../../pending-reply';
import { BlockedCall, emptiedNote, popTarget, type BlockingPlan } from './blocked-call';
import { blockingAllowed } from './context';
import { parseTimeout } from './timeout';

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
      return new BlockedCall(s, s.server.blocking, popTarget(plan), p.timeoutMs).reply;
    },
  });
}

function nonBlocking(rows: Rows, plan: BlockingPlan): Reply | Noted {
  if (rows[0][0] === 0) return plan.emptyReply === undefined ? plan.timeoutReply : plan.emptyReply;
  for (const r of rows) if (r[0] === 2) return Err.wrongType;
  const last = rows[rows.length - 1];
  return new Noted(plan.reply(rows), emptiedNote(Number(last[last.length - 1])));
}

/** The status-1 rows of a served pop (the elements; the status 5 row is left out). */
export function served(rows: Rows): Rows {
  return rows.filter((r) => r[0] === 1);
}

/** The statement values every blocking pop takes: db, keys, its direction and count, now, seq, block. */
function popPlan(s: Session, keys: Buffer[], stmt: Statement, end: boolean, count: bigint, reply: (rows: Rows) => Reply):
  Omit<BlockingPlan, 'db'> {
  const encoded = encodeBufferArray(keys);
  return {
    keys, stmt, timeoutReply: kNullArray, reply,
    values: (seq, block) => [String(s.db), encoded, end ? 'true' : 'false', String(count), nowArg(), seq, block ? 'true' : 'false'],
  };
}

/** BLPOP, BRPOP, BZPOPMIN, BZPOPMAX: `key [key …] timeout`; `end` is the pop's direction flag. */
export function keysThenTimeout(stmt: Statement, end: boolean, reply: (rows: Rows) => Reply) {
  return (s: Session, argv: Buffer[]): ParsedBlocking | RespError => {
    const timeoutMs = parseTimeout(argv[argv.length - 1]);
    if (timeoutMs instanceof RespError) return timeoutMs;
    return { timeoutMs, plan: popPlan(s, argv.slice(1, -1), stmt, end, 1n, reply) };
  };
}

/** BLMPOP, BZMPOP: `timeout numkeys key [key …] <where> [COUNT count]`, checked in Redis's order (the timeout last). */
export function countedKeys(stmt: Statement, where: (arg: Buffer) => boolean | undefined, reply: (rows: Rows) => Reply) {
  return (s: Session, argv: Buffer[]): ParsedBlocking | RespError => {
    const p = parseMpop(argv, 2, where);
    if (p instanceof RespError) return p;
    const timeoutMs = parseTimeout(argv[1]);
    if (timeoutMs instanceof RespError) return timeoutMs;
    return { timeoutMs, plan: popPlan(s, p.keys, stmt, p.where, p.count, reply) };
  };
}

/** BLPOP, BZPOPMIN…: `event` on the key the reply names, then `del` when that emptied it (the note). */
export function servedKeyEvents(event: string): EventsOf {
  return (emit, db, _argv, reply, note) => {
    if (Array.isArray(reply)) popEvents(emit, db, reply[0] as Buffer, event, undefined, reply, false, note);
  };
}

/** BLMPOP, BZMPOP: the pop's events on the key the reply names (popEvents with the COUNT asked). */
export function countedPopEvents(where: (arg: Buffer) => boolean | undefined, events: [string, string], pairs: boolean): EventsOf {
  return (emit, db, argv, reply, note) => {
    const p = parseMpop(argv, 2, where);
    if (!Array.isArray(reply) || p instanceof RespError) return;
    popEvents(emit, db, reply[0] as Buffer, p.where ? events[0] : events[1], p.count, reply[1], pairs, note);
  };
}

/**
 * BLMPOP, BZMPOP: the blocking form of LMPOP / ZMPOP, `timeout numkeys key [key …] <where> [COUNT
 * count]`; `events` are the pop's for where true, false; `reply` makes [key, elements] of the rows.
 */
export function blockingMpop(spec: Pick<Spec, 'name' | 'acl' | 'group' | 'summary' | 'complexity'>, stmt: Statement,
  where: (arg: Buffer) => boolean | undefined, events: [string, string], pairs: boolean, reply: (rows: Rows) => Reply): CommandSpec {
  return blockingCommand({
    ...spec, arity: -5, flags: ['write', 'blocking'], keys: { first: 0, last: 0, step: 0, numkeysAt: 2 }, since: '7.0.0',
    events: countedPopEvents(where, events, pairs),
  }, countedKeys(stmt, where, reply));
}
