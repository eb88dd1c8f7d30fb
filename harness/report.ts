// Text output in valkey-benchmark's formats (showReport / showThroughput): the summary block,
// the -q line, the CSV row, the progress line; plus our p99.9, error count and verdict.

import type { Histogram } from 'hdr-histogram-js';
import type { HarnessOptions } from './options';
import type { Progress, TestResult } from './run';
import { evaluateSlo, formatVerdict, type SloVerdict } from './slo';

export const kCsvHeader = '"test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"';

export interface LatencySummary {
  avg: number;
  min: number;
  p50: number;
  p95: number;
  p99: number;
  p999: number;
  max: number;
}

export interface ServerConfig {
  save: string;
  appendonly: string;
}

/** Milliseconds, as valkey computes them from its µs histogram. */
export function summarize(h: Histogram): LatencySummary {
  if (h.totalCount === 0) return { avg: 0, min: 0, p50: 0, p95: 0, p99: 0, p999: 0, max: 0 };
  return {
    avg: h.mean / 1000,
    min: h.minNonZeroValue / 1000,
    p50: h.getValueAtPercentile(50) / 1000,
    p95: h.getValueAtPercentile(95) / 1000,
    p99: h.getValueAtPercentile(99) / 1000,
    p999: h.getValueAtPercentile(99.9) / 1000,
    max: h.maxValue / 1000,
  };
}

export function sloVerdicts(o: HarnessOptions, r: TestResult): SloVerdict[] {
  const s = summarize(r.histogram);
  return evaluateSlo(o.slo, {
    valueAtPercentile: (p) => (p >= 100 ? r.histogram.maxValue : r.histogram.getValueAtPercentile(p)),
    avgUs: s.avg * 1000,
    maxUs: s.max * 1000,
    rps: r.rps,
  });
}

/** valkey prints C floats: round through float32 so the last digit matches. */
function f(x: number, digits: number): string {
  return Math.fround(x).toFixed(digits);
}

const pad9 = (s: string): string => s.padStart(9);

/** `SET: 123456.79 requests per second, p50=0.231 msec` */
export function quietLine(r: TestResult): string {
  if (r.failure !== null) return `${r.title}: FAILED, ${r.failure}`;
  return `${r.title}: ${f(r.rps, 2)} requests per second, p50=${f(summarize(r.histogram).p50, 3)} msec`;
}

export function csvLine(r: TestResult): string {
  const s = summarize(r.histogram);
  const cells = [r.title, f(r.rps, 2), f(s.avg, 3), f(s.min, 3), f(s.p50, 3), f(s.p95, 3), f(s.p99, 3), f(s.max, 3)];
  return cells.map((c) => `"${c.replace(/"/g, '""')}"`).join(',');
}

/** `SET: rps=50107.6 (overall: 49908.7) avg_msec=0.520 (overall: 0.520) 2000 requests` */
export function progressLine(p: Progress, o: HarnessOptions): string {
  let line = p.warmingUp ? 'Warming up ' : '';
  line += `${p.title}: rps=${f(p.instRps, 1)} (overall: ${f(p.overallRps, 1)}) avg_msec=${f(p.instAvgMs, 3)} (overall: ${f(p.overallAvgMs, 3)})`;
  line += p.warmingUp || o.duration > 0 ? ` ${f(p.elapsedSec, 1)} seconds` : ` ${p.recorded} requests`;
  if (p.errors > 0) line += ` errors=${p.errors}`;
  return line;
}

/** valkey's "Latency by percentile distribution" (hdr_iter_percentile_init, 1 tick per half). */
function percentileBlock(h: Histogram): string[] {
  const out: string[] = [];
  const total = h.totalCount;
  if (total === 0) return out;
  const js = h as unknown as { percentileIterator?: { reset(t: number): void; hasNext(): boolean; next(): { valueIteratedTo: number; percentileLevelIteratedTo: number; totalCountToThisValue: number } } };
  const it = js.percentileIterator;
  if (it === undefined) return out;
  it.reset(1);
  let previous = -1;
  while (it.hasNext()) {
    const v = it.next();
    const cumulative = v.totalCountToThisValue;
    if (previous !== cumulative || cumulative === total) {
      out.push(`${v.percentileLevelIteratedTo.toFixed(3)}% <= ${(v.valueIteratedTo / 1000).toFixed(3)} milliseconds (cumulative count ${cumulative})`);
    }
    previous = cumulative;
  }
  return out;
}

