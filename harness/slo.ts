// Service-level objectives: "p50<1ms,p99<5ms,p999<20ms,rps>50000". A latency objective names a
// percentile (p50, p99, p999 = 99.9, p9999 = 99.99, p99.9), avg or max; units us, ms, s.

export interface SloObjective {
  /** As written by the user, for the report. */
  text: string;
  metric: 'percentile' | 'avg' | 'max' | 'rps';
  /** For metric 'percentile': 0..100. */
  percentile: number;
  op: '<' | '<=' | '>' | '>=';
  /** Latency bound in microseconds, or requests per second for 'rps'. */
  bound: number;
}

export interface SloVerdict {
  objective: SloObjective;
  /** Measured value: microseconds, or requests per second. */
  actual: number;
  pass: boolean;
}

export interface SloInput {
  /** Microseconds. */
  valueAtPercentile(p: number): number;
  avgUs: number;
  maxUs: number;
  rps: number;
}

class SloError extends Error {
  readonly code = 'POSTRESP_ERR_HARNESS_OPTION';
}

const kUnits: Record<string, number> = { us: 1, µs: 1, ms: 1000, s: 1_000_000 };

/** "99" → 99, "999" → 99.9, "9999" → 99.99, "99.9" → 99.9, "50" → 50. */
function percentileOf(digits: string): number {
  if (digits.includes('.')) return Number(digits);
  if (digits.length <= 2) return Number(digits);
  return Number(`${digits.slice(0, 2)}.${digits.slice(2)}`);
}

export function parseSlo(raw: string): SloObjective[] {
  const out: SloObjective[] = [];
  for (const part of raw.split(',').map((s) => s.trim()).filter((s) => s !== '')) {
    const m = /^(p[0-9.]+|avg|mean|max|rps)\s*(<=|>=|<|>)\s*([0-9]*\.?[0-9]+)\s*(us|µs|ms|s)?$/i.exec(part);
    if (!m) throw new SloError(`--slo: cannot parse "${part}" (expected e.g. p99<5ms, avg<1ms, rps>50000)`);
    const name = m[1].toLowerCase();
    const op = m[2] as SloObjective['op'];
    const value = Number(m[3]);
    const unit = m[4]?.toLowerCase();
    if (name === 'rps') {
      if (unit !== undefined) throw new SloError(`--slo: "${part}": rps takes no unit`);
      out.push({ text: part, metric: 'rps', percentile: 0, op, bound: value });
      continue;
    }
    if (unit === undefined) throw new SloError(`--slo: "${part}" needs a unit (us, ms or s)`);
    const bound = value * kUnits[unit];
    if (name === 'avg' || name === 'mean') {
      out.push({ text: part, metric: 'avg', percentile: 0, op, bound });
    } else if (name === 'max') {
      out.push({ text: part, metric: 'max', percentile: 100, op, bound });
    } else {
      const p = percentileOf(name.slice(1));
      if (!Number.isFinite(p) || p <= 0 || p > 100) throw new SloError(`--slo: "${part}": percentile must be in (0, 100]`);
      out.push({ text: part, metric: 'percentile', percentile: p, op, bound });
    }
  }
  return out;
}

function compare(actual: number, op: SloObjective['op'], bound: number): boolean {
  switch (op) {
    case '<': return actual < bound;
    case '<=': return actual <= bound;
    case '>': return actual > bound;
    case '>=': return actual >= bound;
  }
}

export function evaluateSlo(objectives: readonly SloObjective[], input: SloInput): SloVerdict[] {
  return objectives.map((objective) => {
    let actual: number;
    switch (objective.metric) {
      case 'percentile': actual = input.valueAtPercentile(objective.percentile); break;
      case 'avg': actual = input.avgUs; break;
      case 'max': actual = input.maxUs; break;
      case 'rps': actual = input.rps; break;
    }
    return { objective, actual, pass: compare(actual, objective.op, objective.bound) };
  });
}

/** "SLO p99<5ms: PASS (p99 = 1.234 ms)" */
export function formatVerdict(v: SloVerdict): string {
  const o = v.objective;
  const label = o.metric === 'percentile' ? `p${o.percentile}` : o.metric;
  const actual = o.metric === 'rps' ? `${v.actual.toFixed(2)} requests per second` : `${(v.actual / 1000).toFixed(3)} msec`;
  return `SLO ${o.text}: ${v.pass ? 'PASS' : 'FAIL'} (${label} = ${actual})`;
}
