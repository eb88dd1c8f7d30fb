// `npm run bench:bullmq`: BullMQ end to end (issue 16 item 4) against PostRESP (logged and
// unlogged, embedded Postgres) and redis-server (appendfsync always, and no persistence): per run
// Queue.addBulk of --jobs jobs, two Workers (concurrency 10 and 50) draining them, a QueueEvents
// counting `completed`; every job completed exactly once with its return value, every event
// received; then delayed jobs' lateness and the latency of jobs added one at a time. The servers
// stay up for the whole bench and take turns, run after run (--runs), so each round sees the
// same machine load; the table gives every run and the median.
//
//   npm run bench:bullmq -- [--jobs 10000] [--runs 3] [--delayed 200] [--steady 100] [--steady-rate 10]
//                           [--servers postresp-logged,postresp-unlogged,redis-always,redis-none]
//                           [--timeout 600] [--json FILE] [--lock-ms 30000]

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPeer, startPostresp, stopServersOnSignal, type ServerHandle } from '../servers';
import { installScriptCounter } from './script-calls';
import { runWorkload, type WorkloadResult } from './workload';

const kServers: Record<string, (dir: string) => Promise<ServerHandle>> = {
  'postresp-logged': (dir) => startPostresp({ storageMode: 'logged', dataDir: join(dir, 'pg'), timeoutMs: 600_000 }),
  'postresp-unlogged': (dir) => startPostresp({ storageMode: 'unlogged', dataDir: join(dir, 'pg'), timeoutMs: 600_000 }),
  'redis-always': (dir) => startPeer('aof-always', dir),
  'redis-none': (dir) => startPeer('none', dir),
};

interface Options { jobs: number; runs: number; delayed: number; steady: number; steadyRate: number; servers: string[]; timeoutS: number; json: string | null; lockMs?: number }

function parse(argv: string[]): Options {
  const o: Options = { jobs: 10_000, runs: 3, delayed: 200, steady: 100, steadyRate: 10, servers: Object.keys(kServers), timeoutS: 600, json: null };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    if (flag === '--jobs') o.jobs = Number(value);
    else if (flag === '--runs') o.runs = Number(value);
    else if (flag === '--delayed') o.delayed = Number(value);
    else if (flag === '--steady') o.steady = Number(value);
    else if (flag === '--steady-rate') o.steadyRate = Number(value);
    else if (flag === '--timeout') o.timeoutS = Number(value);
    else if (flag === '--json') o.json = value;
    else if (flag === '--lock-ms') o.lockMs = Number(value);
    else if (flag === '--servers') o.servers = value.split(',');
    else throw new Error(`unknown option ${flag}`);
  }
  for (const s of o.servers) if (!kServers[s]) throw new Error(`unknown server ${s}: one of ${Object.keys(kServers).join(', ')}`);
  return o;
}

const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor((s.length - 1) / 2)]; };
const fmt = (x: number, digits = 0) => Number.isFinite(x) ? x.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : '–';

function row(server: string, r: WorkloadResult[], jobs: number): string {
  const add = r.map((x) => jobs / x.addSeconds);
  const proc = r.map((x) => jobs / x.processSeconds);
  const all = (xs: number[], d = 0) => `${fmt(median(xs), d)} (${xs.map((x) => fmt(x, d)).join(' / ')})`;
  return `| ${server} | ${all(add)} | ${all(proc)} | ${fmt(median(r.map((x) => x.steadyLatency.p50)))} / ${fmt(median(r.map((x) => x.steadyLatency.p99)))}`
    + ` | ${fmt(median(r.map((x) => x.lateness.p50)))} / ${fmt(median(r.map((x) => x.lateness.p99)))} / ${fmt(Math.max(...r.map((x) => x.lateness.max)))}`
    + ` | ${fmt(median(r.map((x) => x.cpuServerUsPerJob)))} | ${fmt(median(r.map((x) => x.cpuPostgresUsPerJob)))} | ${r.every((x) => x.errors.length === 0) ? 'yes' : 'NO'} |`;
}

async function main(): Promise<void> {
  const o = parse(process.argv.slice(2));
  stopServersOnSignal();
  installScriptCounter();
  const dir = mkdtempSync(join(tmpdir(), 'bench-bullmq-'));
  const servers = new Map<string, ServerHandle>();
  const results = new Map<string, WorkloadResult[]>(o.servers.map((s) => [s, []]));
  try {
    for (const s of o.servers) {
      servers.set(s, await kServers[s](join(dir, s)));
      console.error(`${s}: ${servers.get(s)!.command.join(' ')} (port ${servers.get(s)!.port})`);
    }
    for (let run = 1; run <= o.runs; run++) {
      for (const s of o.servers) {
        const h = servers.get(s)!;
        const load = loadavg()[0].toFixed(1);
        const r = await runWorkload({ port: h.port, pid: h.pid, jobs: o.jobs, concurrency: [10, 50], delayed: o.delayed,
          delayMs: [500, 2000], steady: o.steady, steadyRate: o.steadyRate, timeoutS: o.timeoutS, lockMs: o.lockMs });
        results.get(s)!.push(r);
        console.error(`run ${run} ${s} (load ${load}): add ${fmt(o.jobs / r.addSeconds)} jobs/s, process ${fmt(o.jobs / r.processSeconds)} jobs/s,`
          + ` events ${r.eventsReceived}, stalled ${r.stalled}, latency p50/p99 ${r.steadyLatency.p50}/${r.steadyLatency.p99} ms,`
          + ` lateness p50/p99/max ${r.lateness.p50}/${r.lateness.p99}/${r.lateness.max} ms, CPU µs/job server ${fmt(r.cpuServerUsPerJob)} postgres ${fmt(r.cpuPostgresUsPerJob)}`
          + (r.errors.length ? `\n  ERRORS: ${r.errors.join('; ')}` : ''));
        console.error(`  scripts: ${r.scripts.slice(0, 8).map((c) => `${c.name} ${c.calls}× ${c.meanMs.toFixed(1)} ms`).join(', ')}`);
        console.error(`  commandstats: ${r.commandstats.join(', ')}`);
      }
    }
  } finally {
    for (const h of servers.values()) await h.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`| server | add jobs/s | process jobs/s | latency p50 / p99 ms | delayed lateness p50 / p99 / max ms | server CPU µs/job | Postgres CPU µs/job | exactly once, all events |`);
  console.log('|---|---:|---:|---:|---:|---:|---:|---|');
  for (const s of o.servers) console.log(row(s, results.get(s)!, o.jobs));
  if (o.json) writeFileSync(o.json, JSON.stringify(Object.fromEntries(results), null, 2));
  if ([...results.values()].some((r) => r.some((x) => x.errors.length))) process.exitCode = 1;
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
