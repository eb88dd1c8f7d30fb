/**
 * HSCAN / SSCAN / ZSCAN: cursor and options with Redis's rules, and the page logic.
 *
 * Every element row carries h, a random int in [0, 2^31) indexed with its key. A cursor is an h:
 * a page is the rows with h ≥ cursor in h order, and the next cursor is the h of the first row
 * not returned. Elements present for the whole iteration are returned (an element keeps its h
 * for life), even when others come and go, which Redis also guarantees; an element may come
 * twice only if it is removed and added again. Cursor 0 starts, and "0" in a reply ends.
 *
 * Small keys whose elements fit Redis's compact encoding (a listpack, an intset) come whole in
 * one reply with cursor 0, whatever the cursor and COUNT, in that encoding's order as Redis sends
 * them (`Compact` below; the statement sends every element of such keys: scan-sql.ts).
 *
 * Redis checks the cursor first, then the key (missing → empty page, other type → WRONGTYPE),
 * and only then the options: a syntax error on a missing key is an empty page, not an error.
 */
import { globMatch } from '../../glob';
import { RespError, type Reply } from '../../reply';
import { Err } from '../../resp-errors';
import { eqIgnoreCase, parseI64 } from '../args';
import type { Session } from '../../session';
import type { KeyType, Statement } from '../../key-store';
import { dbArg, exec, nowArg, typedRead } from '../exec';

const kInvalidCursor = new RespError('ERR invalid cursor');
const kULongMax = 18446744073709551615n;
/** h < 2^31: a cursor beyond it has nothing left */
export const kCursorEnd = 2147483648;

export interface ScanOptions {
  cursor: number;
  count: number;
  match: Buffer | undefined;
  /** an option error Redis reports only when the key exists with the right type */
  error: RespError | undefined;
}

/** strtoul(…, 10) as parseScanCursorOrReply uses it: sign allowed, "" is 0, ends at a NUL. */
export function parseCursor(b: Buffer): bigint | RespError {
  if (b.length > 0 && (b[0] === 32 || (b[0] >= 9 && b[0] <= 13))) return kInvalidCursor;
  let i = 0;
  let neg = false;
  if (b[i] === 43 || b[i] === 45) { neg = b[i] === 45; i++; }
  const from = i;
  let v = 0n;
  while (i < b.length && b[i] >= 48 && b[i] <= 57) {
    v = v * 10n + BigInt(b[i] - 48);
    if (v > kULongMax) return kInvalidCursor;
    i++;
  }
  if (i === from) return b.length === 0 || b[0] === 0 ? 0n : kInvalidCursor;
  if (i < b.length && b[i] !== 0) return kInvalidCursor;
  return neg && v !== 0n ? kULongMax + 1n - v : v;
}

/** argv[3…]: COUNT n, MATCH pattern (TYPE belongs to SCAN only). */
export function parseScan(argv: Buffer[], cursorArg: Buffer): ScanOptions | RespError {
  const c = parseCursor(cursorArg);
  if (c instanceof RespError) return c;
  const out: ScanOptions = { cursor: c >= BigInt(kCursorEnd) ? kCursorEnd : Number(c), count: 10, match: undefined, error: undefined };
  for (let i = 3; i < argv.length && out.error === undefined; i += 2) {
    const more = i + 1 < argv.length;
    if (more && eqIgnoreCase(argv[i], 'count')) {
      const n = parseI64(argv[i + 1]);
      if (n === undefined) out.error = Err.notInteger;
      else if (n < 1n) out.error = Err.syntax;
      else out.count = n > 100000n ? 100000 : Number(n);
    } else if (more && eqIgnoreCase(argv[i], 'match')) {
      const p = argv[i + 1];
      out.match = p.length === 1 && p[0] === 42 ? undefined : p; // "*" matches everything
    } else {
      out.error = Err.syntax;
    }
  }
  return out;
}

/**
 * One page from rows [element, extra, h] fetched with `LIMIT count + 1` in h order: the reply
 * [cursor, [element, extra?, …]] with `pairs` telling whether extra is sent (HSCAN values,
 * ZSCAN scores). MATCH filters after the page is cut, as in Redis (pages may come back empty).
 */
export function scanPage(rows: unknown[][], from: number, count: number, match: Buffer | undefined,
  pairs: boolean, extra: (v: unknown) => Reply = (v) => v as Reply): Reply {
  let take = rows.length;
  let next = '0';
  if (rows.length > count) {
    const cut = rows[count][from + 2] as number;
    take = count;
    // rows sharing the boundary h wait for the next page (they come back together)
    while (take > 0 && (rows[take - 1][from + 2] as number) === cut) take--;
    if (take === 0) { take = rows.length; next = String(cut + 1); } else next = String(cut);
  }
  const items: Reply[] = [];
  for (let i = 0; i < take; i++) {
    const el = rows[i][from] as Buffer;
    if (match !== undefined && !globMatch(match, el)) continue;
    items.push(el);
    if (pairs) items.push(extra(rows[i][from + 1]));
  }
  return [next, items];
}

export const kEmptyScan: Reply = ['0', []];

/**
 * A family's compact encoding: gets every element row [type, element, extra, h] of a key with at
 * most the statement's `small` elements, and returns them in the order Redis sends that
 * encoding, or undefined when they do not fit it (the key is then paged like a large one).
 */
export type Compact = (rows: unknown[][]) => unknown[][] | undefined;

/**
 * The whole of HSCAN / SSCAN / ZSCAN key cursor [MATCH …] [COUNT …]: `stmt` (scan-sql.ts)
 * returns the key's type row first, then [element, extra, h] rows in h order; `pairs` sends
 * extra after each element, rendered by `extra` (told whether the key was sent compact).
 */
export function elementScan(s: Session, argv: Buffer[], stmt: Statement, type: KeyType, pairs: boolean,
  compact: Compact, extra: (v: unknown, compact: boolean) => Reply = (v) => v as Reply) {
  const o = parseScan(argv, argv[2]);
  if (o instanceof RespError) return o;
  const limit = o.error ? 1 : o.count + 1;
  return exec(s, stmt, [dbArg(s), argv[1], String(o.cursor), String(limit), nowArg()],
    typedRead(type, kEmptyScan, (rows) => {
      if (o.error) return o.error;
      const els = rows.filter((r) => r[1] !== null);
      if (rows[0][4] !== true) return scanPage(els, 1, o.count, o.match, pairs, (v) => extra(v, false));
      // a small key: every element came, in h order
      const whole = compact(els);
      if (whole !== undefined) return scanPage(whole, 1, whole.length, o.match, pairs, (v) => extra(v, true));
      let from = 0;
      while (from < els.length && (els[from][3] as number) < o.cursor) from++;
      return scanPage(els.slice(from, from + o.count + 1), 1, o.count, o.match, pairs, (v) => extra(v, false));
    }));
}
