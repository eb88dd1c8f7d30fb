/**
 * Differential runs for the collection families (collections-*.test.ts) on the shared oracle
 * (oracle.ts: redis-server and PostRESP side by side). Every reply is compared byte for byte,
 * except where Redis itself leaves the result open; those steps carry a normalisation:
 *
 *   set     the same aggregate type and the same multiset of elements (SMEMBERS, HKEYS, SINTER…:
 *           Redis's order is its hash table's or its listpack's, unspecified)
 *   pairs   the same multiset of consecutive pairs (HGETALL in RESP2, HSCAN pages)
 *   length  the same type and element count (HRANDFIELD, SRANDMEMBER, SPOP: random by contract);
 *           for a bulk reply, the same type only
 *   scan    [cursor, elements]: cursor "0" on both, elements as `set` or `pairs` (SCAN with a COUNT
 *           larger than the collection: Redis returns all of it at once)
 *
 * An error reply is always compared exactly.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { encode } from '../e2e/resp-client';
import { frameEnd, FrameConn, show } from './resp-frames';
import { Oracle, report, showCmd, type Cmd, type CompareResult, type Mismatch } from './oracle';
import { Rng, seedFromEnv } from './prng';

export type Norm = 'exact' | 'set' | 'pairs' | 'length' | 'scan-set' | 'scan-pairs';
export interface Step { cmd: Cmd; norm?: Norm }

/** The frames inside an aggregate reply (one level), or undefined for a simple reply. */
function children(f: Buffer): Buffer[] | undefined {
  const type = f[0];
  if (type !== 0x2a && type !== 0x7e && type !== 0x25 && type !== 0x3e) return undefined; // * ~ % >
  const eol = f.indexOf(13);
  let n = Number(f.toString('latin1', 1, eol));
  if (n < 0) return undefined;
  if (type === 0x25) n *= 2;
  const out: Buffer[] = [];
  let at = eol + 2;
  for (let i = 0; i < n; i++) {
    const end = frameEnd(f, at);
    out.push(f.subarray(at, end));
    at = end;
  }
  return out;
}

const key = (bs: Buffer[]) => bs.map((b) => b.toString('latin1')).sort().join('\u0001');

function grouped(items: Buffer[], by: number): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < items.length; i += by) out.push(Buffer.concat(items.slice(i, i + by)));
  return out;
}

export function sameUnder(norm: Norm, a: Buffer, b: Buffer): boolean {
  if (norm === 'exact' || a[0] === 0x2d || b[0] === 0x2d || a[0] !== b[0]) return a.equals(b);
  const ca = children(a);
  const cb = children(b);
  if (norm === 'length' && ca === undefined && cb === undefined) return true; // one random bulk each
  if (ca === undefined || cb === undefined) return a.equals(b);
  if (ca.length !== cb.length) return false;
  switch (norm) {
    case 'length': return true;
    case 'set': return key(ca) === key(cb);
    case 'pairs': return key(grouped(ca, 2)) === key(grouped(cb, 2));
    default: {
      // [cursor, [items]]
      if (!ca[0].equals(cb[0]) || ca[0].toString('latin1') !== '$1\r\n0\r\n') return false;
      const ia = children(ca[1]);
      const ib = children(cb[1]);
      if (ia === undefined || ib === undefined || ia.length !== ib.length) return false;
      return norm === 'scan-set' ? key(ia) === key(ib) : key(grouped(ia, 2)) === key(grouped(ib, 2));
    }
  }
}

async function run(port: number, steps: Step[], window: number, replyMs: number): Promise<Buffer[]> {
  const conn = await FrameConn.connect(port);
  const out: Buffer[] = [];
  try {
    for (let i = 0; i < steps.length; i += window) {
      const batch = steps.slice(i, i + window);
      conn.write(Buffer.concat(batch.map((s) => encode(...s.cmd))));
      const r = await conn.read(batch.length, replyMs);
      out.push(...r.frames);
      if (r.stopped) { out.push(Buffer.from(`<${r.stopped}>`)); break; }
    }
  } finally {
    conn.close();
  }
  return out;
}

/**
 * FLUSHALL both, then the sessions (concurrently, one connection each) on each server in turn;
 * `replyMs`: how long one window's replies may take.
 */
