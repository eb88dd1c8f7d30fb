/**
 * `npm run bench:bus -- transport [--seconds 5] [--rates 5000,20000] [--size 1024]`: how one
 * worker thread's messages reach another worker thread of the same process, three ways:
 *
 *   hub        worker ──MessagePort──▶ primary ──MessagePort──▶ worker   (two hops, the primary copies)
 *   broadcast  worker ──BroadcastChannel──▶ every other member (the workers; the primary is not
 *              one: it gets only what other instances want, on the worker's port)
 *   ring       worker writes into a SharedArrayBuffer ring, the reader waits with Atomics.waitAsync
 *
 * Open loop: the publisher sends `rate` messages a second on a 1 ms tick whatever the reader
 * does; latency is hrtime at arrival minus hrtime at send (one process clock), recorded in an HDR
 * histogram; CPU is the whole process's (all threads) user+system time over the run, minus an idle
 * run of the same length, per message. docs/messaging.md has the numbers and the choice.
 */
import { BroadcastChannel, MessageChannel, Worker, isMainThread, parentPort, workerData, type MessagePort } from 'node:worker_threads';
import * as hdr from 'hdr-histogram-js';

type Mode = 'hub' | 'broadcast' | 'ring';
const kModes: Mode[] = ['hub', 'broadcast', 'ring'];
const kRingBytes = 8 << 20;
// ring header (Int32 slots): write offset, read offset (both monotonic, modulo the data size)
const kWrite = 0;
const kRead = 1;
const kHeader = 16;
const kSkip = 0xffffffff;

interface Init { role: 'pub' | 'sub'; mode: Mode; rate: number; size: number; seconds: number; port?: MessagePort; sab?: SharedArrayBuffer; channel: string }

// Node 20 has Atomics.waitAsync (V8 11.3); TypeScript's ES2023 lib does not declare it
const waitAsync = (Atomics as unknown as { waitAsync(a: Int32Array, i: number, v: number): { async: boolean; value: Promise<string> } }).waitAsync;
const now = (): number => Number(process.hrtime.bigint()) / 1000; // µs

function publisher(init: Init): void {
  const payload = Buffer.alloc(init.size, 0x61);
  let write: (stamp: number) => void;
  if (init.mode === 'ring') {
    const i32 = new Int32Array(init.sab!, 0, 4);
    const data = new Uint8Array(init.sab!, kHeader);
    const dv = new DataView(init.sab!, kHeader);
    const cap = data.length;
    write = (stamp) => {
      const w = Atomics.load(i32, kWrite);
      const need = 12 + payload.length;
      if (cap - ((w - Atomics.load(i32, kRead) + cap) % cap) <= need) return; // full: dropped (never here)
      let at = w % cap;
      if (at + need > cap) { // no wrapping records: one that would wrap starts at 0, after a marker
        if (at + 4 <= cap) dv.setUint32(at, kSkip, true);
        at = 0;
      }
      dv.setUint32(at, payload.length, true);
      dv.setFloat64(at + 4, stamp, true);
      data.set(payload, at + 12);
      Atomics.store(i32, kWrite, at + need);
      Atomics.notify(i32, kWrite);
    };
  } else if (init.mode === 'broadcast') {
    const bc = new BroadcastChannel(init.channel);
    write = (stamp) => bc.postMessage({ t: stamp, c: 'channel', m: payload });
  } else {
    write = (stamp) => init.port!.postMessage({ t: stamp, c: 'channel', m: payload });
  }
  const start = now();
  let sent = 0;
  const total = init.rate * init.seconds;
  const tick = setInterval(() => {
    const due = Math.min(total, Math.floor(((now() - start) / 1e6) * init.rate));
    while (sent < due) { write(now()); sent++; }
    if (sent >= total) { clearInterval(tick); parentPort!.postMessage({ done: sent }); }
  }, 1);
}

function subscriber(init: Init): void {
  const h = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: 3 });
  let got = 0;
  const total = init.rate * init.seconds;
  const finish = () => {
    parentPort!.postMessage({ got, p50: h.getValueAtPercentile(50), p99: h.getValueAtPercentile(99), p999: h.getValueAtPercentile(99.9), max: h.maxValue });
  };
  const onMessage = (m: { t: number; m: Uint8Array }) => {
    h.recordValue(Math.max(1, Math.round(now() - m.t)));
    if (++got === total) finish();
  };
  if (init.mode === 'ring') {
    const i32 = new Int32Array(init.sab!, 0, 4);
    const data = new Uint8Array(init.sab!, kHeader);
    const dv = new DataView(init.sab!, kHeader);
    const cap = data.length;
    let r = 0;
    const keepAlive = setInterval(() => undefined, 1000); // a pending waitAsync holds no loop handle
    const drain = () => {
      const w = Atomics.load(i32, kWrite);
      while (r !== w) {
        if (r + 4 > cap || dv.getUint32(r, true) === kSkip) r = 0;
        const at = r;
        const len = dv.getUint32(at, true);
        const t = dv.getFloat64(at + 4, true);
        const copy = Buffer.from(data.subarray(at + 12, at + 12 + len)); // a subscriber keeps its message
        r = at + 12 + len;
        Atomics.store(i32, kRead, r);
        onMessage({ t, m: copy });
      }
      if (got >= total) clearInterval(keepAlive);
      else {
        const wait = waitAsync(i32, kWrite, w);
        if (wait.async) void wait.value.then(drain); else drain();
      }
    };
    drain();
  } else if (init.mode === 'broadcast') {
    const bc = new BroadcastChannel(init.channel);
    bc.onmessage = (e) => onMessage((e as MessageEvent).data);
  } else {
    init.port!.on('message', onMessage);
  }
  parentPort!.postMessage({ ready: true });
}

