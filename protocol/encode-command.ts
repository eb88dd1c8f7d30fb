// Client side of the protocol: one command as a multibulk frame, for tests and the harness
// (which pre-encodes whole pipelines once, valkey-benchmark style).

import { CR, DOLLAR, LF, STAR } from './constants';

function writeHeader(out: Buffer, p: number, type: number, n: number): number {
  out[p++] = type;
  p += out.write(String(n), p, 'latin1');
  out[p++] = CR;
  out[p++] = LF;
  return p;
}

/** `*N\r\n$len\r\narg\r\n...`; strings are sent as UTF-8. */
export function encodeCommand(argv: ReadonlyArray<Buffer | string>): Buffer {
  const bufs = argv.map((a) => (typeof a === 'string' ? Buffer.from(a) : a));
  let size = 3 + String(bufs.length).length;
  for (const b of bufs) size += 5 + String(b.length).length + b.length;
  const out = Buffer.allocUnsafe(size);
  let p = writeHeader(out, 0, STAR, bufs.length);
  for (const b of bufs) {
    p = writeHeader(out, p, DOLLAR, b.length);
    out.set(b, p);
    p += b.length;
    out[p++] = CR;
    out[p++] = LF;
  }
  return out;
}
