/**
 * HMGET key field [field …] — each field's value in order, nil for missing ones.
 * https://redis.io/commands/hmget/
 */
import type { Reply } from '../../reply';
import { KeyType } from '../../key-store';
import { encodeBufferArray, dbArg, exec, nowArg, typedRead } from '../exec';
import { defineCommand } from '../define';
import { kOneKey } from '../spec';
import { kHashSql } from './sql';

export const hmget = defineCommand({
  name: 'hmget', arity: -3, flags: ['readonly', 'fast'], keys: kOneKey, acl: ['read', 'hash', 'fast'],
  group: 'hash', since: '2.0.0', summary: 'Returns the values of all fields in a hash.',
  complexity: 'O(N) where N is the number of fields being requested.',
  run(s, argv) {
    const fields = argv.slice(2);
    const nils = (): Reply[] => new Array(fields.length).fill(null);
    return exec(s, kHashSql.mget, [dbArg(s), argv[1], encodeBufferArray(fields), nowArg()], typedRead(KeyType.Hash, nils(), (rows) => {
      const out = nils();
      for (const r of rows) out[(r[1] as number) - 1] = r[2] as Buffer | null;
      return out;
    }));
  },
});
