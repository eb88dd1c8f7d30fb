/**
 * The list family's statements: reads return kv.type first (no row = missing key); writes call
 * ./functions.ts. Element i sits at position head + i. $1 db, $2 key, the last $n now.
 */
import type { Statement } from '../../key-store';
import { liveKey as live } from '../collection/sql';

const rows = 'l.db = k.db AND l.key = k.key';
/** index argument $n as an offset from head: negative counts from the end */
const offset = (n: number) => `(CASE WHEN $${n}::int8 < 0 THEN k.card + $${n}::int8 ELSE $${n}::int8 END)`;

export const kListSql = {
  index: {
    text: `SELECT k.type, l.value FROM kv k LEFT JOIN lists l ON ${rows}
             AND l.pos = k.head + CASE WHEN ${offset(3)} BETWEEN 0 AND k.card - 1 THEN ${offset(3)} END
           WHERE ${live(4)}`,
  },
  /** LRANGE: Redis's clamping, with offsets bounded by card so head + offset cannot overflow */
  range: {
    text: `SELECT k.type, l.value FROM kv k LEFT JOIN lists l ON ${rows}
             AND l.pos >= k.head + least(greatest(${offset(3)}, 0), k.card)
             AND l.pos <= k.head + greatest(least(${offset(4)}, k.card - 1), -1)
           WHERE ${live(5)} ORDER BY l.pos`,
  },
  /** LPOS from the head: $3 element, $4 rank-1 (matches to skip), $5 count (NULL = all), $6 maxlen (0 = all) */
  posForward: {
    text: `SELECT k.type, p.pos - k.head FROM kv k LEFT JOIN LATERAL (
             SELECT pos FROM lists l WHERE ${rows} AND l.value = $3::bytea
               AND ($6::int8 = 0 OR l.pos < k.head + least($6::int8, k.card))
             ORDER BY l.pos OFFSET $4::int8 LIMIT $5::int8) p ON true
           WHERE ${live(7)}`,
  },
  posBackward: {
    text: `SELECT k.type, p.pos - k.head FROM kv k LEFT JOIN LATERAL (
             SELECT pos FROM lists l WHERE ${rows} AND l.value = $3::bytea
               AND ($6::int8 = 0 OR l.pos > k.head + k.card - 1 - least($6::int8, k.card))
             ORDER BY l.pos DESC OFFSET $4::int8 LIMIT $5::int8) p ON true
           WHERE ${live(7)}`,
  },
  push: { text: 'SELECT status, n FROM l_push($1::int2, $2::bytea, $3::bytea[], $4::bool, $5::bool, $6::int8)' },
  pop: { text: 'SELECT status, value FROM l_pop($1::int2, $2::bytea, $3::int8, $4::bool, $5::int8)' },
  set: { text: 'SELECT status FROM l_set($1::int2, $2::bytea, $3::int8, $4::bytea, $5::int8)' },
  insert: { text: 'SELECT status, n FROM l_insert($1::int2, $2::bytea, $3::bool, $4::bytea, $5::bytea, $6::int8)' },
  rem: { text: 'SELECT status, n FROM l_rem($1::int2, $2::bytea, $3::int8, $4::bytea, $5::int8)' },
  trim: { text: 'SELECT status FROM l_trim($1::int2, $2::bytea, $3::int8, $4::int8, $5::int8)' },
  move: { text: 'SELECT status, value FROM l_move($1::int2, $2::bytea, $3::bytea, $4::bool, $5::bool, $6::int8)' },
  mpop: { text: 'SELECT status, key, value FROM l_mpop($1::int2, $2::bytea[], $3::bool, $4::int8, $5::int8)' },
} satisfies Record<string, Statement>;
