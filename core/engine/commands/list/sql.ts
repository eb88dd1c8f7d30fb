/**
 * The list family's statements: reads return kv.type first (no row = missing key); writes call
 * ./functions.ts. Element i sits at position head + i. $1 db, $2 key, the last $n now.
 */
import { KeyType, type Statement } from '../../key-store';
import { call } from '../function-call';
import { liveKey as live, rowsOf, type CollectionTable } from '../collection/sql';

export const kListTable: CollectionTable = { table: 'lists', alias: 'l', id: 'pos', type: KeyType.List };
const rows = rowsOf(kListTable);
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
  push: call('l_push', 'status, n', 'int2', 'bytea', 'bytea[]', 'bool', 'bool', 'int8'),
  /** a pop batch's elements, unordered: (status, offset in the popped range, value, gone) */
  popRun: call('l_pop_run', 'status, off, value, gone', 'int2', 'bytea', 'int8', 'bool', 'int8'),
  set: call('l_set', 'status', 'int2', 'bytea', 'int8', 'bytea', 'int8'),
  insert: call('l_insert', 'status, n', 'int2', 'bytea', 'bool', 'bytea', 'bytea', 'int8'),
  rem: call('l_rem', 'status, n, gone', 'int2', 'bytea', 'int8', 'bytea', 'int8'),
  trim: call('l_trim', 'status, ev', 'int2', 'bytea', 'int8', 'int8', 'int8'),
  move: call('l_move', 'status, value, gone', 'int2', 'bytea', 'bytea', 'bool', 'bool', 'int8'),
  mpop: call('l_mpop', 'status, key, value, gone', 'int2', 'bytea[]', 'bool', 'int8', 'int8'),
  /** b_lpop(db, keys, left, count, now, seq, block): blocking/functions.ts */
  bpop: call('b_lpop', 'status, key, value, n', 'int2', 'bytea[]', 'bool', 'int8', 'int8', 'int8', 'bool'),
  /** b_lmove(db, [src], dst, fromLeft, toLeft, now, seq, block) */
  bmove: call('b_lmove', 'status, key, value, n', 'int2', 'bytea[]', 'bytea', 'bool', 'bool', 'int8', 'int8', 'bool'),
} satisfies Record<string, Statement>;
