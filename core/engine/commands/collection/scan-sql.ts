/**
 * The HSCAN / SSCAN / ZSCAN statement, one per family from the table and column names.
 * $1 db, $2 key, $3 cursor (an h; int8: a cursor past the last h is 2^31), $4 rows at most, $5 now. Rows: kv.type, the element, `extra`
 * (a hash's value, a zset's score, NULL for sets), its h, and whether every element was sent.
 *
 * A key with at most `small` elements (Redis's compact-encoding limit for the family) sends all
 * of them, in h order: collection/scan.ts then answers in one reply as Redis does for a listpack
 * or an intset, or pages through them when the elements do not fit that encoding. ≤ 512 rows
 * read where a page reads count + 1, whatever the cursor. Larger keys: the page from the cursor,
 * one range read of the (key, h) index.
 */
import type { Statement } from '../../key-store';
import { liveKey, type CollectionTable } from './sql';

export interface ScanOptions {
  /** the column sent after each element, or undefined */
  extra?: string;
  /** Redis 7.0's compact limit: hash-max-listpack-entries, set-max-intset-entries… */
  small: number;
}

export function scanStatement(f: CollectionTable, o: ScanOptions): Statement {
  const cols = `t.${f.id}, ${o.extra === undefined ? 'NULL::bytea' : `t.${o.extra}`}, t.h`;
  const rows = `FROM ${f.table} t WHERE t.db = k.db AND t.key = k.key`;
  return {
    text: `SELECT k.type, p.el, p.x, p.h, k.card <= ${o.small} FROM kv k LEFT JOIN LATERAL (
             (SELECT ${cols} ${rows} AND k.card <= ${o.small} ORDER BY t.h)
             UNION ALL
             (SELECT ${cols} ${rows} AND k.card > ${o.small} AND t.h >= $3::int8 ORDER BY t.h LIMIT $4::int8)
           ) p (el, x, h) ON true
           WHERE ${liveKey(5)}`,
  };
}
