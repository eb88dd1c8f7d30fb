/**
 * XREAD [COUNT n] [BLOCK ms] STREAMS key… id…, XREADGROUP GROUP group consumer [COUNT n]
 * [BLOCK ms] [NOACK] STREAMS key… id… — per stream with something to serve, [key, entries];
 * a null array when none has. XREAD's `$` is the stream's last id; XREADGROUP's `>` the
 * entries never delivered to the group, another id the consumer's own pending history after it.
 * BLOCK: ./block.ts.
 * https://redis.io/commands/xread/ https://redis.io/commands/xreadgroup/
 */
import { Noted } from '../../pending-reply';
import { kNullArray, RespError, RespMap, type Reply } from '../../reply';
import { Err } from '../../resp-errors';
import type { Rows } from '../../key-store';
import type { Session } from '../../session';
import { eqIgnoreCase, parseI64 } from '../args';
import { encodeBufferArray, dbArg, exec, nowArg } from '../exec';
import { defineCommand } from '../define';
import type { CommandSpec } from '../spec';
import { blockingAllowed, inScript } from '../blocking/context';
import { readOrBlock, withNote } from './block';
import { readGroupEvents } from './events';
import { parseFullId, toSql } from './id';
import { cstr, entryReply } from './reply';
import { kStreamSql } from './sql';

const kTimeoutNotInt = new RespError('ERR timeout is not an integer or out of range');
const kTimeoutNeg = new RespError('ERR timeout is negative');
/** a blocked XREADGROUP whose key was deleted or overwritten with another type (Redis 7.0) */
const kKeyGone = new RespError('UNBLOCKED the stream key no longer exists');
const kGroupGone = new RespError('NOGROUP the consumer group this client was blocked on no longer exists');
const kGroupOnlyGroup = new RespError('ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.');
const kNoackOnlyGroup = new RespError('ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.');
const kMissingGroup = new RespError('ERR Missing GROUP option for XREADGROUP');
const kDollarInGroup = new RespError('ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the history of this consumer by specifying a proper ID, or use the > ID to get new messages. The $ ID would just return an empty result set.');
const kGtInRead = new RespError('ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option.');

interface ReadArgs {
  count: bigint; // 0 = all
  timeout: number | undefined; // ms, undefined = no BLOCK
  group: Buffer | undefined;
  consumer: Buffer | undefined;
  noack: boolean;
  keys: Buffer[];
  /** per key, shifted; NaN-free: null ms = '$' (XREAD) or '>' (XREADGROUP) */
  ms: (bigint | null)[];
  seq: (bigint | null)[];
  /** the first key whose id does not parse, and its error (reported after that key's checks) */
  badAt: number;
  bad: RespError | undefined;
}

