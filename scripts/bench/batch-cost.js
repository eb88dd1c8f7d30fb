#!/usr/bin/env node
/**
 * Postgres CPU per SET against the batch size a lane sends (issue 18 item 3: where does the curve
 * flatten?). Sends the lane's own write run — kSql.write with writeArrays() from the built dist,
 * rows deduplicated and in (db, key) order, one statement + Sync a batch, the next batch only once
 * the last answered — on --lanes connections at once, closed loop, for --seconds per case.
 *
 *   node scripts/bench/batch-cost.js --url postgres://… --pgpid PID [--schemas postresp:unlogged,blogged:logged]
 *     [--sizes 1,2,5,10,20,50] [--lanes 2] [--seconds 4] [--rounds 2] [--keys 10000] [--value-size 3]
 *
 * Schemas must hold PostRESP's kv table (start a PostRESP on that Postgres with --schema S and the
 * storage mode). Per case: rows/s; CPU µs per row of every Postgres process (the postmaster PID
 * and its children, /proc utime+stime) and of the lanes' backends alone; this process's CPU per
 * row (what a lane's node side spends on building, sending and reading the statement); commits
 * (pg_stat_database xact_commit) and WAL flushes (pg_stat_wal wal_sync) per row. Medians of the
 * rounds; the cases alternate, reversed every other round.
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const dist = path.resolve(__dirname, '../../dist');
const { NativePgConnection } = require(`${dist}/core/engine/pg-driver/native-conn`);
const { kSql } = require(`${dist}/workers/storage/statements`);
const { writeArrays } = require(`${dist}/workers/storage/write-run`);

function args() {
  const o = { url: '', pgpid: 0, schemas: 'postresp:unlogged,blogged:logged', sizes: '1,2,5,10,20,50', lanes: 2, seconds: 4,
    rounds: 2, keys: 10000, 'value-size': 3 };
  const a = process.argv.slice(2);
  for (let i = 0; i < a.length; i += 2) o[a[i].replace(/^--/, '')] = a[i + 1];
  for (const k of ['pgpid', 'lanes', 'seconds', 'rounds', 'keys', 'value-size']) o[k] = Number(o[k]);
  return o;
}

const tck = 100;
function procCpu(pid) {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) / tck;
  } catch { return 0; }
}
function childrenOf(pid) {
  const out = [];
  for (const p of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try { if (Number(fs.readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1].split(' ')[1]) === pid) out.push(Number(p)); } catch { /* gone */ }
  }
  return out;
}
const pgCpu = (pm) => [pm, ...childrenOf(pm)].reduce((s, p) => s + procCpu(p), 0);

function keyOf(i) { return Buffer.from(`key:${String(i).padStart(12, '0')}`); }

async function runCase(o, schema, mode, size, stat) {
  const conns = await Promise.all(Array.from({ length: o.lanes }, () => NativePgConnection.connect(o.url, {
    libpq: { options: `-c search_path=${schema} -c synchronous_commit=${mode === 'logged' ? 'on' : 'off'} -c jit=off` },
  })));
  const value = Buffer.alloc(o['value-size'], 120);
  let rows = 0;
  let stop = false;
  const loops = conns.map((c) => new Promise((resolve, reject) => {
    const next = () => {
      if (stop) return resolve();
      const ops = [];
      for (let i = 0; i < size; i++) ops.push({ db: 0, key: keyOf(Math.floor(Math.random() * o.keys)), data: value, kv: null, exp: null });
      let err = null;
      c.send(kSql.write.text, writeArrays(ops), (e) => { err = e; });
      c.sync((e) => {
        if (err || e) return reject(err || e);
        rows += size;
        next();
      });
    };
    next();
  }));
  // warm up (prepare, caches), then measure
  await new Promise((r) => setTimeout(r, 500));
  const backends = conns.map((c) => c.backendPid);
  const s0 = await stat.query('SELECT (SELECT xact_commit FROM pg_stat_database WHERE datname = current_database())::int8 AS c, (SELECT wal_sync FROM pg_stat_wal)::int8 AS f');
  const r0 = rows, pg0 = pgCpu(o.pgpid), be0 = backends.reduce((s, p) => s + procCpu(p), 0), n0 = process.cpuUsage(), t0 = Date.now();
  await new Promise((r) => setTimeout(r, o.seconds * 1000));
  const dr = rows - r0, dt = (Date.now() - t0) / 1000;
  const pg = pgCpu(o.pgpid) - pg0, be = backends.reduce((s, p) => s + procCpu(p), 0) - be0, n = process.cpuUsage(n0);
  // a backend reports its counts at most once a second, and when it exits: close, then wait
  stop = true;
  await Promise.all(loops);
  await Promise.all(conns.map((c) => c.close()));
  await new Promise((r) => setTimeout(r, 1100));
  const s1 = await stat.query('SELECT (SELECT xact_commit FROM pg_stat_database WHERE datname = current_database())::int8 AS c, (SELECT wal_sync FROM pg_stat_wal)::int8 AS f');
  const d = (k) => Number(s1.int(0, k === 'c' ? 0 : 1)) - Number(s0.int(0, k === 'c' ? 0 : 1));
  return { rps: dr / dt, pgUs: pg * 1e6 / dr, beUs: be * 1e6 / dr, nodeUs: (n.user + n.system) / dr,
    commits: d('c') / (rows - r0), flushes: d('f') / (rows - r0) };
}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[s.length >> 1]; };

async function main() {
  const o = args();
  const stat = await NativePgConnection.connect(o.url);
  const cases = [];
  for (const sm of o.schemas.split(',')) {
    const [schema, mode] = sm.split(':');
    for (const size of o.sizes.split(',').map(Number)) cases.push({ schema, mode, size, runs: [] });
  }
  for (let r = 0; r < o.rounds; r++) {
    for (const c of (r % 2 ? [...cases].reverse() : cases)) {
      c.runs.push(await runCase(o, c.schema, c.mode, c.size, stat));
      process.stderr.write('.');
    }
  }
  await stat.close();
  console.log(`\n| mode | rows/statement | rows/s | Postgres µs/row (all) | backends µs/row | node µs/row | commits/row | WAL flushes/row |`);
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const c of cases) {
    const m = (k) => median(c.runs.map((x) => x[k]));
    console.log(`| ${c.mode} | ${c.size} | ${Math.round(m('rps'))} | ${m('pgUs').toFixed(1)} | ${m('beUs').toFixed(1)} | ${m('nodeUs').toFixed(1)} | ${m('commits').toFixed(3)} | ${m('flushes').toFixed(3)} |`);
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
