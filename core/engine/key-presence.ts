/**
 * Key presence: the keyspace events Redis 7.0 fires from its key lookups rather than from what a
 * command changed (db.c lookupKey, dbAdd, expireIfNeeded):
 *
 *   x  `expired`  a command touches a key past its TTL: deleted then and there (lazy expiry)
 *   m  `keymiss`  a read lookup finds no key
 *   n  `new`      a write creates a key
 *
 * None of them shows in a reply, so while one of these classes is on, dispatch sends a probe on
 * the client's lane just before the command: one statement that deletes the command's keys found
 * expired and says which of the others are live. Lanes run a client's statements in order, so
 * the probe sees what the command will see, unless another client writes the same key in
 * between (a window of one pipeline). Off, nothing is sent and dispatch reads one boolean.
 *
 *   dispatch ─probe─▶ lane ─▶ ┐ statuses (0 absent, 1 live, 2 expired, deleted now)
 *            ─command─▶ lane ─▶ reply ─▶ presenceEvents: expired, keymiss ─▶ the command's events,
 *                                                         each first event on a created key led by `new`
 */
import type { Session } from './session';
import type { CommandSpec } from './commands/spec';
import { keysOf } from './commands/spec';
import { kFlagReadonly } from './commands/flags';
import { lower } from './commands/args';
import { RespError, type Reply } from './reply';
import { PendingReply } from './pending-reply';
import type { Rows, Statement } from './key-store';
import { encodeBufferArray, int2Array, int8 } from './pg-driver/binary-array';
import { live } from './commands/kv-row';
import type { Emit } from './write-hook';

const kAbsent = 0;
const kLive = 1;
const kExpired = 2;

/**
 * Deletes the keys past their TTL (the sweeper's DELETE: trigger kv_deleted takes a collection's
 * rows) and returns each distinct key that was live (1) or expired (2); absent keys return no row.
 * WATCH marks (expires_at ≤ 0) are neither. Keys sorted: two probes lock in one order.
 */
const kProbe: Statement = {
  text: `WITH t AS MATERIALIZED (SELECT db, key, i FROM unnest($1::int2[], $2::bytea[]) WITH ORDINALITY AS t(db, key, i)),
    d AS (DELETE FROM kv USING t WHERE kv.db = t.db AND kv.key = t.key AND kv.expires_at > 0 AND kv.expires_at <= $3::int8
          RETURNING t.i)
    SELECT t.i::int4, CASE WHEN d.i IS NULL THEN ${kLive} ELSE ${kExpired} END::int2 FROM t
      LEFT JOIN d ON d.i = t.i
      LEFT JOIN kv ON kv.db = t.db AND kv.key = t.key AND ${live('kv', '$3::int8')}
    WHERE d.i IS NOT NULL OR kv.key IS NOT NULL`,
};

/** A probe on its way: the command's distinct keys (latin1) and their statuses once settled. */
export interface Presence {
  readonly keys: string[];
  readonly op: PendingReply;
}

/** Scripts: the commands they call are probed one by one inside the call (scripting/call-host.ts), not their declared keys */
const kProbedInside = new Set(['eval', 'evalsha', 'eval_ro', 'evalsha_ro', 'fcall', 'fcall_ro']);

/** Sends the probe for a command's keys in db, or undefined for a command without keys (or a script call). */
export function probePresence(s: Session, db: number, spec: CommandSpec, argv: Buffer[]): Presence | undefined {
  if (kProbedInside.has(spec.name)) return undefined;
  const all = keysOf(spec, argv);
  if (all === undefined || all.length === 0) return undefined;
  const byName = new Map<string, Buffer>();
  for (const k of all) byName.set(k.toString('latin1'), k);
  const keys = [...byName.keys()].sort();
  const values = [int2Array(keys.map(() => db)), encodeBufferArray(keys.map((k) => byName.get(k)!)), int8(Date.now())];
  const op = s.server.store.exec(s, kProbe, values, (rows: Rows) => {
    const status = new Array<number>(keys.length).fill(kAbsent);
    for (const [i, st] of rows) status[(i as number) - 1] = st as number;
    return status;
  });
  return { keys, op };
}

/**
 * A reply that knows its keys' presence itself, which wins over dispatch's probe: a blocking pop
 * served after it blocked (the probe saw its keys when it blocked; its pop's statement says
 * whether it created its destination, blocking/blocked-call.ts).
 */
export class PresenceReply extends PendingReply {
  status: Map<string, number> | undefined = undefined;

  /** keys live when the pop ran, except `created`, which it made */
  served(keys: readonly Buffer[], created: Buffer | undefined): void {
    const m = new Map<string, number>();
    for (const k of keys) m.set(k.toString('latin1'), kLive);
    if (created !== undefined) m.set(created.toString('latin1'), kAbsent);
    this.status = m;
  }
}

/** The probe's statuses by key, or undefined when it failed (Postgres gone): then no presence event. */
export function statuses(p: Presence): Map<string, number> | undefined {
  const v = p.op.value;
  if (!Array.isArray(v)) return undefined;
  const m = new Map<string, number>();
  for (let i = 0; i < p.keys.length; i++) m.set(p.keys[i], v[i] as number);
  return m;
}

