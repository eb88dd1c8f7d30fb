/**
 * A bus frame in a worker-to-worker ring (ring.ts): the items one publishing worker sends one
 * reader in a turn, and the asks (PUBLISH's count requests) among them, as bytes:
 *
 *   u32 items, u32 asks, u32 counts · asks × (u32 item index, u32 ask id, u32 holder bits)
 *   · counts × (u32 ask id, u32 receivers) · items × (u8 kind, i32 db, u32 |a|, u32 |b|, a, b)
 *
 * counts: this worker's answers to the reader's asks (what a CountFrame carries on the channel).
 *
 * Decoded items are views into the frame's own buffer (WireItems, as the channel delivers them).
 */
import type { ItemKind } from './codec';
import type { WireItems } from './messages';

/** Encodes items[i*4…] for the item indexes in `which`, with asks already renumbered to that list. */
export function encodeRingFrame(items: WireItems, which: readonly number[], asks: readonly number[], counts: readonly number[] = kNone): Buffer {
  let size = 12 + asks.length * 4 + counts.length * 4;
  for (const i of which) size += 13 + (items[i * 4 + 2] as Uint8Array).byteLength + (items[i * 4 + 3] as Uint8Array).byteLength;
  const out = Buffer.allocUnsafe(size);
  out.writeUInt32LE(which.length, 0);
  out.writeUInt32LE(asks.length / 3, 4);
  out.writeUInt32LE(counts.length / 2, 8);
  let at = 12;
  for (const n of asks) { out.writeUInt32LE(n >>> 0, at); at += 4; }
  for (const n of counts) { out.writeUInt32LE(n >>> 0, at); at += 4; }
  for (const i of which) {
    const a = items[i * 4 + 2] as Uint8Array;
    const b = items[i * 4 + 3] as Uint8Array;
    out[at] = (items[i * 4] as string).charCodeAt(0);
    out.writeInt32LE(items[i * 4 + 1] as number, at + 1);
    out.writeUInt32LE(a.byteLength, at + 5);
    out.writeUInt32LE(b.byteLength, at + 9);
    at += 13;
    out.set(a, at);
    at += a.byteLength;
    out.set(b, at);
    at += b.byteLength;
  }
  return out;
}

export function decodeRingFrame(f: Buffer): { items: WireItems; asks: number[] | undefined; counts: number[] | undefined } {
  const n = f.readUInt32LE(0);
  const nAsks = f.readUInt32LE(4);
  const nCounts = f.readUInt32LE(8);
  let at = 12;
  let asks: number[] | undefined;
  let counts: number[] | undefined;
  if (nAsks > 0) {
    asks = [];
    for (let i = 0; i < nAsks * 3; i++) { asks.push(f.readUInt32LE(at)); at += 4; }
  }
  if (nCounts > 0) {
    counts = [];
    for (let i = 0; i < nCounts * 2; i++) { counts.push(f.readUInt32LE(at)); at += 4; }
  }
  const items: WireItems = [];
  for (let i = 0; i < n; i++) {
    const kind = String.fromCharCode(f[at]!) as ItemKind;
    const db = f.readInt32LE(at + 1);
    const la = f.readUInt32LE(at + 5);
    const lb = f.readUInt32LE(at + 9);
    at += 13;
    items.push(kind, db, f.subarray(at, at + la), f.subarray(at + la, at + la + lb));
    at += la + lb;
  }
  return { items, asks, counts };
}

const kNone: number[] = [];
