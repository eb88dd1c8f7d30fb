/**
 * Runs the lanes carry as one statement (the families' batches, core/engine/ops.ts `Batch`):
 * consecutive pushes onto one key (list/push-batch.ts), pops of one key (LPOP/RPOP, ZPOPMIN/ZPOPMAX,
 * SPOP: collection/pop-batch.ts), SADDs to one key (set/sadd-batch.ts), plain ZADDs to one key (zset/zadd-batch.ts) and
 * HSET / HMSET to one key (hash/hset-batch.ts; HSETNX in between must split the run), equal LRANGEs of one key
 * (list/lrange-batch.ts: read once) and GETs / MGETs repeating a key (storage/read-run.ts: the key read once). The replies must still be
 * those of serial execution. Pipelined runs on a few keys — missing keys for the X forms, SADDs
 * naming members already in the set or named by an earlier SADD of the run, a string key
 * (WRONGTYPE), keys deleted or shrunk in between — against redis-server, 8 clients at once; and
 * the statement counter shows the runs were merged (fewer statements than commands).
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { compareSteps, exact, norm, type Step } from './collections-compare';
import { Oracle, freePort, report } from './oracle';
import { Rng, seedFromEnv } from './prng';

const seed = seedFromEnv(20261130);

function statements(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path: '/metrics' }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => {
        const m = /^postresp_pg_statements_total(?:\{\})? (\d+)/m.exec(body);
        if (m) resolve(Number(m[1])); else reject(new Error('no postresp_pg_statements_total in /metrics'));
      });
    }).on('error', reject);
  });
}

/** list pushes: runs onto one key, with reads and deletes between them */
function pushSteps(rng: Rng, prefix: string, out: Step[]): void {
  const keys = ['a', 'b', 'x'].map((s) => prefix + s);
  const k = rng.chance(0.1) ? prefix + 'str' : rng.pick(keys);
  const cmd = rng.pick(['LPUSH', 'RPUSH', 'LPUSH', 'RPUSH', 'LPUSHX', 'RPUSHX']);
  const run = rng.between(1, 12);
  for (let i = 0; i < run; i++) {
    out.push(exact(cmd, k, ...Array.from({ length: rng.between(1, 3) }, () => rng.pick(['a', 'b', '', '\x00', 'x'.repeat(50)]))));
  }
  const r = rng.next();
  if (r < 0.1) out.push(exact('DEL', rng.pick(keys)));
  else if (r < 0.25) out.push(exact('LRANGE', k, '0', '-1'));
  else if (r < 0.35) out.push(exact('LLEN', k));
}

/** a run of 1-12 pops of `k`: half without a count, else 1..max, 0 or past the end */
function popRun(rng: Rng, cmd: string, k: string, max: number, out: Step[]): void {
  const run = rng.between(1, 12);
  for (let i = 0; i < run; i++) {
    const r = rng.next();
    if (r < 0.5) out.push(exact(cmd, k));
    else if (r < 0.9) out.push(exact(cmd, k, String(rng.between(1, max))));
    else out.push(exact(cmd, k, rng.pick(['0', '100'])));
  }
}

/** LPOP / RPOP runs from one end of one key (with and without counts, count 0, counts past the
 * end), refilled by pushes: runs that empty the key part-way, on a missing key, on a string */
function popSteps(rng: Rng, prefix: string, out: Step[]): void {
  const keys = ['a', 'b', 'x'].map((s) => prefix + s);
  const k = rng.chance(0.1) ? prefix + 'str' : rng.pick(keys);
  if (rng.chance(0.6)) out.push(exact('RPUSH', k, ...Array.from({ length: rng.between(1, 8) }, (_, i) => `e${i}`)));
  popRun(rng, rng.pick(['LPOP', 'RPOP']), k, 4, out);
  if (rng.chance(0.2)) out.push(exact('LRANGE', k, '0', '-1'));
}

