#!/usr/bin/env node
/**
 * node-redis client-side caching (RESP3 `clientSideCache`, CLIENT TRACKING underneath) on a
 * read-mostly workload, with and without the client's cache, against PostRESP and redis-server
 * in the same run (issue 17 item 6; docs/BENCHMARKS.md has the numbers).
 *
 *   node scripts/bench/csc-bench.js [--tree DIR] [--rounds 3] [--seconds 5] [--warmup 1]
 *     [--clients 4] [--depth 16] [--keys 1000] [--write-pct 5] [--value-size 100] [--out DIR]
 *
 * Starts PostRESP (DIR/dist, its own embedded Postgres, unlogged, 2 workers, default options)
 * and redis-server 7 (`--save '' --appendonly no`) on random ports; fills --keys keys on both;
 * then runs four cases per round, in reversed order every other round: each server with the
 * clients' cache on and off. A case: --clients node-redis RESP3 connections, each with --depth
 * loops that pick a key uniformly and GET it, or SET it --write-pct percent of the time. ops/s over
 * --seconds after --warmup; server CPU µs per op from /proc/PID/stat (PostRESP: the node process,
 * then its postmaster and backends), the benchmark's own CPU per op, and the client caches' hit
 * ratio. Medians of the rounds.
 */
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { createClient, BasicClientSideCache } = require('redis');

function args() {
  const o = { tree: path.resolve(__dirname, '../..'), rounds: 3, seconds: 5, warmup: 1, clients: 4, depth: 16, keys: 1000,
    'write-pct': 5, 'value-size': 100, out: '/tmp/postresp-csc-bench' };
  const a = process.argv.slice(2);
  for (let i = 0; i < a.length; i += 2) {
    const k = a[i].replace(/^--/, '');
    if (!(k in o)) throw new Error(`unknown option ${a[i]}`);
    o[k] = typeof o[k] === 'number' ? Number(a[i + 1]) : a[i + 1];
  }
  return o;
}

const kTick = Number(spawnSync('getconf', ['CLK_TCK']).stdout.toString().trim() || 100);
/** utime + stime of a process, in µs; 0 once it is gone */
function cpuOf(pid) {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'latin1').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) * 1e6 / kTick;
  } catch { return 0; }
}
function childrenOf(pid) {
  const out = [];
  for (const p of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try { if (Number(fs.readFileSync(`/proc/${p}/stat`, 'latin1').split(') ')[1].split(' ')[1]) === pid) out.push(Number(p)); } catch { /* gone */ }
  }
  return out;
}
/** the server and, for PostRESP, its embedded postmaster and the postmaster's children */
function serverCpu(server) {
  let us = cpuOf(server.pid);
  if (!server.postgres) return { server: us, pg: 0 };
  let pg = 0;
  for (const pm of childrenOf(server.pid)) {
    let cmd = '';
    try { cmd = fs.readFileSync(`/proc/${pm}/cmdline`, 'latin1'); } catch { continue; }
    if (!cmd.includes('postgres')) continue;
    pg += cpuOf(pm);
    for (const b of childrenOf(pm)) pg += cpuOf(b);
  }
  return { server: us, pg };
}

const port = () => 30000 + Math.floor(Math.random() * 30000);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function waitReady(p) {
  for (let i = 0; i < 240; i++) {
    const c = createClient({ url: `redis://127.0.0.1:${p}` });
    c.on('error', () => undefined);
    try {
      await c.connect();
      await c.ping();
      await c.quit();
      return;
    } catch { await c.disconnect().catch(() => undefined); }
    await sleep(500);
  }
  throw new Error(`nothing answers on port ${p}`);
}

