// A worker writing another worker's subscriber itself (core/bus/socket-slots.ts): real sockets,
// the bus in one thread (core/bus/in-thread.ts), no Postgres.
import assert from 'node:assert/strict';
import net from 'node:net';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { MessageBus, SlotSink, Subscriber } from './bus';
import { inThreadBus, type InThreadBus } from './in-thread';
import { PushBytes } from './push-bytes';
import { loadNative } from '../native';

const b = (s: string) => Buffer.from(s);
const turn = () => new Promise((r) => setImmediate(r));

/** A subscriber as workers/client.ts keeps one: writes through its net.Socket while it owns the slot, idle when nothing is queued. */
class SocketSubscriber implements Subscriber, SlotSink {
  readonly slot: number;
  remainders = 0;
  busy = false;
  private readonly pb = new PushBytes();
  constructor(private readonly bus: MessageBus, private readonly socket: net.Socket) {
    const fd = (socket as unknown as { _handle: { fd: number } })._handle.fd;
    this.slot = bus.attachSlot(fd, 2, this);
    assert.ok(this.slot >= 0);
    socket.on('drain', () => this.idle());
  }

  deliver(kind: 'm' | 's', channel: Buffer, message: Buffer): boolean {
    this.bus.slots.take(this.slot);
    this.pb.reset();
    this.pb.add(kind, channel, message, 2);
    this.socket.write(Buffer.from(this.pb.bytes()));
    queueMicrotask(() => this.idle());
    return true;
  }

  remainder(bytes: Buffer): void {
    this.remainders++;
    this.socket.write(bytes);
    this.bus.slots.remainderWritten(this.slot);
    queueMicrotask(() => this.idle());
  }

  idle(): void {
    if (!this.busy && this.socket.writableLength === 0) this.bus.slots.idle(this.slot, 2);
  }

  /** the subscriber's worker is busy with it (a command, replies owed) */
  hold(): void {
    this.busy = true;
    this.bus.slots.take(this.slot);
  }

  release(): void {
    this.busy = false;
    this.idle();
  }
}

/** The messages of `*3 $7 message $n channel $n payload` pushes, as their payloads, from a byte stream. */
class PushReader {
  private buf = Buffer.alloc(0);
  readonly got: Buffer[] = [];
  constructor(socket: net.Socket) {
    socket.on('data', (d: Buffer) => {
      this.buf = Buffer.concat([this.buf, d]);
      this.parse();
    });
  }

  private parse(): void {
    for (;;) {
      let at = 0;
      const line = (): string | undefined => {
        const end = this.buf.indexOf('\r\n', at);
        if (end < 0) return undefined;
        const s = this.buf.toString('latin1', at, end);
        at = end + 2;
        return s;
      };
      const bulk = (): Buffer | undefined => {
        const h = line();
        if (h === undefined) return undefined;
        assert.equal(h[0], '$', `a bulk header, got ${JSON.stringify(h)}`);
        const n = Number(h.slice(1));
        if (this.buf.length < at + n + 2) return undefined;
        const v = this.buf.subarray(at, at + n);
        assert.equal(this.buf.toString('latin1', at + n, at + n + 2), '\r\n');
        at += n + 2;
        return v;
      };
      const head = line();
      if (head === undefined) return;
      assert.equal(head, '*3');
      const kind = bulk();
      const channel = bulk();
      const message = bulk();
      if (kind === undefined || channel === undefined || message === undefined) return;
      assert.equal(kind.toString(), 'message');
      this.got.push(Buffer.from(message));
      this.buf = this.buf.subarray(at);
    }
  }

  async until(n: number, ms = 20_000): Promise<void> {
    const end = Date.now() + ms;
    while (this.got.length < n) {
      if (Date.now() > end) throw new Error(`${this.got.length} of ${n} messages`);
      await new Promise((r) => setTimeout(r, 5));
    }
  }
}

async function socketPair(): Promise<{ server: net.Server; ours: net.Socket; peer: net.Socket }> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const accepted = new Promise<net.Socket>((r) => server.once('connection', r));
  const peer = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
  const ours = await accepted;
  await new Promise((r) => peer.once('connect', r));
  return { server, ours, peer };
}

