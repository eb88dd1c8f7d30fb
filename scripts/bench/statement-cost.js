#!/usr/bin/env node
/**
 * Backend CPU per statement of the lane's write run, by variant (issue 18: what does one SET
 * statement cost Postgres, and which part of it would a change remove?). Each variant has its own
 * connection, so its own backend; the variants take turns sending --chunk statements (one Sync
 * each, the next only once the last answered: a lane's closed loop), reversed every other round.
 * CPU comes from /proc/<backend>/schedstat (nanoseconds on the CPU) rather than /proc/<pid>/stat
 * (10 ms ticks: ±5 µs per statement over 2000 statements, as large as the effects looked for).
 *
 *   node scripts/bench/statement-cost.js --url postgres://… --variants FILE.json [--size 5]
 *     [--chunk 2000] [--rounds 10] [--keys 10000] [--value-size 3]
 *
 * FILE.json: [{ "name": "current", "schema": "postresp" }, { "name": "select 1", "schema":
 * "postresp", "sql": "SELECT 1" }, { "name": "x", "schema": "s2", "sql": "INSERT …", "pre":
 * ["SET track_activities = off"] }, …]. `sql` defaults to kSql.write (the built dist's); any
 * other text gets the same four parameters unless it names none ($1). `pre` runs once after
 * connecting. Schemas must hold PostRESP's kv table (start PostRESP with --schema S, or call
 * dist/core/primary/postgres/migrations migrate()). Keys are drawn from --keys: after the warm-up
 * almost every row is an overwrite, as in `redis-benchmark -r 10000`. Prints per variant the
 * median and 25th percentile of the rounds' µs per statement (the lower quartile is the one that
 * moves least when other processes share the cores) and the rounds themselves.
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const dist = path.resolve(__dirname, '../../dist');
const { NativePgConnection } = require(`${dist}/core/engine/pg-driver/native-conn`);
const { kSql } = require(`${dist}/workers/storage/statements`);
const { writeArrays } = require(`${dist}/workers/storage/write-run`);

function args() {
  const o = { url: '', variants: '', size: 5, chunk: 2000, rounds: 10, keys: 10000, 'value-size': 3 };
  const a = process.argv.slice(2);
  for (let i = 0; i < a.length; i += 2) o[a[i].replace(/^--/, '')] = a[i + 1];
  for (const k of ['size', 'chunk', 'rounds', 'keys', 'value-size']) o[k] = Number(o[k]);
  return o;
}

const onCpuSeconds = (pid) => Number(fs.readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e9;
const keyOf = (i) => Buffer.from(`key:${String(i).padStart(12, '0')}`);

function exec(conn, text, params) {
  return new Promise((resolve, reject) => {
    let err = null;
    conn.send(text, params, (e) => { err = e; });
    conn.sync((e) => (err || e ? reject(err || e) : resolve()));
  });
}

async function main() {
  const o = args();
  const variants = JSON.parse(fs.readFileSync(o.variants, 'utf8'));
  const value = Buffer.alloc(o['value-size'], 120);
  for (const v of variants) {
    // the lane's own session settings (core/primary/postgres/schema.ts startupOptions), unlogged
    v.conn = await NativePgConnection.connect(o.url, { libpq: { options: `-c search_path=${v.schema} -c synchronous_commit=off ` +
      '-c jit=off -c plan_cache_mode=force_generic_plan -c enable_seqscan=off -c enable_sort=off' } });
    for (const q of v.pre ?? []) await exec(v.conn, q, []);
    v.text = v.sql ?? kSql.write.text;
    v.params = /\$1\b/.test(v.text);
    v.runs = [];
  }
  const run = async (v, n) => {
    for (let i = 0; i < n; i++) {
      let params = [];
      if (v.params) {
        const ops = [];
        for (let k = 0; k < o.size; k++) ops.push({ db: 0, key: keyOf(Math.floor(Math.random() * o.keys)), data: value, kv: null, exp: null });
        params = writeArrays(ops);
      }
      await exec(v.conn, v.text, params);
    }
  };
  // warm-up: plans cached (generic), most keys present, pages in their steady HOT-update state
  for (const v of variants) await run(v, Math.ceil((o.keys * 1.5) / o.size));
  for (let r = 0; r < o.rounds; r++) {
    for (const v of r % 2 ? [...variants].reverse() : variants) {
      const c0 = onCpuSeconds(v.conn.backendPid);
      await run(v, o.chunk);
      v.runs.push(((onCpuSeconds(v.conn.backendPid) - c0) * 1e6) / o.chunk);
    }
    process.stderr.write('.');
  }
  process.stderr.write('\n');
  const at = (xs, q) => [...xs].sort((a, b) => a - b)[Math.floor(q * (xs.length - 1))];
  console.log(`| variant | rows/statement | backend µs/statement (median) | p25 | rounds |`);
  console.log('|---|---:|---:|---:|---|');
  for (const v of variants) {
    console.log(`| ${v.name} | ${v.params ? o.size : 0} | ${at(v.runs, 0.5).toFixed(1)} | ${at(v.runs, 0.25).toFixed(1)} | ${v.runs.map((x) => x.toFixed(0)).join(' ')} |`);
    await v.conn.close();
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
