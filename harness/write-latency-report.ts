// The tables of bench:write-latency, in Markdown so they paste into docs/BENCHMARKS.md: one row
// per run (server × durability: asked rate, p50, p95, p99, max, achieved rate, errors, and the
// machine's load average when the run ended, since the machine is shared), and with --slo the
// highest rate each server held.

import type { LatencySummary } from './report';

export interface RunRow {
  server: string;
  durability: string;
  /** Requests/s asked for. */
  rate: number;
  /** null when the server did not start. */
  latency: LatencySummary | null;
  /** Requests/s achieved: replies ÷ (last reply − start of recording). */
  achieved: number;
  /** Error replies plus requests unanswered after the run. */
  errors: number;
  /** os.loadavg() when the run ended: 1, 5, 15 minutes. */
  load: number[];
  failure: string | null;
  /** With --slo: whether the step held the objective and the rate. */
  pass?: boolean;
}

export interface SloRow {
  server: string;
  durability: string;
  /** 0 when no rate tried passed. */
  best: number;
  firstFail: number;
  steps: number;
  /** The passing step at `best`, for its percentile. */
  at: RunRow | null;
  failure: string | null;
}

const rate = (x: number): string => (Number.isFinite(x) ? Math.round(x).toLocaleString('en-US') : '—');
const ms = (x: number | undefined): string => (x === undefined ? '—' : x.toFixed(3));
const load = (l: number[]): string => l.map((x) => x.toFixed(2)).join(' ');
const md = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function runTable(rows: readonly RunRow[], withVerdict: boolean): string[] {
  const head = ['server', 'durability', 'rate/s', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms', 'achieved/s', 'errors', 'load avg 1/5/15 min'];
  if (withVerdict) head.push('SLO');
  const out = [`| ${head.join(' | ')} |`, `|${head.map((_, i) => (i < 2 || i >= 9 ? '---' : '---:')).join('|')}|`];
  for (const r of rows) {
    const l = r.latency;
    const cells = [r.server, r.durability, rate(r.rate), ms(l?.p50), ms(l?.p95), ms(l?.p99), ms(l?.max), rate(r.achieved), String(r.errors), load(r.load)];
    if (withVerdict) cells.push(r.pass === true ? 'held' : r.failure !== null ? `missed: ${md(r.failure)}` : 'missed');
    out.push(`| ${cells.join(' | ')} |`);
  }
  return out;
}

export function sloTable(rows: readonly SloRow[], objective: string): string[] {
  const head = ['server', 'durability', `highest rate/s holding ${objective}`, 'p50 / p99 ms there', 'lowest failing rate/s', 'steps', 'load avg 1/5/15 min there'];
  const out = [`| ${head.join(' | ')} |`, `|---|---|---:|---:|---:|---:|---|`];
  for (const r of rows) {
    if (r.failure !== null) {
      out.push(`| ${r.server} | ${r.durability} | ${md(r.failure)} | — | — | ${r.steps} | — |`);
      continue;
    }
    const at = r.at === null ? '—' : `${ms(r.at.latency?.p50)} / ${ms(r.at.latency?.p99)}`;
    const best = r.best > 0 ? rate(r.best) : 'none of the rates tried';
    out.push(`| ${r.server} | ${r.durability} | ${best} | ${at} | ${rate(r.firstFail)} | ${r.steps} | ${r.at === null ? '—' : load(r.at.load)} |`);
  }
  return out;
}