/** valkey's "Cumulative distribution of latencies": 0.1 ms steps up to 2 ms, then 1 ms steps. */
function cumulativeBlock(h: Histogram): string[] {
  const out: string[] = [];
  const total = h.totalCount;
  if (total === 0) return out;
  const js = h as unknown as { recordedValuesIterator?: { reset(): void; hasNext(): boolean; next(): { valueIteratedTo: number; countAtValueIteratedTo: number } } };
  const it = js.recordedValuesIterator;
  if (it === undefined) return out;
  it.reset();
  const values: Array<[number, number]> = [];
  while (it.hasNext()) {
    const v = it.next();
    values.push([v.valueIteratedTo, v.countAtValueIteratedTo]);
  }
  let i = 0;
  let cumulative = 0;
  let previous = -1;
  for (let bound = 100; cumulative < total; bound += bound >= 2000 ? 1000 : 100) {
    while (i < values.length && values[i][0] <= bound) cumulative += values[i++][1];
    if (previous !== cumulative || cumulative === total) {
      out.push(`${((cumulative / total) * 100).toFixed(3)}% <= ${(bound / 1000).toFixed(3)} milliseconds (cumulative count ${cumulative})`);
    }
    previous = cumulative;
  }
  return out;
}

/** One-line judgement: errors first, then SLOs. */
export function verdictLine(r: TestResult, slo: readonly SloVerdict[]): string {
  if (r.failure !== null) return `Verdict: FAILED: ${r.failure}`;
  const missed = slo.filter((v) => !v.pass);
  if (missed.length > 0) return `Verdict: FAILED: SLO missed: ${missed.map((v) => v.objective.text).join(', ')}`;
  const sloText = slo.length > 0 ? `, all ${slo.length} SLO objectives met` : '';
  return `Verdict: OK: ${r.requests} replies, no errors${sloText}`;
}

export interface ReportContext {
  options: HarnessOptions;
  server: ServerConfig | null;
}

export function fullReport(r: TestResult, ctx: ReportContext): string {
  const o = ctx.options;
  const s = summarize(r.histogram);
  const slo = sloVerdicts(o, r);
  const payload = o.dataSizeRange !== null ? `${o.dataSizeRange[0]}-${o.dataSizeRange[1]}` : String(o.dataSize);
  const lines = [
    `====== ${r.title} ======`,
    `  ${r.requests} requests completed in ${f(r.elapsedSec, 2)} seconds`,
    `  ${r.clients} parallel clients`,
    `  ${payload} bytes payload`,
    `  keep alive: ${o.keepalive}`,
  ];
  if (ctx.server !== null) {
    lines.push(`  host configuration "save": ${ctx.server.save}`, `  host configuration "appendonly": ${ctx.server.appendonly}`);
  }
  lines.push(`  multi-thread: ${r.threads > 1 ? 'yes' : 'no'}`);
  if (r.threads > 1) lines.push(`  threads: ${r.threads}`);
  if (o.rps > 0) {
    lines.push(`  open loop: ${o.rps} requests per second scheduled, latency from each request's intended start`);
  }
  lines.push('', 'Latency by percentile distribution:', ...percentileBlock(r.histogram), '');
  lines.push('Cumulative distribution of latencies:', ...cumulativeBlock(r.histogram), '');
  lines.push(
    'Summary:',
    `  throughput summary: ${f(r.rps, 2)} requests per second`,
    '  latency summary (msec):',
    `    ${['avg', 'min', 'p50', 'p95', 'p99', 'max'].map(pad9).join(' ')}`,
    `    ${[s.avg, s.min, s.p50, s.p95, s.p99, s.max].map((x) => pad9(f(x, 3))).join(' ')}`,
    `  p99.9 (msec): ${f(s.p999, 3)}`,
    `  errors: ${r.errors}${r.firstError !== null ? ` (first: ${r.firstError})` : ''}`,
  );
  for (const v of slo) lines.push(`  ${formatVerdict(v)}`);
  lines.push(verdictLine(r, slo));
  return lines.join('\n');
}