/** ZPOPMIN / ZPOPMAX runs on one sorted set (counts 0, past the end), refilled by ZADD */
function zpopSteps(rng: Rng, prefix: string, out: Step[]): void {
  const keys = ['z', 'w'].map((s) => prefix + s);
  const k = rng.chance(0.1) ? prefix + 'str' : rng.pick(keys);
  if (rng.chance(0.6)) out.push(exact('ZADD', k, ...Array.from({ length: rng.between(1, 6) }, () => [String(rng.between(0, 9)), rng.pick(['m1', 'm2', 'm3', 'm4', 'm5', ''])]).flat()));
  popRun(rng, rng.pick(['ZPOPMIN', 'ZPOPMAX']), k, 3, out);
}

/** ZADD runs on one sorted set (zset/zadd-batch.ts): members repeated within a command, across
 * the run and already present; scores equal to the old one (no change), -0 after 0, infinities;
 * CH on some; NX / XX / INCR / ZINCRBY in between split the run; ZSCORE and ZCARD after */
function zaddSteps(rng: Rng, prefix: string, out: Step[]): void {
  const keys = ['z', 'w'].map((s) => prefix + s);
  const k = rng.chance(0.1) ? prefix + 'str' : rng.pick(keys);
  const member = () => rng.pick(['m1', 'm2', 'm3', 'm4', 'm5', '', '\x00']);
  const score = () => rng.pick(['0', '-0', '1', '2.5', '-3', 'inf', '-inf', '1e3', String(rng.between(0, 9))]);
  const run = rng.between(1, 12);
  for (let i = 0; i < run; i++) {
    const r = rng.next();
    if (r < 0.08) { out.push(exact('ZADD', k, rng.pick(['NX', 'XX', 'GT', 'LT']), score(), member())); continue; }
    if (r < 0.12) { out.push(exact('ZINCRBY', k, '1', member())); continue; }
    const pairs = Array.from({ length: rng.between(1, 3) }, () => [score(), member()]).flat();
    out.push(rng.chance(0.3) ? exact('ZADD', k, 'CH', ...pairs) : exact('ZADD', k, ...pairs));
  }
  const r = rng.next();
  if (r < 0.1) out.push(exact('DEL', rng.pick(keys)));
  else if (r < 0.25) out.push(exact('ZSCORE', k, member()));
  else if (r < 0.35) out.push(exact('ZCARD', k));
  else if (r < 0.45) out.push(exact('ZRANGE', k, '0', '-1', 'WITHSCORES'));
}

/** SPOP runs on one set: which members is random, so replies compare by length and SCARD exactly
 * (SADD adds members never added before: what the random pops left cannot change its count) */
let fresh = 0;
function spopSteps(rng: Rng, prefix: string, out: Step[]): void {
  const k = rng.chance(0.1) ? prefix + 'str' : prefix + 'r';
  if (rng.chance(0.6)) out.push(exact('SADD', k, ...Array.from({ length: rng.between(1, 8) }, () => `s${fresh++}`)));
  const run = rng.between(1, 12);
  for (let i = 0; i < run; i++) {
    const r = rng.next();
    if (r < 0.5) out.push(norm('length', 'SPOP', k));
    else out.push(norm('length', 'SPOP', k, String(rng.between(0, 4))));
  }
  out.push(exact('SCARD', k));
}

/** INCR-family runs on one key (incr_many adds in memory after the first op): overflows part-way,
 * a non-integer, a wrong type, the key set or deleted in between */
function incrSteps(rng: Rng, prefix: string, out: Step[]): void {
  const k = rng.chance(0.1) ? prefix + 'h' : rng.chance(0.5) ? prefix + 'n' : prefix + 'm';
  const r0 = rng.next();
  if (r0 < 0.1) out.push(exact('SET', k, rng.pick(['9223372036854775800', '-9223372036854775800', 'x1', '7'])));
  else if (r0 < 0.15) out.push(exact('DEL', k));
  const run = rng.between(1, 12);
  for (let i = 0; i < run; i++) {
    const r = rng.next();
    if (r < 0.4) out.push(exact(rng.pick(['INCR', 'DECR']), k));
    else out.push(exact(rng.pick(['INCRBY', 'DECRBY']), k, rng.pick(['1', '-3', '1000', '4611686018427387904', '-4611686018427387904'])));
  }
  out.push(exact('GET', k));
}

/** SADD runs over a small member pool (repeats within a command, across a run, and of members
 * already present), with SREM / SCARD / SMEMBERS / DEL between them */
