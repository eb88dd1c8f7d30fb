/** Sums of the workers' statistics, shared by INFO, LATENCY HISTOGRAM and /metrics. */
import type { CommandStats, LaneStats, WorkerStats } from '../messages';
import { mergeInto, newHistogram } from './log2-histogram';

export function mergeCommands(workers: WorkerStats[]): Map<string, CommandStats> {
  const all = new Map<string, CommandStats>();
  for (const w of workers) {
    for (const [name, c] of Object.entries(w.commands)) {
      let t = all.get(name);
      if (t === undefined) all.set(name, (t = { calls: 0, usec: 0, rejected: 0, failed: 0, hist: newHistogram() }));
      t.calls += c.calls;
      t.usec += c.usec;
      t.rejected += c.rejected;
      t.failed += c.failed;
      mergeInto(t.hist, c.hist);
    }
  }
  return new Map([...all.entries()].sort(([a], [b]) => a.localeCompare(b)));
}

export function mergeErrors(workers: WorkerStats[]): Map<string, number> {
  const all = new Map<string, number>();
  for (const w of workers) for (const [code, n] of Object.entries(w.errorCodes)) all.set(code, (all.get(code) ?? 0) + n);
  return all;
}

/** Every lane of every worker, labelled worker/lane. */
export function allLanes(workers: WorkerStats[]): { worker: number; lane: number; stats: LaneStats }[] {
  const out: { worker: number; lane: number; stats: LaneStats }[] = [];
  workers.forEach((w, wi) => w.lanes.forEach((l, li) => out.push({ worker: wi, lane: li, stats: l })));
  return out;
}