function parseRead(argv: Buffer[], group: boolean): ReadArgs | RespError {
  const a: ReadArgs = { count: 0n, timeout: undefined, group: undefined, consumer: undefined, noack: false, keys: [], ms: [], seq: [],
    badAt: -1, bad: undefined };
  let streamsAt = 0;
  for (let i = 1; i < argv.length; i++) {
    const more = argv.length - i - 1;
    const o = argv[i];
    if (eqIgnoreCase(o, 'block') && more > 0) {
      // Redis 7.0 keeps scripts from BLOCK outright, before reading its value (MULTI reads as without it)
      if (inScript()) return new RespError(`ERR ${argv[0].toString('latin1')} command is not allowed with BLOCK option from scripts`);
      const t = parseI64(argv[++i]);
      if (t === undefined) return kTimeoutNotInt;
      if (t < 0n) return kTimeoutNeg;
      a.timeout = Number(t);
    } else if (eqIgnoreCase(o, 'count') && more > 0) {
      const n = parseI64(argv[++i]);
      if (n === undefined) return Err.notInteger;
      a.count = n < 0n ? 0n : n;
    } else if (eqIgnoreCase(o, 'streams') && more > 0) {
      streamsAt = i + 1;
      if ((argv.length - streamsAt) % 2 !== 0) {
        return new RespError(`ERR Unbalanced ${group ? 'XREADGROUP' : 'XREAD'} list of streams: for each stream key an ID or '${group ? '>' : '$'}' must be specified.`);
      }
      break;
    } else if (eqIgnoreCase(o, 'group') && more >= 2) {
      if (!group) return kGroupOnlyGroup;
      a.group = argv[i + 1];
      a.consumer = argv[i + 2];
      i += 2;
    } else if (eqIgnoreCase(o, 'noack')) {
      if (!group) return kNoackOnlyGroup;
      a.noack = true;
    } else {
      return Err.syntax;
    }
  }
  if (streamsAt === 0) return Err.syntax;
  if (group && a.group === undefined) return kMissingGroup;
  const n = (argv.length - streamsAt) / 2;
  a.keys = argv.slice(streamsAt, streamsAt + n);
  for (let j = 0; j < n; j++) {
    const arg = argv[streamsAt + n + j];
    const isDollar = arg.length === 1 && arg[0] === 36; // $
    const isGt = arg.length === 1 && arg[0] === 62; // >
    let err: RespError | undefined;
    if (isDollar || isGt) {
      if (isDollar && group) err = kDollarInGroup;
      else if (isGt && !group) err = kGtInRead;
      a.ms.push(null);
      a.seq.push(null);
    } else {
      const id = parseFullId(arg, 0n, true);
      if (id instanceof RespError) err = id;
      else { a.ms.push(toSql(id.ms)); a.seq.push(toSql(id.seq)); }
    }
    if (err !== undefined) { a.badAt = j; a.bad = err; break; }
  }
  return a;
}

/** rows (i, …, ms, seq, fv) grouped per key: [[key, entries]…] (RESP3: a map), or a null array */
function readReply(s: Session, keys: Buffer[], rows: Rows, at: { i: number; ms: number }): Reply {
  const per = new Map<number, Reply[]>();
  for (const r of rows) {
    const i = r[at.i] as number;
    let list = per.get(i);
    if (list === undefined) { list = []; per.set(i, list); }
    if (r[at.ms] !== null) list.push(entryReply(r[at.ms], r[at.ms + 1], r[at.ms + 2]));
  }
  if (per.size === 0) return kNullArray;
  const served = [...per.keys()].sort((x, y) => x - y);
  if (s.proto === 3) return new RespMap(served.flatMap((i) => [keys[i - 1], per.get(i)!]));
  return served.map((i) => [keys[i - 1], per.get(i)!]);
}

/**
 * XREADGROUP's reply noted with the keys (by position) where the consumer was made: a key's
 * marker row (ms NULL) carries seq 1 then (the keyspace event xgroup-createconsumer)
 */
function madeNoted(n: number, rows: Rows, reply: Reply): Noted {
  const made = new Array<boolean>(n).fill(false);
  for (const r of rows) if (r[2] === null && r[3] !== null) made[(r[1] as number) - 1] = true;
  return new Noted(reply, made);
}

/** an int8[] parameter that may hold NULLs (text: a binary array of NULLs only has no element type) */
function int8s(v: readonly (bigint | null)[]): string {
  return `{${v.map((x) => (x === null ? 'NULL' : String(x))).join(',')}}`;
}

