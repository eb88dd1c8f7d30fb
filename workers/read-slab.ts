/**
 * Where a worker's socket reads land. Every socket of this thread reads into one scratch buffer
 * (net.Socket `onread`; reads run one at a time, each handled before the next) and the bytes are
 * copied out at once, small reads into a shared slab, so that the parser's views stay valid for
 * as long as a command holds them. The default 'data' path allocates a 64 KiB backing store per
 * read and goes through the Readable machinery: leaving it cut PING's CPU per request by a
 * quarter at -P 1 (31 → 24 µs, user time 17 → 10 µs) and by a sixth at -P 16 (docs/BENCHMARKS.md).
 */

/** what `onread` fills: the n bytes of a read are kReadScratch[0, n) until keepRead(n) */
export const kReadScratch = Buffer.allocUnsafeSlow(64 * 1024);
/** reads under this size share a slab; larger ones get their own buffer */
export const kSharedReadMax = 4096;
export const kReadSlabSize = 16 * 1024;
let readSlab = Buffer.allocUnsafeSlow(kReadSlabSize);
let readSlabPos = 0;

/** The n bytes just read into kReadScratch, in memory that no later read overwrites. */
export function keepRead(n: number): Buffer {
  if (n >= kSharedReadMax) return Buffer.from(kReadScratch.subarray(0, n));
  if (readSlab.length - readSlabPos < n) {
    // the old slab lives on for as long as views into it do
    readSlab = Buffer.allocUnsafeSlow(kReadSlabSize);
    readSlabPos = 0;
  }
  const slab = readSlab;
  const at = readSlabPos;
  // up to ~64 bytes (a command or two) a byte loop beat Buffer#copy, which builds a temporary view
  if (n <= 64) for (let i = 0; i < n; i++) slab[at + i] = kReadScratch[i];
  else kReadScratch.copy(slab, at, 0, n);
  const chunk = slab.subarray(at, at + n);
  readSlabPos = at + n;
  return chunk;
}
