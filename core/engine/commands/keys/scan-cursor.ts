/**
 * SCAN cursors. SCAN walks a database in the order of kv_hash(key), a signed 64-bit hash of the
 * key's bytes indexed with db (migration 3), and a cursor is a position in that order: the hash
 * the next page starts at, plus 2^63, as an unsigned 64-bit decimal like Redis's (clients such as
 * redis-cli parse it with strtoull). No server-side state, no long transaction, valid on any
 * connection and any PostRESP instance.
 *
 *   hash:    -2^63 ……………… -1   0 ……………… 2^63-1
 *   cursor:      0 ……… 2^63-1   2^63 …… 2^64-1       "0" starts and, in a reply, ends
 *
 * A page holds every live key whose hash is in [cursor, next): keys sharing a hash are never
 * split between pages. The ranges cover the whole hash space, so a key present for the whole
 * iteration is returned, and only once; the walk ends after at most 2^64 positions, whatever
 * is added meanwhile. A cursor Redis accepts (strtoul: sign, digits, ≤ 2^64-1) is a valid
 * position, so a client's own integer is one too; anything else is "ERR invalid cursor".
 */
import type { RespError } from '../../reply';
import { parseCursor } from '../collection/scan';

const kOffset = 1n << 63n;
const kMaxHash = kOffset - 1n;

/** The hash a page starts at (kv_hash(key) ≥ it), or Redis's error. */
export function decodeCursor(arg: Buffer): bigint | RespError {
  const c = parseCursor(arg);
  return typeof c === 'bigint' ? c - kOffset : c;
}

/** The cursor after a full page whose last hash is lastHash: the next hash, or "0" past the end. */
export function encodeCursor(lastHash: bigint): string {
  return lastHash >= kMaxHash ? '0' : String(lastHash + 1n + kOffset);
}
