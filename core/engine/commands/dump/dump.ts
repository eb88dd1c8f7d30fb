/**
 * DUMP key — the value in Redis 7.0's serialization (./rdb.ts), nil for a missing key; the
 * payload is built in the worker from the key's rows.
 * https://redis.io/commands/dump/
 */
import { KeyType } from '../../key-store';
import type { Reply } from '../../reply';
import { defineCommand } from '../define';
import { dbArg, exec, nowArg } from '../exec';
import { kOneKey } from '../spec';
import { dumpPayload, type RdbValue } from './rdb';
import { kDumpSql } from './sql';
import { streamFromRows } from './stream-rows';

export const dump = defineCommand({
  name: 'dump', arity: 2, flags: ['readonly'], keys: kOneKey, acl: ['keyspace'], tips: ['nondeterministic_output'],
  group: 'generic', since: '2.6.0', summary: 'Returns a serialized representation of the value stored at a key.',
  complexity: 'O(1) to access the key and additional O(N*M) to serialize it, where N is the number of Redis objects composing the value and M their average size. For small string values the time complexity is thus O(1)+O(1*M) where M is small, so simply O(1).',
  run: (s, argv) => exec(s, kDumpSql.rows, [dbArg(s), argv[1], nowArg()], (rows): Reply => {
    if (rows.length === 0) return null;
    const type = rows[0][0] as KeyType;
    if (type === KeyType.Stream) return dumpPayload(streamFromRows(rows));
    const a = rows.map((r) => r[1] as Buffer);
    let v: RdbValue;
    if (type === KeyType.String) v = { type, value: a[0] };
    else if (type === KeyType.Hash) v = { type, fields: a, values: rows.map((r) => r[2] as Buffer) };
    else if (type === KeyType.Zset) v = { type, members: a, scores: rows.map((r) => Number(r[3])) };
    else v = { type: type as KeyType.List | KeyType.Set, items: a };
    return dumpPayload(v);
  }),
});
