// `node dist/harness/compare.js [--repetitions N] [--only-flags "…"]`: is the harness ever the
// bottleneck? Starts one redis-server (no persistence) and runs redis-benchmark (or
// valkey-benchmark) and the harness with the same flags against it, interleaved, N times each,
// and prints the median requests/s of both as a Markdown table (used in docs/harness.md).

import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { median } from './matrix-report';
import { machine } from './output';
import { findOnPath, startPeer, stopServersOnSignal } from './servers';

const run = promisify(execFile);

export const kFlagSets = [
  '-t set,get -n 200000',
  '-t set,get -n 50000 -c 1',
  '-t set,get -n 1000000 -P 16 -d 1024 -r 100000',
  '-t get -n 2000000 -P 64 -r 100000',
  '-t lrange_100 -n 100000',
];

/** rps per test title from `--csv` output. */
function parseCsv(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n').slice(1)) {
    const m = /^"([^"]+)","([\d.]+)"/.exec(line);
    if (m) out.set(m[1], Number(m[2]));
  }
  return out;
}

async function main(argv: string[]): Promise<number> {
  const bench = findOnPath('valkey-benchmark', 'redis-benchmark');
  if (bench === null) {
    process.stderr.write('compare: neither valkey-benchmark nor redis-benchmark is on PATH\n');
    return 1;
  }
  const repIdx = argv.indexOf('--repetitions');
  const reps = repIdx >= 0 ? Number(argv[repIdx + 1]) : 5;
  const onlyIdx = argv.indexOf('--only-flags');
  const flagSets = onlyIdx >= 0 ? [argv[onlyIdx + 1]] : kFlagSets;
  const dir = mkdtempSync(join(tmpdir(), 'harness-compare-'));
  const server = await startPeer('none', dir);
  const benchName = bench.split('/').pop() ?? 'redis-benchmark';
  const rows: string[] = [];
  try {
    for (const flags of flagSets) {
      const args = [...flags.split(' '), '-p', String(server.port), '--csv'];
      const theirs = new Map<string, number[]>();
      const ours = new Map<string, number[]>();
      const add = (into: Map<string, number[]>, got: Map<string, number>): void => {
        for (const [t, v] of got) into.set(t, [...(into.get(t) ?? []), v]);
      };
      for (let i = 0; i < reps; i++) {
        // Alternate which tool goes first so a slow phase of the machine hits both alike.
        const order = i % 2 === 0 ? ['theirs', 'ours'] : ['ours', 'theirs'];
        for (const who of order) {
          if (who === 'theirs') add(theirs, parseCsv((await run(bench, args, { maxBuffer: 1 << 24 })).stdout));
          else add(ours, parseCsv((await run(process.execPath, [join(__dirname, 'cli.js'), ...args], { maxBuffer: 1 << 24 })).stdout));
        }
        process.stderr.write(`  ${flags}: repetition ${i + 1}/${reps}\n`);
      }
      for (const [title, values] of theirs) {
        const a = median(ours.get(title) ?? []);
        const b = median(values);
        rows.push(`| \`${flags}\` | ${title} | ${Math.round(a).toLocaleString('en-US')} | ${Math.round(b).toLocaleString('en-US')} | ${(a / b).toFixed(2)}× |`);
      }
    }
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const m = machine();
  process.stdout.write([
    `Machine: ${m.cpus} × ${m.cpuModel}, ${m.kernel}, Node ${m.node}; server: ${server.command.join(' ')}`,
    `Median of ${reps} interleaved runs each, requests/s as each tool reports it (--csv).`,
    '',
    `| Flags | Test | harness | ${benchName} | harness / ${benchName} |`,
    '|---|---|---:|---:|---:|',
    ...rows,
    '',
  ].join('\n'));
  return 0;
}

if (require.main === module) {
  stopServersOnSignal();
  main(process.argv.slice(2)).then((code) => process.exit(code), (err: Error) => {
    process.stderr.write(`${err.stack ?? err.message}\n`);
    process.exit(1);
  });
}
