/**
 * The bitmap family's statements: GETBIT reads one byte; the rest call ./functions.ts.
 * $1 db, $2 key, the last $n now.
 */
import type { Statement } from '../../key-store';
import { call } from '../function-call';
import { live } from '../kv-row';

export const kBitmapSql = {
  /** GETBIT: type, and the byte holding bit $3 (NULL past the end); $3 byte offset */
  getbit: {
    text: `SELECT k.type, CASE WHEN length(k.value) > $3::int8 THEN get_byte(substring(k.value FROM ($3::int8 + 1)::int4 FOR 1), 0) END
           FROM kv k WHERE k.db = $1::int2 AND k.key = $2::bytea AND ${live('k', '$4::int8')}`,
  },
  setbit: call('bit_set', 'status, old, wrote', 'int2', 'bytea', 'int8', 'int4', 'int8'),
  /** $3 a range is given, $4 $5 start end, $6 in bits */
  count: call('bit_count', 'status, n', 'int2', 'bytea', 'bool', 'int8', 'int8', 'bool', 'int8'),
  /** $3 bit, $4 how many of start / end / unit were given, $5 $6 start end, $7 in bits */
  pos: call('bit_pos', 'status, pos', 'int2', 'bytea', 'int4', 'int2', 'int8', 'int8', 'bool', 'int8'),
  /** $2 op (0 AND, 1 OR, 2 XOR, 3 NOT), $3 destination, $4 sources */
  op: call('bit_op', 'status, n, gone', 'int2', 'int2', 'bytea', 'bytea[]', 'int8'),
  /** $3…$8 the operations (op, signed, bits, offset, value, overflow), $9 write, $10 highest bit written */
  field: call('bit_field', 'status, val, ev', 'int2', 'bytea', 'int2[]', 'bool[]', 'int4[]', 'int8[]', 'int8[]', 'int2[]',
    'bool', 'int8', 'int8'),
} satisfies Record<string, Statement>;