describe('socket slots: a publisher writes another worker\'s subscriber itself', { timeout: 60_000 }, () => {
  let p: InThreadBus;
  let pair: Awaited<ReturnType<typeof socketPair>>;
  beforeEach(async () => {
    p = await inThreadBus(2);
    pair = await socketPair();
  });
  afterEach(async () => {
    pair.peer.destroy();
    pair.ours.destroy();
    await new Promise((r) => pair.server.close(r));
    await p.close();
  });

  test('an idle subscriber gets the messages from the publishing worker: nothing crosses the channel, PUBLISH counts it', async () => {
    const [w0, w1] = p.buses;
    const sub = new SocketSubscriber(w1!, pair.ours);
    const reader = new PushReader(pair.peer);
    await w1!.subscribe('c', b('news'), sub);
    sub.idle();
    const before = { ...w1!.stats };
    const counts: (number | Promise<number>)[] = [];
    for (let i = 0; i < 500; i++) {
      counts.push(w0!.publishCounted(b('news'), b(`m${i}`)));
      if (i % 50 === 0) await turn();
    }
    assert.deepEqual(await Promise.all(counts), Array(500).fill(1));
    await reader.until(500);
    assert.deepEqual(reader.got.map(String), Array.from({ length: 500 }, (_, i) => `m${i}`));
    assert.equal(w1!.stats.framesIn - before.framesIn, 0, 'no frame woke the subscriber\'s worker');
    assert.equal(w0!.stats.directSent, 500);
  });

  test('while the subscriber\'s worker owns its socket the messages go the channel\'s way; one publisher\'s order holds across the switches', async () => {
    const [w0, w1] = p.buses;
    const sub = new SocketSubscriber(w1!, pair.ours);
    const reader = new PushReader(pair.peer);
    await w1!.subscribe('c', b('q'), sub);
    sub.idle();
    const total = 3000;
    for (let i = 0; i < total; i++) {
      w0!.publish(b('q'), b(String(i)));
      if (i % 37 === 0) await turn();
      // the subscriber's worker takes its socket now and then (a command from it), and lets go later
      if (i % 211 === 0) sub.hold();
      if (i % 211 === 100) setImmediate(() => sub.release());
    }
    sub.release();
    await reader.until(total);
    assert.deepEqual(reader.got.map(Number), Array.from({ length: total }, (_, i) => i));
    assert.ok(w0!.stats.directSent > 0 && w0!.stats.directMissed > 0, `direct ${w0!.stats.directSent}, channel ${w0!.stats.directMissed}`);
  });

  test('a short send: the rest goes to the subscriber\'s worker and out before anything else; every byte arrives in order', async () => {
    const [w0, w1] = p.buses;
    const sub = new SocketSubscriber(w1!, pair.ours);
    await w1!.subscribe('c', b('big'), sub);
    sub.idle();
    pair.peer.pause(); // the kernel's buffers fill: a send is short, then refused
    const total = 40;
    const body = (i: number) => Buffer.alloc(200_000, 97 + (i % 26));
    for (let i = 0; i < total; i++) {
      w0!.publish(b('big'), body(i));
      await turn();
    }
    const reader = new PushReader(pair.peer);
    pair.peer.resume();
    await reader.until(total);
    assert.ok(sub.remainders > 0, 'a send was short');
    reader.got.forEach((m, i) => assert.ok(m.equals(body(i)), `message ${i}`));
  });

  test('a closed subscriber\'s descriptor is not written, even once its number belongs to another socket', async () => {
    const native = loadNative();
    const fd = (pair.ours as unknown as { _handle: { fd: number } })._handle.fd;
    const id = native.socketId(fd);
    assert.ok(id > 0);
    assert.equal(native.sendFdIf(fd, id, b('x')), 1);
    pair.ours.destroy();
    await turn();
    // the lowest free number goes to the next socket: most likely fd again
    const other = await socketPair();
    try {
      const fd2 = (other.ours as unknown as { _handle: { fd: number } })._handle.fd;
      assert.ok(native.sendFdIf(fd2, id, b('x')) < 0, 'refused: another socket');
      assert.equal(native.sendFdIf(fd2, native.socketId(fd2), b('x')), 1);
    } finally {
      other.peer.destroy();
      other.ours.destroy();
      await new Promise((r) => other.server.close(r));
    }
  });
});