/**
 * Write commands whose lookups of some keys are reads (lookupKeyRead: `keymiss` when missing),
 * checked against redis-server 7.0.15: which of the command's keys (COMMAND GETKEYS order).
 */
type MissKeys = 'first' | 'rest' | 'all';
const kWriteMisses: ReadonlyMap<string, MissKeys | ((argv: Buffer[]) => MissKeys | undefined)> = new Map<string, MissKeys | ((argv: Buffer[]) => MissKeys | undefined)>([
  ['set', (argv) => (argv.some((a, i) => i > 2 && lower(a) === 'get') ? 'first' : undefined)],
  ['getset', 'first'], ['getdel', 'first'], ['getex', 'first'], ['copy', 'first'],
  ['sinterstore', 'rest'], ['sunionstore', 'rest'], ['sdiffstore', 'rest'],
  ['zunionstore', 'rest'], ['zinterstore', 'rest'], ['zdiffstore', 'rest'], ['zrangestore', 'rest'],
  ['georadius', 'first'], ['georadiusbymember', 'first'], ['geosearchstore', 'rest'], ['sort', 'first'],
  ['bitop', 'rest'], ['pfmerge', 'all'], ['xack', 'first'],
  // BITFIELD without SET or INCRBY only reads (lookupKeyRead); with them it creates the key
  ['bitfield', (argv) => (argv.some((a, i) => i > 1 && (lower(a) === 'set' || lower(a) === 'incrby')) ? undefined : 'first')],
]);

/** Read commands with keys whose lookups do not notify (LOOKUP_NONOTIFY) */
const kNoMiss = new Set(['object|encoding', 'object|freq', 'object|idletime', 'object|refcount', 'memory|usage']);

/** Commands that look their key up before the error they answer on a missing key (NOGROUP, no such key) */
const kMissOnError = new Set(['xinfo|stream', 'xinfo|groups', 'xinfo|consumers', 'xpending', 'xreadgroup', 'xclaim',
  'xautoclaim']);

function missKeys(spec: CommandSpec, argv: Buffer[]): MissKeys | undefined {
  if (kMissOnError.has(spec.name)) return 'first';
  if ((spec.flagBits & kFlagReadonly) !== 0) return kNoMiss.has(spec.name) ? undefined : 'all';
  const rule = kWriteMisses.get(spec.name);
  return typeof rule === 'function' ? rule(argv) : rule;
}

/**
 * The lookup events, in Redis's order: per key as the command names it, `expired` if the probe
 * deleted it, then `keymiss` if it is one the command reads and it was not live (no keymiss after
 * an error reply: Redis checks arguments before it looks keys up).
 */
export function lookupEvents(emit: Emit, db: number, spec: CommandSpec, argv: Buffer[], reply: Reply,
  status: Map<string, number>): void {
  const keys = keysOf(spec, argv) ?? [];
  const which = reply instanceof RespError && !kMissOnError.has(spec.name) ? undefined : missKeys(spec, argv);
  const expiredSent = new Set<string>();
  for (let i = 0; i < keys.length; i++) {
    const name = keys[i].toString('latin1');
    const st = status.get(name);
    if (st === kExpired && !expiredSent.has(name)) {
      expiredSent.add(name);
      emit(db, 'expired', keys[i], false);
    }
    const reads = which === 'all' || (which === 'first' && i === 0) || (which === 'rest' && i > 0);
    if (reads && st !== kLive) emit(db, 'keymiss', keys[i], false);
  }
}

/** Events that make their key whatever it was: Redis deletes the destination, then dbAdd()s it. */
const kAlwaysNew = new Set(['rename_to', 'move_to', 'copy_to', 'restore']);
/** … and those whose dbAdd comes before the command's first event (RENAME, MOVE) */
const kNewFirst = new Set(['rename_to', 'move_to']);

/** one reported event: db, name, key, maybe (write-hook.ts Emit's arguments) */
export type Event = [number, string, Buffer | null, boolean];

/**
 * A command's events with `new` before the first event on each key it created: a key the probe
 * found absent (or expired), or one a `del` of the same command removed; RENAME/MOVE/COPY/RESTORE
 * always create their destination. `out` gets the events in order.
 */
export function withNewEvents(events: Event[], db: number, status: Map<string, number>, out: Emit): void {
  const present = new Map<string, boolean>();
  let first: Event | undefined;
  for (const ev of events) {
    if (kNewFirst.has(ev[1])) first = [ev[0], 'new', ev[2], ev[3]];
  }
  if (first !== undefined) out(...first);
  for (const ev of events) {
    const [evDb, name, key, maybe] = ev;
    if (key !== null && !kNewFirst.has(name)) {
      if (kAlwaysNew.has(name)) out(evDb, 'new', key, maybe);
      else if (evDb === db && name !== 'expired') {
        const k = key.toString('latin1');
        const was = present.get(k) ?? status.get(k) === kLive;
        if (name === 'del') present.set(k, false);
        else {
          if (!was) out(evDb, 'new', key, maybe);
          present.set(k, true);
        }
      }
    }
    out(evDb, name, key, maybe);
  }
}
