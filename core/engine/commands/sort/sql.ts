/** SORT's statement (./functions.ts sort_run). */
import type { Statement } from '../../key-store';
import { call } from '../function-call';

export const kSortSql = {
  run: call('sort_run', 'status, i, j, val', 'int2', 'bytea', 'int2', 'bytea', 'bytea', 'bytea', 'int2[]',
    'bytea[]', 'bytea[]', 'bytea[]', 'bool', 'bool', 'int8', 'int8', 'bytea', 'int8'),
} satisfies Record<string, Statement>;