function saddSteps(rng: Rng, prefix: string, out: Step[]): void {
  const keys = ['s', 't'].map((s) => prefix + s);
  const k = rng.chance(0.1) ? prefix + 'str' : rng.pick(keys);
  const member = () => rng.pick(['m1', 'm2', 'm3', 'm4', '', '\x00', 'y'.repeat(40)]);
  const run = rng.between(1, 12);
  for (let i = 0; i < run; i++) out.push(exact('SADD', k, ...Array.from({ length: rng.between(1, 3) }, member)));
  const r = rng.next();
  if (r < 0.1) out.push(exact('DEL', rng.pick(keys)));
  else if (r < 0.25) out.push(exact('SREM', k, member(), member()));
  else if (r < 0.35) out.push(exact('SCARD', k));
  else if (r < 0.45) out.push(norm('set', 'SMEMBERS', k));
}

/** HSET / HMSET runs over a small field pool (repeated fields, fields already present, values
 * overwritten later in the run), HSETNX inside runs, HDEL / HLEN / HGETALL / HGET between */
function hsetSteps(rng: Rng, prefix: string, out: Step[]): void {
  const keys = ['h', 'i'].map((s) => prefix + s);
  const k = rng.chance(0.1) ? prefix + 'str' : rng.pick(keys);
  const field = () => rng.pick(['f1', 'f2', 'f3', '', '\x00']);
  const value = () => rng.pick(['v1', 'v2', '', 'z'.repeat(30)]);
  const run = rng.between(1, 12);
  for (let i = 0; i < run; i++) {
    if (rng.chance(0.1)) { out.push(exact('HSETNX', k, field(), value())); continue; }
    const args = Array.from({ length: rng.between(1, 3) }, () => [field(), value()]).flat();
    out.push(exact(rng.pick(['HSET', 'HSET', 'HMSET']), k, ...args));
  }
  const r = rng.next();
  if (r < 0.1) out.push(exact('DEL', rng.pick(keys)));
  else if (r < 0.25) out.push(exact('HDEL', k, field(), field()));
  else if (r < 0.35) out.push(exact('HLEN', k));
  else if (r < 0.45) out.push(exact('HGET', k, field()));
  else if (r < 0.55) out.push(norm('pairs', 'HGETALL', k));
}

/** LRANGE runs on one key (list/lrange-batch.ts: equal ones read once), other ranges splitting
 * them, a push or LSET in between, a missing key, a string (WRONGTYPE); GET / MGET runs naming
 * one key again and again (read-run.ts sends it once), a SET of it in between */
function readSteps(rng: Rng, prefix: string, out: Step[]): void {
  const keys = ['a', 'b', 'x'].map((s) => prefix + s);
  const k = rng.chance(0.1) ? prefix + 'str' : rng.pick(keys);
  const range = (): [string, string] => rng.pick([['0', '-1'], ['0', '2'], ['1', '1'], ['-2', '-1'], ['5', '2'], ['0', '100']] as [string, string][]);
  let [start, stop] = range();
  const run = rng.between(1, 12);
  for (let i = 0; i < run; i++) {
    const r = rng.next();
    if (r < 0.1) [start, stop] = range();
    else if (r < 0.15) out.push(exact('RPUSH', k, `r${i}`));
    else if (r < 0.18) out.push(exact('LSET', k, '0', `s${i}`));
    out.push(exact('LRANGE', k, start, stop));
  }
  const g = rng.chance(0.2) ? prefix + rng.pick(['a', 'missing']) : prefix + 'g';
  const gets = rng.between(1, 10);
  for (let i = 0; i < gets; i++) {
    const r = rng.next();
    if (r < 0.1) out.push(exact('SET', g, `v${i}`));
    if (r < 0.3) out.push(exact('MGET', g, g, prefix + 'str', g));
    else out.push(exact('GET', g));
  }
}

