#!/usr/bin/env node
/**
 * Node CPU a lane spends per op, without clients (issue 18 item 4: PostRESP's ~9 µs of a SET over a
 * PING at -c 20 -P 1). Runs the real Lane (workers/storage/lane.ts) of each TREE's dist on its own
 * connection, closed loop: submit BATCH plain SETs (or GETs), wait until every one settled, again.
 * Per case: ops/s and this process's CPU per op (utime+stime, process.cpuUsage: the lane's JS,
 * the libpq binding, the socket syscalls and wake-ups). The cases alternate, reversed every other
 * round; medians.
 *
 *   node scripts/bench/lane-cost.js --url postgres://… --schema postresp --trees old=/tmp/old,new=.
 *     [--kind set|get] [--batch 5] [--seconds 3] [--rounds 5] [--keys 10000] [--value-size 3]
 */
'use strict';
const path = require('node:path');

function args() {
  const o = { url: '', schema: 'postresp', trees: 'new=.', kind: 'set', batch: 5, seconds: 3, rounds: 5, keys: 10000, 'value-size': 3 };
  const a = process.argv.slice(2);
  for (let i = 0; i < a.length; i += 2) o[a[i].replace(/^--/, '')] = a[i + 1];
  for (const k of ['batch', 'seconds', 'rounds', 'keys', 'value-size']) o[k] = Number(o[k]);
  return o;
}

const keyOf = (i) => Buffer.from(`key:${String(i).padStart(12, '0')}`);
const kGetReply = (type, value) => value;

async function runCase(o, dist) {
  const { Lane } = require(`${dist}/workers/storage/lane`);
  const { WriteOp, ReadOp } = require(`${dist}/core/engine/ops`);
  const lane = new Lane({
    url: o.url, startupOptions: `-c search_path=${o.schema} -c synchronous_commit=off -c jit=off`, log: () => undefined,
    maxCommands: () => 256, maxBytes: () => 4 << 20, batchTransaction: () => true, pipelineMin: () => 64,
  });
  await lane.start();
  const value = Buffer.alloc(o['value-size'], 120);
  let ops = 0;
  let stop = false;
  let finish;
  const done = new Promise((r) => (finish = r));
  const round = () => {
    if (stop) return finish();
    let left = o.batch;
    const settled = () => { if (--left === 0) { ops += o.batch; round(); } };
    for (let i = 0; i < o.batch; i++) {
      const k = keyOf(Math.floor(Math.random() * o.keys));
      const op = o.kind === 'get' ? new ReadOp(0, k, null, kGetReply) : new WriteOp(0, k, value, null, null);
      op.listener = settled;
      lane.submit(op);
    }
  };
  round();
  await new Promise((r) => setTimeout(r, 500)); // prepare, JIT
  const n0 = ops, c0 = process.cpuUsage(), t0 = Date.now();
  await new Promise((r) => setTimeout(r, o.seconds * 1000));
  const c = process.cpuUsage(c0), n = ops - n0, dt = (Date.now() - t0) / 1000;
  stop = true;
  await done;
  await lane.close();
  return { rps: n / dt, us: (c.user + c.system) / n };
}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[s.length >> 1]; };

async function main() {
  const o = args();
  const trees = o.trees.split(',').map((t) => { const [name, dir] = t.split('='); return { name, dist: path.resolve(dir, 'dist'), runs: [] }; });
  for (let r = 0; r < o.rounds; r++) {
    for (const t of (r % 2 ? [...trees].reverse() : trees)) t.runs.push(await runCase(o, t.dist));
    process.stderr.write('.');
  }
  console.log(`\n${o.kind} batch ${o.batch}, ${o.rounds} rounds of ${o.seconds} s`);
  for (const t of trees) {
    console.log(`${t.name.padStart(8)}: ${Math.round(median(t.runs.map((x) => x.rps)))} ops/s, node ${median(t.runs.map((x) => x.us)).toFixed(2)} µs/op` +
      `   raw ${t.runs.map((x) => x.us.toFixed(2)).join(' ')}`);
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