async function startServers(o) {
  fs.rmSync(o.out, { recursive: true, force: true });
  fs.mkdirSync(o.out, { recursive: true });
  const pr = { name: 'PostRESP', port: port(), postgres: true };
  const log = fs.openSync(path.join(o.out, 'postresp.log'), 'w');
  pr.proc = spawn('node', [path.join(o.tree, 'dist/core/primary/main.js'), '--port', String(pr.port), '--storage-mode', 'unlogged',
    '--data-dir', path.join(o.out, 'pg'), '--workers', '2'], { cwd: o.tree, stdio: ['ignore', log, log] });
  const rd = { name: 'redis-server', port: port(), postgres: false };
  rd.proc = spawn('redis-server', ['--port', String(rd.port), '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  for (const s of [pr, rd]) s.pid = s.proc.pid;
  await Promise.all([waitReady(pr.port), waitReady(rd.port)]);
  return [pr, rd];
}

/** One case: ops/s, server and Postgres CPU per op, this process's CPU per op, client hit ratio. */
async function runCase(o, server, csc, keys, value) {
  const caches = [];
  const clients = [];
  for (let i = 0; i < o.clients; i++) {
    const cache = csc ? new BasicClientSideCache({ ttl: 0, maxEntries: 0 }) : undefined;
    const c = createClient({ url: `redis://127.0.0.1:${server.port}`, RESP: 3, ...(cache ? { clientSideCache: cache } : {}) });
    c.on('error', (e) => console.error(`${server.name}: ${e.message}`));
    await c.connect();
    clients.push(c);
    if (cache) caches.push(cache);
  }
  let ops = 0;
  let stop = false;
  const writeShare = o['write-pct'] / 100;
  const loop = async (c) => {
    while (!stop) {
      const k = keys[Math.floor(Math.random() * keys.length)];
      if (Math.random() < writeShare) await c.set(k, value);
      else await c.get(k);
      ops++;
    }
  };
  const loops = clients.flatMap((c) => Array.from({ length: o.depth }, () => loop(c)));
  await sleep(o.warmup * 1000);
  const hits0 = caches.reduce((n, c) => n + c.stats().hitCount, 0);
  const miss0 = caches.reduce((n, c) => n + c.stats().missCount, 0);
  const ops0 = ops;
  const cpu0 = serverCpu(server);
  const own0 = process.cpuUsage();
  const t0 = performance.now();
  await sleep(o.seconds * 1000);
  const n = ops - ops0;
  const secs = (performance.now() - t0) / 1000;
  const cpu1 = serverCpu(server);
  const own1 = process.cpuUsage(own0);
  const hits = caches.reduce((m, c) => m + c.stats().hitCount, 0) - hits0;
  const misses = caches.reduce((m, c) => m + c.stats().missCount, 0) - miss0;
  stop = true;
  await Promise.all(loops);
  await Promise.all(clients.map((c) => c.quit()));
  return { rps: n / secs, server: (cpu1.server - cpu0.server) / n, pg: (cpu1.pg - cpu0.pg) / n,
    client: (own1.user + own1.system) / n, hit: csc ? hits / Math.max(1, hits + misses) : NaN };
}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };

async function main() {
  const o = args();
  const servers = await startServers(o);
  const keys = Array.from({ length: o.keys }, (_, i) => `csc:${String(i).padStart(6, '0')}`);
  const value = 'v'.repeat(o['value-size']);
  try {
    for (const s of servers) {
      const c = createClient({ url: `redis://127.0.0.1:${s.port}` });
      await c.connect();
      await c.flushAll();
      for (let i = 0; i < keys.length; i += 100) await c.mSet(keys.slice(i, i + 100).map((k) => [k, value]));
      await c.quit();
    }
    const cases = servers.flatMap((s) => [[s, true], [s, false]]);
    const results = new Map();
    const loads = [];
    for (let r = 0; r < o.rounds; r++) {
      for (const [s, csc] of (r % 2 === 0 ? cases : [...cases].reverse())) {
        const res = await runCase(o, s, csc, keys, value);
        const name = `${s.name} ${csc ? 'csc on' : 'csc off'}`;
        if (!results.has(name)) results.set(name, []);
        results.get(name).push(res);
        loads.push(Number(fs.readFileSync('/proc/loadavg', 'latin1').split(' ')[0]));
        console.error(`round ${r + 1} ${name}: ${Math.round(res.rps)} ops/s`);
      }
    }
    console.log(`${o.clients} clients x ${o.depth} in flight, ${o.keys} keys, ${100 - o['write-pct']}% GET / ${o['write-pct']}% SET, ` +
      `${o['value-size']} B values, ${o.seconds} s a case after ${o.warmup} s, ${o.rounds} rounds; load average ${Math.min(...loads)}-${Math.max(...loads)}`);
    console.log('| server | client cache | ops/s | on/off | server µs/op | Postgres µs/op | client µs/op | client hit ratio | raw ops/s |');
    console.log('|---|---|---:|---:|---:|---:|---:|---:|---|');
    for (const s of servers) {
      const off = median(results.get(`${s.name} csc off`).map((x) => x.rps));
      for (const csc of [true, false]) {
        const xs = results.get(`${s.name} ${csc ? 'csc on' : 'csc off'}`);
        const m = (f) => median(xs.map(f));
        console.log(`| ${s.name} | ${csc ? 'on' : 'off'} | ${Math.round(m((x) => x.rps))} | ${(m((x) => x.rps) / off).toFixed(2)} | ` +
          `${m((x) => x.server).toFixed(1)} | ${s.postgres ? m((x) => x.pg).toFixed(1) : '—'} | ${m((x) => x.client).toFixed(1)} | ` +
          `${csc ? m((x) => x.hit).toFixed(3) : '—'} | ${xs.map((x) => Math.round(x.rps)).join(' / ')} |`);
      }
    }
  } finally {
    for (const s of servers) s.proc.kill('SIGTERM');
    await Promise.all(servers.map((s) => new Promise((r) => (s.proc.exitCode !== null ? r() : s.proc.once('exit', r)))));
  }
}

main().catch((e) => { console.error(e); process.exitCode = 1; });