interface Result { mode: Mode; rate: number; got: number; p50: number; p99: number; p999: number; max: number; cpuUsPerMsg: number }

async function runOne(mode: Mode, rate: number, size: number, seconds: number, idleCpuPerSec: number): Promise<Result> {
  const channel = `bench-${process.pid}-${mode}-${rate}`;
  const sab = mode === 'ring' ? new SharedArrayBuffer(kHeader + kRingBytes) : undefined;
  const toSub = new MessageChannel();
  const toPub = new MessageChannel();
  if (mode === 'hub') {
    // the primary relays: worker → primary → worker, as a hub bus would
    toPub.port2.on('message', (m) => toSub.port1.postMessage(m));
  }
  const base = { mode, rate, size, seconds, sab, channel };
  const sub = new Worker(__filename, { workerData: { ...base, role: 'sub', port: toSub.port2 }, transferList: [toSub.port2] });
  await new Promise<void>((r) => sub.once('message', () => r()));
  const cpu0 = process.cpuUsage();
  const t0 = now();
  const pub = new Worker(__filename, { workerData: { ...base, role: 'pub', port: toPub.port1 }, transferList: [toPub.port1] });
  const res = await new Promise<{ got: number; p50: number; p99: number; p999: number; max: number }>((r) => sub.on('message', r));
  const cpu = process.cpuUsage(cpu0);
  const elapsed = (now() - t0) / 1e6;
  await Promise.all([pub.terminate(), sub.terminate()]);
  toSub.port1.close();
  toPub.port2.close();
  const cpuUs = cpu.user + cpu.system - idleCpuPerSec * elapsed;
  return { mode, rate, ...res, cpuUsPerMsg: cpuUs / res.got };
}

/** CPU per second of a process with two idle worker threads, to subtract. */
async function idleCpu(seconds: number): Promise<number> {
  const ws = [0, 1].map(() => new Worker('setInterval(() => {}, 1000)', { eval: true }));
  await new Promise((r) => setTimeout(r, 200));
  const c0 = process.cpuUsage();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const c = process.cpuUsage(c0);
  await Promise.all(ws.map((w) => w.terminate()));
  return (c.user + c.system) / seconds;
}

export async function transportBench(argv: string[]): Promise<Result[]> {
  const arg = (name: string, dflt: string) => { const i = argv.indexOf(`--${name}`); return i >= 0 ? argv[i + 1]! : dflt; };
  const seconds = Number(arg('seconds', '5'));
  const size = Number(arg('size', '1024'));
  const rates = arg('rates', '5000,20000').split(',').map(Number);
  const modes = arg('modes', kModes.join(',')).split(',') as Mode[];
  const rounds = Number(arg('rounds', '1'));
  const idle = await idleCpu(2);
  const out: Result[] = [];
  console.log(`transport: ${size}-byte messages, ${seconds} s per run, idle process CPU ${(idle / 1e4).toFixed(2)}% of a core`);
  console.log('mode       rate/s   delivered   p50 µs   p99 µs  p99.9 µs   max µs   CPU µs/msg');
  for (let round = 0; round < rounds; round++) {
    for (const rate of rates) {
      for (const mode of modes) {
        const r = await runOne(mode, rate, size, seconds, idle);
        out.push(r);
        console.log(`${mode.padEnd(9)} ${String(rate).padStart(7)} ${String(r.got).padStart(11)} ${String(r.p50).padStart(8)} ${String(r.p99).padStart(8)} ` +
          `${String(r.p999).padStart(9)} ${String(r.max).padStart(8)} ${r.cpuUsPerMsg.toFixed(1).padStart(12)}`);
      }
    }
  }
  return out;
}

if (!isMainThread && workerData?.role) {
  const init = workerData as Init;
  if (init.role === 'pub') publisher(init); else subscriber(init);
} else if (require.main === module) {
  transportBench(process.argv.slice(2)).catch((e) => { console.error(e); process.exit(1); });
}