export async function compareSteps(oracle: Oracle, sessions: Step[][], window = 1, replyMs = 30000): Promise<CompareResult> {
  await oracle.reset();
  const expected = await Promise.all(sessions.map((s) => run(oracle.redis.port, s, window, replyMs)));
  const actual = await Promise.all(sessions.map((s) => run(oracle.postresp.port, s, window, replyMs)));
  const mismatches: Mismatch[] = [];
  let commands = 0;
  sessions.forEach((steps, s) => {
    commands += steps.length;
    steps.forEach((step, i) => {
      const e = expected[s][i];
      const a = actual[s][i];
      if (e !== undefined && a !== undefined && sameUnder(step.norm ?? 'exact', e, a)) return;
      const from = Math.max(0, i - 6);
      mismatches.push({
        session: s, index: i, command: showCmd(step.cmd),
        redis: e === undefined ? '<no reply>' : show(e), postresp: a === undefined ? '<no reply>' : show(a),
        before: steps.slice(from, i).map((x, k) => `#${from + k} ${showCmd(x.cmd)} → ${show(expected[s][from + k] ?? '', 60)}`),
      });
    });
  });
  return { mismatches, commands };
}

export const exact = (...cmd: Cmd): Step => ({ cmd });
export const norm = (n: Norm, ...cmd: Cmd): Step => ({ cmd, norm: n });

/** A family's random commands: `step` draws one (maybe a few) over keys named prefix + suffix. */
export interface CollectionFamily {
  name: string;
  step(rng: Rng, key: (suffix?: string) => Buffer): Step[];
  /** reads the whole state of the session's keys back */
  dump(keys: Buffer[]): Step[];
  /** deterministic cases run once, in the serial mode */
  edges?: Step[];
  /** suffixes the family names itself (key('lex')): dumped too */
  extra?: string[];
}

const kSuffixes = ['a', 'b', 'c', '\x00', ''];

/** n random steps over prefix + a few suffixes, then the state read back (DBSIZE only when alone) */
function session(f: CollectionFamily, rng: Rng, prefix: string, n: number, exclusive = true): Step[] {
  const keys = kSuffixes.map((x) => Buffer.from(prefix + x, 'latin1'));
  const key = (suffix?: string) => (suffix === undefined ? rng.pick(keys) : Buffer.from(prefix + suffix, 'latin1'));
  const out: Step[] = [];
  while (out.length < n) out.push(...f.step(rng, key));
  const all = [...keys, ...(f.extra ?? []).map((x) => Buffer.from(prefix + x, 'latin1'))];
  return [...out, ...f.dump(all), exact('EXISTS', ...all), ...(exclusive ? [exact('DBSIZE')] : [])];
}

/**
 * The four connection patterns, each against a fresh keyspace: one command at a time, one
 * pipeline in a single write, 8 clients at once on their own keys (pipelined in windows of 50),
 * and RESP3. Fixed seed (DIFF_SEED overrides, DIFF_N scales the lengths); a failure prints it.
 */
export function differential(f: CollectionFamily, seedDefault: number): void {
  const seed = seedFromEnv(seedDefault);
  const scale = Number(process.env.DIFF_N ?? 1);
  const n = (x: number) => Math.round(x * scale);
  let oracle: Oracle;
  before(async () => { oracle = await Oracle.start(); });
  after(async () => { await oracle?.stop(); });

  const check = async (t: { diagnostic(s: string): void }, label: string, sessions: Step[][], window: number) => {
    const r = await compareSteps(oracle, sessions, window);
    t.diagnostic(`${label}: ${r.commands} commands, ${r.mismatches.length} differ (seed ${seed})`);
    assert.equal(r.mismatches.length, 0, report(`${f.name} ${label}`, seed, r));
  };
  const rng = (label: string) => new Rng(seed).fork(`${f.name}/${label}`);

  describe(`${f.name} vs redis-server`, () => {
    if (f.edges) it('edge cases, one at a time', (t) => check(t, 'edges', [f.edges!], 1));
    it('one client, one command at a time', (t) => check(t, 'serial', [session(f, rng('serial'), '', n(500))], 1));
    it('one client, the whole sequence in one write', (t) =>
      check(t, 'pipeline', [session(f, rng('pipeline'), '', n(1500))], Infinity));
    it('8 clients at once, each on its own keys, windows of 50', (t) =>
      check(t, 'concurrent', Array.from({ length: 8 }, (_, i) => session(f, rng(`c${i}`), `c${i}:`, n(250), false)), 50));
    it('RESP3 (HELLO 3), pipelined', (t) =>
      check(t, 'resp3', [[norm('length', 'HELLO', '3'), ...session(f, rng('resp3'), '', n(600))]], 100));
  });
}
