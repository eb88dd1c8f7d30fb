/**
 * The HyperLogLog family's statements: writes and the single-key count call ./functions.ts;
 * PFCOUNT of several keys reads the values (their merge is in the worker, ./registers.ts).
 * $1 db, the last $n now.
 */
import type { Statement } from '../../key-store';
import { call } from '../function-call';
import { live } from '../kv-row';

export const kHllSql = {
  /** $3 register << 6 | count per element, $4 hll-sparse-max-bytes, $5 the value for a new key (or NULL) */
  add: call('hll_add', 'status, n', 'int2', 'bytea', 'int4[]', 'int8', 'bytea', 'int8'),
  count: call('hll_count', 'status, card', 'int2', 'bytea', 'int8'),
  /** the keys' (type, value) in argument order; no row for a missing key */
  values: {
    text: `SELECT t.i::int4, k.type, k.value FROM unnest($2::bytea[]) WITH ORDINALITY AS t(key, i)
           JOIN kv k ON k.db = $1::int2 AND k.key = t.key AND ${live('k', '$3::int8')} ORDER BY t.i`,
  },
  /** $2 = destination then sources */
  merge: call('hll_merge', 'status', 'int2', 'bytea[]', 'int8', 'int8'),
  /** $3 convert a sparse value to dense first */
  debug: call('hll_debug', 'status, converted, value', 'int2', 'bytea', 'bool', 'int8'),
} satisfies Record<string, Statement>;