function runRead(s: Session, a: ReadArgs): Reply | PromiseLike<Reply> {
  const keys = encodeBufferArray(a.keys);
  if (a.bad !== undefined) {
    // Redis checks each key's type before parsing its id: an earlier WRONGTYPE wins
    const upto = a.keys.slice(0, a.badAt + 1);
    return exec(s, kStreamSql.read, [dbArg(s), encodeBufferArray(upto), int8s(upto.map(() => null)), int8s(upto.map(() => null)), 0n, nowArg()],
      (rows) => (rows.some((r) => r[1] !== 5) ? Err.wrongType : a.bad!));
  }
  const count = a.count === 0n ? null : a.count;
  const read = (ms: (bigint | null)[], seq: (bigint | null)[]) => exec(s, kStreamSql.read,
    [dbArg(s), keys, int8s(ms), int8s(seq), count, nowArg()], (rows) => {
      if (rows.some((r) => r[1] !== 5)) return Err.wrongType;
      return readReply(s, a.keys, rows, { i: 0, ms: 2 });
    });
  const mayBlock = a.timeout !== undefined && mayBlockHere(s);
  if (!mayBlock) return read(a.ms, a.seq);
  const ids = a.ms.some((m) => m === null) ? resolveDollar(s, a) : Promise.resolve({ ms: a.ms, seq: a.seq });
  // sent in the same tick as '$' (x_read reads NULL as '$'): sent once the ids had answered, a
  // write of another client on this lane queued meanwhile came first (a SET right after the XREAD
  // made it WRONGTYPE where Redis blocks: stream-cgroups "Blocking XREAD: key type changed with SET")
  const first = read(a.ms, a.seq);
  return readOrBlock(s, ids.then(({ ms, seq }) => ({
    first,
    wait: {
      db: s.db, keys: a.keys, timeoutMs: a.timeout!,
      // a key that became another type meanwhile keeps XREAD blocked (Redis 7.0)
      retry: () => read(ms, seq).then((r) => (r === kNullArray || r === Err.wrongType ? undefined : { reply: r })),
    },
  })));
}

/** false inside MULTI (EXEC's denyBlocking) and scripts (withoutBlocking): read as if without BLOCK */
function mayBlockHere(s: Session): boolean {
  return s.denyBlocking !== true && blockingAllowed();
}

/** '$' as the ids the streams have now, so a retry after blocking reads only what came later */
function resolveDollar(s: Session, a: ReadArgs): PromiseLike<{ ms: (bigint | null)[]; seq: (bigint | null)[] }> {
  const ms = [...a.ms];
  const seq = [...a.seq];
  return exec(s, kStreamSql.lastIds, [dbArg(s), encodeBufferArray(a.keys), nowArg()], (rows) => {
    for (const r of rows) {
      const i = (r[0] as number) - 1;
      if (ms[i] !== null) continue;
      ms[i] = r[1] === null ? toSql(0n) : BigInt(r[1] as string);
      seq[i] = r[2] === null ? toSql(0n) : BigInt(r[2] as string);
    }
    return null;
  }).then(() => ({ ms, seq }));
}

