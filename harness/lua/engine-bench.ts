/**
 * Lua engine cost (docs/BENCHMARKS.md, "Lua scripting"): a script with 0, 1 and 10 redis.call
 * round trips through the engine, with a host that answers at once (so the figure is the
 * engine's own cost: thread hop, threadsafe-function call, condition variable, conversions).
 * Reports wall time and process CPU per script, sequential and with 16 scripts in flight.
 *   node dist/harness/lua/engine-bench.js [iterations]
 */
import { scriptEngine, ScriptHost } from '../../core/engine/scripting/engine';

const kOk = Buffer.from('+OK\r\n');
const host: ScriptHost = { call: () => kOk };
const scripts: [string, string][] = [
  ['0 calls', 'return 1'],
  ['1 call', "return redis.call('set', KEYS[1], ARGV[1])"],
  ['10 calls', "for i = 1, 10 do redis.call('set', KEYS[1], ARGV[1]) end return 1"],
];

async function measure(body: string, n: number, inflight: number): Promise<{ us: number; cpu: number }> {
  const engine = scriptEngine();
  const opts = { body, keys: ['k'], args: ['v'] };
  for (let i = 0; i < 200; i++) await engine.eval(opts, host);
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  let next = 0;
  await Promise.all(Array.from({ length: inflight }, async () => {
    while (next++ < n) await engine.eval(opts, host);
  }));
  const wall = Number(process.hrtime.bigint() - t0) / 1e3;
  const c = process.cpuUsage(c0);
  return { us: wall / n, cpu: (c.user + c.system) / n };
}

async function main(): Promise<void> {
  const n = Number(process.argv[2] ?? 20000);
  console.log(`engine: ${n} scripts each, host answers at once; µs per script (wall) / µs CPU per script (whole process)`);
  for (const [label, body] of scripts) {
    const seq = await measure(body, n, 1);
    const par = await measure(body, n, 16);
    console.log(`${label.padEnd(9)} sequential ${seq.us.toFixed(1)} / ${seq.cpu.toFixed(1)}   16 in flight ${par.us.toFixed(1)} / ${par.cpu.toFixed(1)}`);
  }
  process.exit(0);
}

void main();
