// Inline SVG charts for the self-contained HTML reports (no scripts, no CDN): a line chart for
// percentile curves and throughput over time, a grouped bar chart for the matrix.

export interface Series {
  name: string;
  points: Array<[number, number]>;
}

export interface Tick {
  at: number;
  label: string;
}

export interface LineChartSpec {
  title: string;
  xLabel: string;
  yLabel: string;
  series: Series[];
  xTicks?: Tick[];
  width?: number;
  height?: number;
}

export const kPalette = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'];

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** 1, 2, 5 × 10^k steps giving about `count` ticks over [0, max]. */
export function niceTicks(max: number, count = 5): number[] {
  if (!(max > 0)) return [0, 1];
  const raw = max / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const out: number[] = [];
  for (let v = 0; v <= max + step * 0.999; v += step) out.push(Number(v.toPrecision(12)));
  return out;
}

function fmt(v: number): string {
  if (v === 0) return '0';
  if (Math.abs(v) >= 1000) return Math.round(v).toLocaleString('en-US');
  return String(Number(v.toPrecision(3)));
}

const round1 = (v: number): number => Math.round(v * 10) / 10;

const M = { left: 70, right: 20, top: 36, bottom: 56 };

export function lineChart(spec: LineChartSpec): string {
  const W = spec.width ?? 760;
  const H = spec.height ?? 340;
  const pts = spec.series.flatMap((s) => s.points);
  const xMin = spec.xTicks?.[0]?.at ?? Math.min(0, ...pts.map((p) => p[0]));
  const xMax = Math.max(spec.xTicks?.[spec.xTicks.length - 1]?.at ?? 0, ...pts.map((p) => p[0]), xMin + 1e-9);
  const yTicks = niceTicks(Math.max(...pts.map((p) => p[1]), 0));
  const yMax = yTicks[yTicks.length - 1] || 1;
  const x = (v: number): number => round1(M.left + ((v - xMin) / (xMax - xMin)) * (W - M.left - M.right));
  const y = (v: number): number => round1(H - M.bottom - (v / yMax) * (H - M.top - M.bottom));
  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" font-family="sans-serif" font-size="11">`);
  parts.push(`<text x="${W / 2}" y="18" text-anchor="middle" font-size="14" font-weight="bold">${escapeHtml(spec.title)}</text>`);
  for (const t of yTicks) {
    parts.push(`<line x1="${M.left}" x2="${W - M.right}" y1="${y(t)}" y2="${y(t)}" stroke="#e5e5e5"/>`);
    parts.push(`<text x="${M.left - 6}" y="${y(t) + 4}" text-anchor="end">${fmt(t)}</text>`);
  }
  const xTicks = spec.xTicks ?? niceTicks(xMax).map((at) => ({ at, label: fmt(at) }));
  for (const t of xTicks) {
    parts.push(`<line x1="${x(t.at)}" x2="${x(t.at)}" y1="${M.top}" y2="${H - M.bottom}" stroke="#f0f0f0"/>`);
    parts.push(`<text x="${x(t.at)}" y="${H - M.bottom + 16}" text-anchor="middle">${escapeHtml(t.label)}</text>`);
  }
  parts.push(`<line x1="${M.left}" x2="${W - M.right}" y1="${H - M.bottom}" y2="${H - M.bottom}" stroke="#333"/>`);
  parts.push(`<line x1="${M.left}" x2="${M.left}" y1="${M.top}" y2="${H - M.bottom}" stroke="#333"/>`);
  parts.push(`<text x="${(M.left + W - M.right) / 2}" y="${H - 22}" text-anchor="middle">${escapeHtml(spec.xLabel)}</text>`);
  parts.push(`<text transform="translate(16 ${(M.top + H - M.bottom) / 2}) rotate(-90)" text-anchor="middle">${escapeHtml(spec.yLabel)}</text>`);
  spec.series.forEach((s, i) => {
    if (s.points.length === 0) return;
    const d = s.points.map((p, k) => `${k === 0 ? 'M' : 'L'}${x(p[0]).toFixed(1)},${y(p[1]).toFixed(1)}`).join('');
    parts.push(`<path d="${d}" fill="none" stroke="${kPalette[i % kPalette.length]}" stroke-width="1.8"/>`);
  });
  parts.push(legend(spec.series.map((s) => s.name), W, H));
  parts.push('</svg>');
  return parts.join('\n');
}

function legend(names: string[], W: number, H: number): string {
  const out: string[] = [];
  let lx = M.left;
  names.forEach((name, i) => {
    out.push(`<rect x="${lx}" y="${H - 12}" width="10" height="10" fill="${kPalette[i % kPalette.length]}"/>`);
    out.push(`<text x="${lx + 14}" y="${H - 3}">${escapeHtml(name)}</text>`);
    lx += 24 + name.length * 6.5;
    if (lx > W - 80) lx = M.left;
  });
  return out.join('\n');
}

export interface BarGroup {
  label: string;
  /** One value per series name; NaN = no bar (e.g. failed). */
  values: number[];
}

export function barChart(title: string, yLabel: string, seriesNames: string[], groups: BarGroup[], width = 900, height = 380): string {
  const W = width;
  const H = height;
  const all = groups.flatMap((g) => g.values).filter((v) => Number.isFinite(v));
  const yTicks = niceTicks(Math.max(0, ...all));
  const yMax = yTicks[yTicks.length - 1] || 1;
  const y = (v: number): number => round1(H - M.bottom - (v / yMax) * (H - M.top - M.bottom));
  const groupW = (W - M.left - M.right) / Math.max(1, groups.length);
  const barW = (groupW * 0.8) / Math.max(1, seriesNames.length);
  const parts = [`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" font-family="sans-serif" font-size="11">`];
  parts.push(`<text x="${W / 2}" y="18" text-anchor="middle" font-size="14" font-weight="bold">${escapeHtml(title)}</text>`);
  for (const t of yTicks) {
    parts.push(`<line x1="${M.left}" x2="${W - M.right}" y1="${y(t)}" y2="${y(t)}" stroke="#e5e5e5"/>`);
    parts.push(`<text x="${M.left - 6}" y="${y(t) + 4}" text-anchor="end">${fmt(t)}</text>`);
  }
  groups.forEach((g, gi) => {
    const gx = M.left + gi * groupW + groupW * 0.1;
    g.values.forEach((v, si) => {
      const bx = gx + si * barW;
      if (!Number.isFinite(v)) {
        parts.push(`<text x="${bx + barW / 2}" y="${H - M.bottom - 4}" text-anchor="middle" fill="#d62728">×</text>`);
        return;
      }
      parts.push(`<rect x="${bx.toFixed(1)}" y="${y(v).toFixed(1)}" width="${(barW - 1).toFixed(1)}" height="${(H - M.bottom - y(v)).toFixed(1)}" fill="${kPalette[si % kPalette.length]}"><title>${escapeHtml(`${g.label} ${seriesNames[si]}: ${fmt(v)}`)}</title></rect>`);
    });
    parts.push(`<text x="${gx + (barW * seriesNames.length) / 2}" y="${H - M.bottom + 16}" text-anchor="middle">${escapeHtml(g.label)}</text>`);
  });
  parts.push(`<line x1="${M.left}" x2="${W - M.right}" y1="${H - M.bottom}" y2="${H - M.bottom}" stroke="#333"/>`);
  parts.push(`<text transform="translate(16 ${(M.top + H - M.bottom) / 2}) rotate(-90)" text-anchor="middle">${escapeHtml(yLabel)}</text>`);
  parts.push(legend(seriesNames, W, H));
  parts.push('</svg>');
  return parts.join('\n');
}
