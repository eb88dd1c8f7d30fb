/**
 * A frame between the workers of one process (the BroadcastChannel's LocalFrame) as one byte
 * array: per item a 13-byte head (kind, db, length of a, length of b) then a's and b's bytes.
 *
 *   [kind u8][db i32][|a| u32][|b| u32][a…][b…]  [kind]…
 *
 * Structured clone copies an ArrayBuffer once and makes one object per view: a frame of n
 * PUBLISHes as WireItems (compactWire, messages.ts) was 2n views to serialise, 2n Uint8Arrays
 * made on the receiving side and 2n Buffers over them (asBuffer). Packed, it is one array each
 * way, and the receiver cuts a and b as Buffers over it (2n subarrays, no copy).
 */
import type { ItemKind } from './codec';
import type { WireItems } from './messages';

const kHead = 13;
const kKindM = 0x6d; // 'm'
const kKindS = 0x73; // 's'
const kKindW = 0x77; // 'w'

/** items (kind, db, a, b …) into one Uint8Array whose ArrayBuffer is exactly its size. */
export function packItems(items: WireItems): Uint8Array {
  let total = 0;
  for (let i = 0; i + 3 < items.length; i += 4) total += kHead + (items[i + 2] as Uint8Array).byteLength + (items[i + 3] as Uint8Array).byteLength;
  const out = Buffer.allocUnsafeSlow(total);
  let at = 0;
  for (let i = 0; i + 3 < items.length; i += 4) {
    const kind = items[i] as ItemKind;
    const a = items[i + 2] as Uint8Array;
    const b = items[i + 3] as Uint8Array;
    out[at] = kind === 'm' ? kKindM : kind === 's' ? kKindS : kKindW;
    out.writeInt32LE(items[i + 1] as number, at + 1);
    out.writeUInt32LE(a.byteLength, at + 5);
    out.writeUInt32LE(b.byteLength, at + 9);
    at += kHead;
    out.set(a, at);
    at += a.byteLength;
    out.set(b, at);
    at += b.byteLength;
  }
  return out;
}

/** Calls fn for each item of a packed frame, in order; a and b are views into bytes. */
export function forEachPacked(bytes: Uint8Array, fn: (kind: ItemKind, db: number, a: Buffer, b: Buffer, index: number) => void): void {
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 0;
  for (let index = 0; at + kHead <= buf.length; index++) {
    const k = buf[at];
    const kind: ItemKind = k === kKindM ? 'm' : k === kKindS ? 's' : 'w';
    const db = buf.readInt32LE(at + 1);
    const alen = buf.readUInt32LE(at + 5);
    const blen = buf.readUInt32LE(at + 9);
    at += kHead;
    const a = buf.subarray(at, at + alen);
    at += alen;
    const b = buf.subarray(at, at + blen);
    at += blen;
    fn(kind, db, a, b, index);
  }
}
