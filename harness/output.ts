// Result files: --json (numbers + compressed histograms), --html (self-contained report with the
// percentile curve and throughput over time), --hdr (HdrHistogram log, one interval per test).

import { writeFileSync } from 'node:fs';
import { cpus, release, totalmem, type as osType } from 'node:os';
import * as hdr from 'hdr-histogram-js';
import type { Histogram } from 'hdr-histogram-js';
import type { HarnessOptions } from './options';
import { sloVerdicts, summarize, verdictLine } from './report';
import type { TestResult } from './run';
import { escapeHtml, lineChart, type Series } from './svg';

export interface RunInfo {
  argv: string[];
  target: string;
  startedAt: string;
  autostarted: string | null;
}

export function machine(): { cpus: number; cpuModel: string; memoryGiB: number; kernel: string; node: string } {
  const c = cpus();
  return {
    cpus: c.length,
    cpuModel: c[0]?.model ?? 'unknown',
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    kernel: `${osType()} ${release()}`,
    node: process.version,
  };
}

export function resultJson(r: TestResult, o: HarnessOptions): object {
  const s = summarize(r.histogram);
  return {
    test: r.title,
    name: r.name,
    requests: r.requests,
    errors: r.errors,
    firstError: r.firstError,
    unanswered: r.unanswered,
    elapsedSec: r.elapsedSec,
    rps: r.rps,
    latencyMs: s,
    slo: sloVerdicts(o, r).map((v) => ({ objective: v.objective.text, pass: v.pass, actual: v.actual })),
    failure: r.failure,
    verdict: verdictLine(r, sloVerdicts(o, r)),
    threads: r.threads,
    clients: r.clients,
    startedAt: r.startedAt,
    series: r.series,
    histogram: hdr.encodeIntoCompressedBase64(r.histogram),
  };
}

export function writeJson(file: string, info: RunInfo, o: HarnessOptions, results: TestResult[]): void {
  const { slo, ...rest } = o;
  const doc = {
    tool: 'postresp-harness',
    ...info,
    machine: machine(),
    options: { ...rest, password: rest.password === null ? null : '***', slo: slo.map((x) => x.text) },
    loop: o.rps > 0 ? 'open' : 'closed',
    tests: results.map((r) => resultJson(r, o)),
  };
  writeFileSync(file, `${JSON.stringify(doc, null, 2)}\n`);
}

/** Points of the percentile curve: x = -log10(1 - p) so 90, 99, 99.9 … are evenly spaced. */
export function percentileCurve(h: Histogram, maxNines = 6): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  const it = (h as unknown as { percentileIterator?: { reset(t: number): void; hasNext(): boolean; next(): { valueIteratedTo: number; percentileLevelIteratedTo: number } } }).percentileIterator;
  if (it === undefined || h.totalCount === 0) return out;
  it.reset(5);
  while (it.hasNext()) {
    const v = it.next();
    const p = v.percentileLevelIteratedTo;
    const x = p >= 100 ? maxNines : Math.min(maxNines, -Math.log10(1 - p / 100));
    out.push([x, v.valueIteratedTo / 1000]);
  }
  return out;
}

const kNinesTicks = ['0%', '90%', '99%', '99.9%', '99.99%', '99.999%', '99.9999%'].map((label, at) => ({ at, label }));

export function writeHtml(file: string, info: RunInfo, o: HarnessOptions, results: TestResult[]): void {
  const m = machine();
  const rows = results.map((r) => {
    const s = summarize(r.histogram);
    const v = verdictLine(r, sloVerdicts(o, r)).replace(/^Verdict: /, '');
    const cells = [r.title, r.rps.toFixed(2), s.avg.toFixed(3), s.min.toFixed(3), s.p50.toFixed(3), s.p95.toFixed(3), s.p99.toFixed(3), s.p999.toFixed(3), s.max.toFixed(3), String(r.errors), v];
    return `<tr>${cells.map((c) => `<td>${escapeHtml(c)}</td>`).join('')}</tr>`;
  });
  const curve: Series[] = results.map((r) => ({ name: r.title, points: percentileCurve(r.histogram) }));
  const tput: Series[] = results.map((r) => ({ name: r.title, points: r.series.map((p) => [p.t, p.rps] as [number, number]) }));
  const loop = o.rps > 0 ? `open loop at ${o.rps} requests/s, latency from intended start (coordinated omission corrected)` : 'closed loop';
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>PostRESP harness report</title>
<style>
body{font-family:sans-serif;margin:24px;color:#222;max-width:1000px}
table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}
td:first-child,th:first-child,td:last-child{text-align:left}code{background:#f4f4f4;padding:1px 4px}
</style></head><body>
<h1>PostRESP harness report</h1>
<p><code>${escapeHtml(['npm run harness --', ...info.argv].join(' '))}</code></p>
<p>Target ${escapeHtml(info.target)}${info.autostarted ? ` (started by the harness: ${escapeHtml(info.autostarted)})` : ''}; ${escapeHtml(loop)};
${o.clients} clients, pipeline ${o.pipeline}, ${o.dataSizeRange ? `${o.dataSizeRange[0]}-${o.dataSizeRange[1]}` : o.dataSize} bytes payload.
Started ${escapeHtml(info.startedAt)} on ${m.cpus} × ${escapeHtml(m.cpuModel)}, ${m.memoryGiB} GiB, ${escapeHtml(m.kernel)}, Node ${escapeHtml(m.node)}.</p>
<table><tr><th>test</th><th>requests/s</th><th>avg ms</th><th>min</th><th>p50</th><th>p95</th><th>p99</th><th>p99.9</th><th>max</th><th>errors</th><th>verdict</th></tr>
${rows.join('\n')}
</table>
<h2>Latency by percentile</h2>
${lineChart({ title: 'Latency by percentile', xLabel: 'percentile', yLabel: 'latency (ms)', series: curve, xTicks: kNinesTicks })}
<h2>Throughput over time</h2>
${lineChart({ title: 'Throughput (250 ms samples)', xLabel: 'seconds since recording started', yLabel: 'requests per second', series: tput })}
</body></html>
`;
  writeFileSync(file, html);
}

/** HdrHistogram log (readable by HistogramLogReader / HdrHistogram's plotter), tagged per test. */
export function writeHdrLog(file: string, results: TestResult[]): void {
  const lines: string[] = [];
  const writer = new hdr.HistogramLogWriter((s) => lines.push(s));
  const start = results.length > 0 ? Date.parse(results[0].startedAt) : Date.now();
  writer.outputLogFormatVersion();
  writer.outputComment('PostRESP harness: latency in microseconds, one interval histogram per test (tag = test)');
  writer.outputStartTime(start);
  writer.baseTime = start;
  writer.outputLegend();
  for (const r of results) {
    const t0 = Date.parse(r.startedAt);
    r.histogram.startTimeStampMsec = t0;
    r.histogram.endTimeStampMsec = t0 + r.elapsedSec * 1000;
    r.histogram.tag = r.title.replace(/[\s,]/g, '_');
    writer.outputIntervalHistogram(r.histogram);
  }
  writeFileSync(file, lines.join(''));
}
