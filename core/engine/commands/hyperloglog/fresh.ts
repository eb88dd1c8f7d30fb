/**
 * The value a PFADD of many elements gives a key that does not exist yet, computed in the worker
 * with the same steps hll_apply takes in Postgres (./functions.ts: Redis's hllSparseSet with its
 * opcode split, the merge of equal VAL runs within 5 opcodes, promotion past
 * hll-sparse-max-bytes or a count above 32, then dense registers). hll_add stores it when it
 * creates the key and ignores it otherwise, so the reply and the bytes stay Redis's either way.
 *
 * Why: hll_apply finds each register's opcode by scanning from the start, in PL/pgSQL: a PFADD
 * of 3,000 elements into a new key took ~0.8 s (unit/hyperloglog's fuzz test does 1,000 of
 * them); here it is a few ms. PFADDs of few elements skip it (kFreshFrom).
 */
import { kRegisters } from './murmur';
import { kDenseSize, kHeaderSize, mergeRegisters } from './registers';

/** PFADDs with at least this many elements precompute the new key's value */
export const kFreshFrom = 64;

const kNew = Buffer.from('48594c4c0100000000000000000000007fff', 'hex');

const zeros = (len: number): number[] => (len > 64 ? [((len - 1) >> 8) | 64, (len - 1) & 255] : [len - 1]);
const val = (v: number, len: number): number => (((v - 1) << 2) | (len - 1)) | 128;

function toDense(v: Buffer): Buffer {
  const r = new Uint8Array(kRegisters);
  mergeRegisters(r, v); // a value built here always covers the 16384 registers
  const d = Buffer.alloc(kDenseSize);
  v.copy(d, 0, 0, kHeaderSize);
  d[4] = 0;
  for (let g = 0; g < kRegisters / 4; g++) {
    const w = r[g * 4] | (r[g * 4 + 1] << 6) | (r[g * 4 + 2] << 12) | (r[g * 4 + 3] << 18);
    d[16 + g * 3] = w & 255;
    d[17 + g * 3] = (w >> 8) & 255;
    d[18 + g * 3] = w >> 16;
  }
  return d;
}

function setDense(v: Buffer, idx: number, cnt: number): void {
  const pos = kHeaderSize + ((idx * 6) >> 3);
  const fb = (idx * 6) & 7;
  const b = v[pos];
  const b2 = pos + 1 < v.length ? v[pos + 1] : 0;
  if (cnt <= (((b >> fb) | (b2 << (8 - fb))) & 63)) return;
  v[pos] = (b & ~(63 << fb) & 255) | ((cnt << fb) & 255);
  if (fb > 2) v[pos + 1] = (b2 & ~(63 >> (8 - fb))) | (cnt >> (8 - fb));
}

/** ops: register << 6 | count per element (murmur.ts registerOp), in argument order */
export function freshValue(ops: Int32Array, maxBytes: number): Buffer {
  let v: Buffer = Buffer.from(kNew);
  let n = v.length;
  // where the last change started merging: consecutive registers resume the scan there
  let hp = 16; let hfirst = 0; let hprev = -1; let hprevFirst = 0;
  for (const op of ops) {
    const idx = op >> 6;
    const cnt = op & 63;
    if (v[4] === 1) {
      let promote = cnt > 32;
      if (!promote) {
        let p: number; let first: number; let prev: number; let prevFirst: number;
        if (idx >= hfirst) { p = hp; first = hfirst; prev = hprev; prevFirst = hprevFirst; } else { p = 16; first = 0; prev = -1; prevFirst = 0; }
        let pprev = -2; let pprevFirst = 0; let span = 0; let b = 0;
        for (;;) {
          pprev = -2; pprevFirst = 0; span = 0;
          while (p < n) {
            b = v[p];
            let oplen = 1;
            if ((b & 192) === 0) span = (b & 63) + 1;
            else if (b & 128) span = (b & 3) + 1;
            else { span = (((b & 63) << 8) | (p + 1 < n ? v[p + 1] : 0)) + 1; oplen = 2; }
            if (idx <= first + span - 1) break;
            pprev = prev; pprevFirst = prevFirst; prev = p; prevFirst = first;
            p += oplen; first += span;
          }
          if (prev !== -2 || p >= n) break;
          p = 16; first = 0; prev = -1; prevFirst = 0;
        }
        const kind = (b & 192) === 0 ? 0 : b & 128 ? 2 : 1;
        if (kind === 2 && ((b >> 2) & 31) + 1 >= cnt) continue;
        let changed = false;
        if (span === 1 && kind !== 1) {
          v[p] = ((cnt - 1) << 2) | 128;
          changed = true;
        } else {
          const last = first + span - 1;
          const seq: number[] = [];
          if (kind !== 2) {
            if (idx !== first) seq.push(...zeros(idx - first));
            seq.push(val(cnt, 1));
            if (idx !== last) seq.push(...zeros(last - idx));
          } else {
            const cur = ((b >> 2) & 31) + 1;
            if (idx !== first) seq.push(val(cur, idx - first));
            seq.push(val(cnt, 1));
            if (idx !== last) seq.push(val(cur, last - idx));
          }
          const oldlen = kind === 1 ? 2 : 1;
          const delta = seq.length - oldlen;
          if (delta > 0 && n + delta > maxBytes) promote = true;
          else {
            v = Buffer.concat([v.subarray(0, p), Buffer.from(seq), v.subarray(p + oldlen)]).subarray(0, n + delta);
            n += delta;
            changed = true;
          }
        }
        if (changed) {
          let m = prev >= 0 ? prev : 16;
          for (let scan = 5; m < n && scan > 0;) {
            scan--;
            const c = v[m];
            if ((c & 192) === 64) { m += 2; continue; }
            if ((c & 192) === 0) { m += 1; continue; }
            if (m + 1 < n) {
              const c2 = v[m + 1];
              if ((c2 & 128) && ((c >> 2) & 31) === ((c2 >> 2) & 31) && (c & 3) + (c2 & 3) + 2 <= 4) {
                v = Buffer.concat([v.subarray(0, m), Buffer.from([(c & 252) | ((c & 3) + (c2 & 3) + 1)]), v.subarray(m + 2)]);
                n -= 1;
                continue;
              }
            }
            m += 1;
          }
          if (prev >= 0) { hp = prev; hfirst = prevFirst; hprev = pprev; hprevFirst = pprevFirst; } else { hp = 16; hfirst = 0; hprev = -1; hprevFirst = 0; }
          continue;
        }
      }
      v = toDense(v);
      n = v.length;
    }
    setDense(v, idx, cnt);
  }
  v[15] |= 128;
  return v;
}
