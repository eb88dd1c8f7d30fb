/** DUMP's and RESTORE's statements (./functions.ts). $1 db, $2 key, the last $n now. */
import type { Statement } from '../../key-store';
import { call } from '../function-call';

export const kDumpSql = {
  rows: call('dump_rows', 'type, a, b, sc, kind, ms, seq, x, y, fv', 'int2', 'bytea', 'int8'),
  /** $3 type, $4 string value, $5 $6 $7 elements, $8 REPLACE, $9 expiry (ms, NULL none) */
  restore: call('restore_key', 'status', 'int2', 'bytea', 'int2', 'bytea', 'bytea[]', 'bytea[]', 'float8[]', 'bool', 'int8', 'int8'),
  /** $3 REPLACE, $4 expiry, $5 now, then the stream's arrays (./stream-rows.ts streamParams) */
  restoreStream: call('restore_stream', 'status', 'int2', 'bytea', 'bool', 'int8', 'int8', 'int8[]', 'int8[]', 'int8[]', 'bytea[]',
    'int8[]', 'bytea[]', 'int8[]', 'bytea[]', 'bytea[]', 'int8[]', 'bytea[]', 'bytea[]', 'int8[]'),
} satisfies Record<string, Statement>;
