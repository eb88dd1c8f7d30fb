/** Stream replies built from statement rows: an entry is [id, [field, value, …]]. */
import { kNullArray, RespError, type Reply } from '../../reply';
import { Err } from '../../resp-errors';
import type { Rows } from '../../key-store';
import { kStreamType } from './sql';
import { sqlIdText } from './id';

/** [id, fields and values]; a pending id whose entry was deleted has a null array instead */
export const entryReply = (ms: unknown, seq: unknown, fv: unknown): Reply[] =>
  [sqlIdText(ms, seq), fv === null ? kNullArray : (fv as Buffer[])];

/** rows (type, ms, seq, fv) of a range read: missing key → [], other type → WRONGTYPE */
export function rangeReply(rows: Rows): Reply {
  if (rows.length === 0) return [];
  if (rows[0][0] !== kStreamType) return Err.wrongType;
  const out: Reply[] = [];
  for (const r of rows) if (r[1] !== null) out.push(entryReply(r[1], r[2], r[3]));
  return out;
}

/** NOGROUP for commands naming a key and a group (XPENDING, XCLAIM, XAUTOCLAIM) */
export const noGroup = (key: Buffer, grp: Buffer): RespError =>
  new RespError(`NOGROUP No such key '${cstr(key)}' or consumer group '${cstr(grp)}'`);

/** XGROUP's NOGROUP text */
export const noGroupForKey = (key: Buffer, grp: Buffer): RespError =>
  new RespError(`NOGROUP No such consumer group '${cstr(grp)}' for key name '${cstr(key)}'`);

/** Redis formats names with %s: they end at a NUL byte */
export function cstr(b: Buffer): string {
  const s = b.toString('latin1');
  const nul = s.indexOf('\0');
  return nul < 0 ? s : s.slice(0, nul);
}
