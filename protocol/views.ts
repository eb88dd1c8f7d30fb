// Buffer views and copies for the parser's hot path (see parser.ts): creating a Buffer object
// is the largest cost left once the bytes are scanned, so these avoid every one they can.

/**
 * Node's internal Buffer class (Buffer[Symbol.species]). `new FastBuffer(ab, offset, length)`
 * is what subarray() ends up calling, minus the species lookup and argument coercion: 51-77 ns
 * against 134-167 ns per view on this machine, and a GET needs two views.
 */
type ViewCtor = new (buffer: ArrayBufferLike, byteOffset: number, length: number) => Buffer;
export const FastBuffer: ViewCtor = (() => {
  const species = (Buffer as unknown as Record<symbol, unknown>)[Symbol.species];
  if (typeof species === 'function') {
    const probe = new (species as ViewCtor)(new ArrayBuffer(4), 1, 2);
    if (Buffer.isBuffer(probe) && probe.length === 2 && probe.byteOffset === 1) return species as ViewCtor;
  }
  return function fallback(buffer: ArrayBufferLike, byteOffset: number, length: number): Buffer {
    return Buffer.from(buffer, byteOffset, length);
  } as unknown as ViewCtor;
})();

export function view(buf: Buffer, from: number, to: number): Buffer {
  return new FastBuffer(buf.buffer, buf.byteOffset + from, to - from);
}

/** Copies src[from, to) into out at p and returns the byte count; a byte loop below 64 bytes beats making a view. */
export function copyInto(out: Buffer, p: number, src: Buffer, from: number, to: number): number {
  const n = to - from;
  if (n < 64) {
    for (let i = 0; i < n; i++) out[p + i] = src[from + i];
  } else {
    out.set(from === 0 && to === src.length ? src : new Uint8Array(src.buffer, src.byteOffset + from, n), p);
  }
  return n;
}

/** Joins parts into one allocation of exactly `total` bytes (Buffer.concat without its checks); one part is returned as is. */
export function join(parts: Buffer[], total: number): Buffer {
  if (parts.length === 1) return parts[0];
  const out = Buffer.allocUnsafe(total);
  let p = 0;
  for (let i = 0; i < parts.length; i++) {
    out.set(parts[i], p);
    p += parts[i].length;
  }
  return out;
}

const kSlabSize = 64 * 1024;
const kCarveMax = 16 * 1024;

/**
 * Memory for arguments that span chunks. Up to 16 KiB they are carved from a 64 KiB slab: one
 * ArrayBuffer per 64 joined 1 KiB values instead of one per 8 with Buffer.allocUnsafe's pool,
 * which took a third of the CPU on 1 KiB chunks of 1 KiB SETs. A slab is dropped, never
 * rewound, so arguments handed out stay valid; one kept argument keeps at most 64 KiB alive.
 */
export class ArgSlab {
  private slab: ArrayBuffer | undefined;
  private pos = 0;

  alloc(n: number): Buffer {
    if (n > kCarveMax) return Buffer.allocUnsafeSlow(n);
    if (this.slab === undefined || this.pos + n > kSlabSize) {
      this.slab = new ArrayBuffer(kSlabSize);
      this.pos = 0;
    }
    const out = new FastBuffer(this.slab, this.pos, n);
    this.pos += (n + 7) & ~7; // keep carved buffers 8-byte aligned
    return out;
  }
}
