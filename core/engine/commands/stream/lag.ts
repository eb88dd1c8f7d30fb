/**
 * A consumer group's lag (Redis 7.0's streamReplyWithCGLag): entries added to the stream that the
 * group has not read, or null when deletions inside the unread part make it unknowable. The
 * same rules as x_estimate / x_tombstones in ./functions.ts, here for XINFO's replies. Ids are
 * the stored (shifted) values, compared as pairs.
 */
type Pair = [bigint, bigint];
const kZero: Pair = [-(2n ** 63n), -(2n ** 63n)];
const cmp = (a: Pair, b: Pair) => (a[0] !== b[0] ? (a[0] < b[0] ? -1 : 1) : a[1] === b[1] ? 0 : a[1] < b[1] ? -1 : 1);

export interface StreamState { len: bigint; added: bigint; last: Pair; first: Pair; maxDel: Pair }

function tombstonesFrom(s: StreamState, start: Pair): boolean {
  if (s.len === 0n || cmp(s.maxDel, kZero) === 0) return false;
  if (cmp(s.first, s.maxDel) > 0) return false;
  return cmp(start, s.maxDel) <= 0;
}

function estimate(s: StreamState, id: Pair): bigint | null {
  if (s.added === 0n) return 0n;
  if (s.len === 0n && cmp(id, s.last) < 1) return s.added;
  const c = cmp(id, s.last);
  if (c === 0) return s.added;
  if (c > 0) return null;
  if (cmp(s.maxDel, kZero) === 0 || cmp(s.maxDel, s.first) < 0) {
    const f = cmp(id, s.first);
    if (f < 0) return s.added - s.len;
    if (f === 0) return s.added - s.len + 1n;
  }
  return null;
}

export function groupLag(s: StreamState, groupLast: Pair, entriesRead: bigint | null): bigint | null {
  if (s.added === 0n) return 0n;
  if (entriesRead !== null && !tombstonesFrom(s, groupLast)) return s.added - entriesRead;
  const e = estimate(s, groupLast);
  return e === null ? null : s.added - e;
}

export const pair = (ms: unknown, seq: unknown): Pair => (ms === null ? kZero : [BigInt(ms as string), BigInt(seq as string)]);
