// The worker-to-worker ring (core/bus/ring.ts), both ends in one thread.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newRing, RingReader, RingWriter } from './ring';
import { decodeRingFrame, encodeRingFrame } from './ring-frame';

const turn = () => new Promise((r) => setImmediate(r));

test('records wrap around the end, a full ring refuses, the reader frees space as it reads', async () => {
  const sab = newRing(64);
  const w = new RingWriter(sab);
  const got: string[] = [];
  let stopAt = 0;
  const seen: number[] = [];
  const reader = new RingReader(sab, (bytes) => got.push(bytes.toString()), (m) => { seen.push(m); return m !== stopAt; });
  for (let round = 0; round < 20; round++) {
    const frames = [`a${round}-xxxxxxxxxxxx`, `b${round}-yy`, `c${round}`];
    for (const f of frames) assert.ok(w.tryWrite(Buffer.from(f)));
    assert.ok(!w.tryWrite(Buffer.alloc(40)), 'no room for 44 more bytes');
    await turn();
    assert.deepEqual(got.splice(0), frames);
  }
  // a marker stops the reader until resume()
  stopAt = 7;
  assert.ok(w.tryWrite(undefined, 7));
  assert.ok(w.tryWrite(Buffer.from('after')));
  await turn();
  assert.deepEqual([seen, got], [[7], []]);
  reader.resume();
  assert.deepEqual(got, ['after']);
  reader.close();
});

test('ring frames: items and renumbered asks survive the bytes', () => {
  const items = ['m', 0, Buffer.from('ch'), Buffer.from('hello'), 'w', 3, Buffer.from('key'), Buffer.alloc(0), 's', 0, Buffer.from('s'), Buffer.from('x')];
  const { items: out, asks } = decodeRingFrame(encodeRingFrame(items as never, [0, 2], [1, 99, 6]));
  assert.deepEqual(out.map((v) => (typeof v === 'object' ? Buffer.from(v).toString() : v)), ['m', 0, 'ch', 'hello', 's', 0, 's', 'x']);
  assert.deepEqual(asks, [1, 99, 6]);
  assert.equal(decodeRingFrame(encodeRingFrame(items as never, [1], [])).asks, undefined);
});