function runReadGroup(s: Session, a: ReadArgs): Reply | PromiseLike<Reply> {
  const noGroup = (i: number) => new RespError(
    `NOGROUP No such key '${cstr(a.keys[i - 1])}' or consumer group '${cstr(a.group!)}' in XREADGROUP with GROUP option`);
  const errorOf = (rows: Rows): RespError | undefined => {
    const bad = rows.find(isError);
    if (bad === undefined) return undefined;
    return bad[0] === 2 ? Err.wrongType : noGroup(bad[1] as number);
  };
  if (a.bad !== undefined) {
    const upto = a.keys.slice(0, a.badAt + 1);
    return exec(s, kStreamSql.readGroup, [dbArg(s), encodeBufferArray(upto), int8s(upto.map(() => null)), int8s(upto.map(() => null)), a.group!,
      a.consumer!, null, a.noack, upto.length, nowArg(), null, false], (rows) => errorOf(rows) ?? a.bad!);
  }
  const keys = encodeBufferArray(a.keys);
  /** seq: the waiter's number (null: none yet); block: BLOCK '>' outside MULTI and scripts; seen: its status 0 and 9 rows */
  const read = (errors: (rows: Rows) => RespError | undefined, seq: string | null, block: boolean, seen?: (rows: Rows) => void) =>
    exec(s, kStreamSql.readGroup, [dbArg(s), keys, int8s(a.ms), int8s(a.seq), a.group!, a.consumer!, a.count === 0n ? null : a.count,
      a.noack, 0, nowArg(), seq, block], (rows) => {
      seen?.(rows);
      const err = errors(rows);
      if (err !== undefined) return err;
      const entries = rows.filter((r) => r[0] === 1);
      return madeNoted(a.keys.length, entries, readReply(s, a.keys, entries, { i: 1, ms: 2 }));
    });
  // only '>' waits (Redis serves an explicit id's history at once, even empty)
  const mayBlock = a.timeout !== undefined && mayBlockHere(s) && a.ms.every((m) => m === null);
  if (!mayBlock) return read(errorOf, null, false);
  let waiter: string | null = null;
  return readOrBlock(s, Promise.resolve({
    first: read(errorOf, null, true, (rows) => {
      const r = rows.find((x) => x[0] === 0);
      if (r !== undefined) waiter = String(r[3]);
    }),
    wait: {
      db: s.db, keys: a.keys, timeoutMs: a.timeout!,
      waiter: () => waiter,
      retry: (seq: string | null) => {
        let more: Buffer | undefined;
        const p = read(blockedErrorOf, seq, true, (rows) => {
          const r = rows.find((x) => x[0] === 9);
          if (r !== undefined) more = a.keys[(r[1] as number) - 1];
        });
        return p.then((r) => (r === kNullArray ? undefined : { reply: withNote(p), more }));
      },
    },
  }));
}

/** rows of x_readgroup that are an error: 2 WRONGTYPE, 5 no group, 6 no key (0 and 9 are the blocking queue's) */
function isError(r: Rows[number]): boolean {
  return r[0] === 2 || r[0] === 5 || r[0] === 6;
}

/** A woken XREADGROUP's errors (Redis 7.0): its key gone or of another type, or its group gone. */
function blockedErrorOf(rows: Rows): RespError | undefined {
  const bad = rows.find(isError);
  if (bad === undefined) return undefined;
  return bad[0] === 5 ? kGroupGone : kKeyGone;
}

export const xread = defineCommand({
  name: 'xread', arity: -4, flags: ['readonly', 'blocking', 'movablekeys'], keys: { first: 0, last: 0, step: 0, afterKeyword: { word: 'streams', from: 1 } },
  acl: ['read', 'stream', 'slow', 'blocking'],
  group: 'stream', since: '5.0.0', summary: 'Return never seen elements in multiple streams, with IDs greater than the ones reported by the caller for each stream. Can block.',
  complexity: 'For each stream mentioned: O(N) with N being the number of elements being returned, it means that XREAD-ing with a fixed COUNT is O(1). Note that when the BLOCK option is used, XADD will pay O(M) time in order to serve the M clients blocked on the stream getting new data.',
  run(s, argv) {
    const a = parseRead(argv, false);
    return a instanceof RespError ? a : runRead(s, a);
  },
});

export const xreadgroup: CommandSpec = defineCommand({
  name: 'xreadgroup', arity: -7, flags: ['write', 'blocking', 'movablekeys'], keys: { first: 0, last: 0, step: 0, afterKeyword: { word: 'streams', from: 4 } },
  acl: ['write', 'stream', 'slow', 'blocking'], events: readGroupEvents(() => xreadgroup),
  group: 'stream', since: '5.0.0', summary: 'Return new entries from a stream using a consumer group, or access the history of the pending entries for a given consumer. Can block.',
  complexity: 'For each stream mentioned: O(M) with M being the number of elements returned. If M is constant (e.g. always asking for the first 10 elements with COUNT), you can consider it O(1). On the other side when XREADGROUP blocks, XADD will pay the O(N) time in order to serve the M clients blocked on the stream getting new data.',
  run(s, argv) {
    const a = parseRead(argv, true);
    return a instanceof RespError ? a : runReadGroup(s, a);
  },
});