function session(rng: Rng, prefix: string, n: number): Step[] {
  const out: Step[] = [exact('SET', prefix + 'str', 'v')];
  while (out.length < n) rng.pick([pushSteps, popSteps, zpopSteps, zaddSteps, spopSteps, incrSteps, saddSteps, hsetSteps])(rng, prefix, out);
  const dump = ['a', 'b', 'x'].flatMap((k) => [exact('LRANGE', prefix + k, '0', '-1'), exact('LLEN', prefix + k)]);
  const sets = ['s', 't'].flatMap((k) => [norm('set', 'SMEMBERS', prefix + k), exact('SCARD', prefix + k)]);
  const hashes = ['h', 'i'].flatMap((k) => [norm('pairs', 'HGETALL', prefix + k), exact('HLEN', prefix + k)]);
  const zsets = ['z', 'w'].map((k) => exact('ZRANGE', prefix + k, '0', '-1', 'WITHSCORES'));
  return [...out, ...dump, ...sets, ...hashes, ...zsets, exact('SCARD', prefix + 'r')];
}

describe('merged runs (pushes, pops, SADDs, ZADDs, HSETs, LRANGEs, GETs) vs redis-server', () => {
  let oracle: Oracle;
  let httpPort: number;
  before(async () => {
    httpPort = await freePort();
    oracle = await Oracle.start(['--workers', '2', '--storage-mode', 'unlogged', '--http-port', String(httpPort)]);
  });
  after(async () => { await oracle?.stop(); });

  it('8 pipelined clients: replies equal serial execution, and runs were merged', async (t) => {
    const sessions = Array.from({ length: 8 }, (_, i) => session(new Rng(seed).fork(`run${i}`), `p${i}:`, 500));
    const merged = sessions.flat().filter((s) => /PUSH|POP|INCR|DECR|SADD|ZADD|HM?SET$/.test(String(s.cmd[0]))).length;
    const before = await statements(httpPort);
    const r = await compareSteps(oracle, sessions, Infinity);
    const used = (await statements(httpPort)) - before;
    t.diagnostic(`${r.commands} commands (${merged} pushes, pops, SADDs, ZADDs, HSETs), ${used} statements, ${r.mismatches.length} differ (seed ${seed})`);
    assert.equal(r.mismatches.length, 0, report('merged runs', seed, r));
    // unmerged, any one kind alone would take ~1,400 statements more here
    assert.ok(used < r.commands / 3, `${used} statements for ${r.commands} commands: runs were not merged`);
  });

  it('LRANGE and GET runs on one key: replies equal serial execution, and each run is read once', async (t) => {
    const sessions = Array.from({ length: 8 }, (_, i) => {
      const rng = new Rng(seed).fork(`read${i}`);
      const p = `q${i}:`;
      const out: Step[] = [exact('SET', p + 'str', 'v'), exact('RPUSH', p + 'a', 'x', 'y', 'z', 'w')];
      while (out.length < 400) readSteps(rng, p, out);
      return out;
    });
    const reads = sessions.flat().filter((s) => /^(LRANGE|GET|MGET)$/.test(String(s.cmd[0]))).length;
    const before = await statements(httpPort);
    const r = await compareSteps(oracle, sessions, Infinity);
    const used = (await statements(httpPort)) - before;
    t.diagnostic(`${r.commands} commands (${reads} LRANGEs, GETs, MGETs), ${used} statements, ${r.mismatches.length} differ (seed ${seed})`);
    assert.equal(r.mismatches.length, 0, report('read runs', seed, r));
    // a statement per LRANGE would be more than half the commands
    assert.ok(used < r.commands / 2, `${used} statements for ${r.commands} commands: LRANGE runs were not merged`);
  });

  it('equal LRANGEs of one key, pipelined, read it once per run (redis-benchmark LRANGE_100)', async (t) => {
    const fill = exact('RPUSH', 'lr:hot', ...Array.from({ length: 150 }, (_, i) => `e${i}`));
    const reads = Array.from({ length: 400 }, (_, i) => (i === 200 ? exact('LPUSH', 'lr:hot', 'mid') : exact('LRANGE', 'lr:hot', '0', '99')));
    const before = await statements(httpPort);
    const r = await compareSteps(oracle, [[fill, ...reads]], Infinity);
    const used = (await statements(httpPort)) - before;
    t.diagnostic(`${r.commands} commands, ${used} statements`);
    assert.equal(r.mismatches.length, 0, report('LRANGE runs', seed, r));
    // a statement each before (400 and more); now one per run: batches of up to 256, split at
    // the LPUSH, plus the RPUSH and FLUSHALL
    assert.ok(used <= 16, `${used} statements for 400 pipelined LRANGEs of one key`);
  });
});
