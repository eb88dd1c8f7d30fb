#!/usr/bin/env node
/**
 * What handing a SET from one worker thread to another's lane and its reply back costs (issue 18
 * item 3: measure the hand-off per op first). Two threads, closed loop: the "client" thread
 * puts k ops (16-byte key, 3-byte value: the seed config's) where the "lane" thread finds them and
 * wakes it; the lane thread answers each with a status and wakes the client thread; repeat.
 *
 *   node scripts/bench/handoff-bench.js [--seconds 3] [--rounds 3] [--bursts 1,5,10,20]
 *
 * Ways compared, each in the same run:
 *   sab:  a SharedArrayBuffer ring each way (ops copied in: seq, lengths, bytes), Atomics.notify
 *         to wake, Atomics.waitAsync to sleep on the event loop (what a lane feeder would do);
 *   port: MessagePort.postMessage of the burst (an array of [key, value] Buffers), replies as an
 *         Int32Array.
 * Prints per burst size: round trips/s, wall µs per round trip (the latency a P1 client would see
 * added) and CPU µs per op of the whole process (both threads: process.cpuUsage), medians.
 */
'use strict';
const { Worker, isMainThread, parentPort, workerData } = require('node:worker_threads');

const kSlot = 64; // bytes per op slot: int32 klen, int32 vlen, then key and value bytes
const kSlots = 256;

function ring() {
  // ctl: [0] ops written (client), [1] ops answered (lane); data: requests; res: one int32 status per slot
  return { ctl: new SharedArrayBuffer(8), data: new SharedArrayBuffer(kSlot * kSlots), res: new SharedArrayBuffer(4 * kSlots) };
}

function laneThread() {
  const { way, r } = workerData;
  if (way === 'port') {
    let reply;
    parentPort.on('message', (m) => {
      if (m === 'stop') return process.exit(0);
      if (m.reply !== undefined) reply = m.reply;
      const ops = m.ops;
      const st = new Int32Array(ops.length);
      for (let i = 0; i < ops.length; i++) st[i] = ops[i][0].length + ops[i][1].length; // "read" them
      reply.postMessage(st);
    });
    return;
  }
  const ctl = new Int32Array(r.ctl);
  const data = Buffer.from(r.data);
  const res = new Int32Array(r.res);
  // a pending Atomics.waitAsync does not keep a thread's event loop alive (a server's sockets do)
  setInterval(() => undefined, 1 << 30);
  let seen = 0;
  const loop = () => {
    const w = Atomics.load(ctl, 0);
    if (w < 0) return process.exit(0);
    for (; seen < w; seen++) {
      const at = (seen % kSlots) * kSlot;
      const klen = data.readInt32LE(at);
      const vlen = data.readInt32LE(at + 4);
      // what a lane would take: a copy of the key and value out of the ring
      const key = Buffer.from(data.subarray(at + 8, at + 8 + klen));
      const value = Buffer.from(data.subarray(at + 8 + klen, at + 8 + klen + vlen));
      res[seen % kSlots] = key.length + value.length;
    }
    Atomics.store(ctl, 1, seen);
    Atomics.notify(ctl, 1);
    const wait = Atomics.waitAsync(ctl, 0, w);
    if (wait.async) wait.value.then(loop); else setImmediate(loop);
  };
  loop();
}

async function clientSide(way, burst, seconds) {
  const r = ring();
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(__filename, { workerData: { way, r } });
  const key = Buffer.from('key:000000001234');
  const value = Buffer.from('xxx');
  let rounds = 0;
  let stop = false;
  let t0 = 0n;
  let c0;
  const measured = { rounds: 0 };
  const alive = setInterval(() => undefined, 1 << 30);
  await new Promise((resolve) => setTimeout(resolve, 200));
  const start = () => { t0 = process.hrtime.bigint(); c0 = process.cpuUsage(); measured.rounds = rounds; };
  const done = new Promise((resolve) => {
    if (way === 'port') {
      port1.on('message', (st) => {
        rounds++;
        if (stop) return resolve();
        if (st.length !== burst) throw new Error('short reply');
        send();
      });
      const send = () => {
        const ops = new Array(burst);
        for (let i = 0; i < burst; i++) ops[i] = [key, value];
        worker.postMessage({ ops });
      };
      // the reply port goes with the first message only
      worker.postMessage({ ops: Array.from({ length: burst }, () => [key, value]), reply: port2 }, [port2]);
      return;
    }
    const ctl = new Int32Array(r.ctl);
    const data = Buffer.from(r.data);
    let written = 0;
    const send = () => {
      for (let i = 0; i < burst; i++, written++) {
        const at = (written % kSlots) * kSlot;
        data.writeInt32LE(key.length, at);
        data.writeInt32LE(value.length, at + 4);
        key.copy(data, at + 8);
        value.copy(data, at + 8 + key.length);
      }
      Atomics.store(ctl, 0, written);
      Atomics.notify(ctl, 0);
      answered();
    };
    const answered = () => {
      const seen = Atomics.load(ctl, 1);
      if (seen < written) {
        // sleeps only while the count is still `seen`: an answer stored since wakes it at once
        const w = Atomics.waitAsync(ctl, 1, seen);
        if (w.async) w.value.then(answered); else answered();
        return;
      }
      rounds++;
      if (stop) return resolve();
      send();
    };
    send();
  });
  await new Promise((resolve) => setTimeout(resolve, 300));
  start();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const n = rounds - measured.rounds;
  const wall = Number(process.hrtime.bigint() - t0) / 1000;
  const cpu = process.cpuUsage(c0);
  stop = true;
  await done;
  if (way === 'port') { worker.postMessage('stop'); port1.close(); } else { Atomics.store(new Int32Array(r.ctl), 0, -1); Atomics.notify(new Int32Array(r.ctl), 0); }
  await new Promise((resolve) => worker.once('exit', resolve));
  clearInterval(alive);
  return { rtps: n / (wall / 1e6), rtUs: wall / n, cpuPerOp: (cpu.user + cpu.system) / (n * burst) };
}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[s.length >> 1]; };

async function main() {
  const o = { seconds: 3, rounds: 3, bursts: '1,5,10,20' };
  const a = process.argv.slice(2);
  for (let i = 0; i < a.length; i += 2) o[a[i].replace(/^--/, '')] = a[i + 1];
  const cases = [];
  for (const burst of o.bursts.split(',').map(Number)) for (const way of ['sab', 'port']) cases.push({ way, burst, runs: [] });
  for (let r = 0; r < Number(o.rounds); r++) {
    for (const c of (r % 2 ? [...cases].reverse() : cases)) c.runs.push(await clientSide(c.way, c.burst, Number(o.seconds)));
  }
  console.log('| way | ops per hand-off | round trips/s | µs per round trip | CPU µs per op (both threads) |');
  console.log('|---|---:|---:|---:|---:|');
  for (const c of cases) {
    const m = (k) => median(c.runs.map((x) => x[k]));
    console.log(`| ${c.way} | ${c.burst} | ${Math.round(m('rtps'))} | ${m('rtUs').toFixed(1)} | ${m('cpuPerOp').toFixed(2)} |`);
  }
}

if (isMainThread) main().catch((e) => { console.error(e); process.exit(1); });
else laneThread();
