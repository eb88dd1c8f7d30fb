/**
 * ZSCORE key member — the score (a double in RESP3), nil when missing; ZMSCORE key member […] —
 * one per member.
 * https://redis.io/commands/zmscore/
 */
import { RespDouble, type Reply } from '../../reply';
import { KeyType } from '../../key-store';
import { encodeBufferArray, dbArg, exec, nowArg, typedRead } from '../exec';
import { defineCommand } from '../define';
import { kOneKey } from '../spec';
import { kZsetSql } from './sql';

const dbl = (v: unknown): Reply => (v === null ? null : new RespDouble(v as number));

export const zscore = defineCommand({
  name: 'zscore', arity: 3, flags: ['readonly', 'fast'], keys: kOneKey, acl: ['read', 'sortedset', 'fast'],
  group: 'sorted-set', since: '1.2.0', summary: 'Returns the score of a member in a sorted set.', complexity: 'O(1)',
  run: (s, argv) => exec(s, kZsetSql.score, [dbArg(s), argv[1], argv[2], nowArg()],
    typedRead(KeyType.Zset, null, (rows) => dbl(rows[0][1]))),
});

export const zmscore = defineCommand({
  name: 'zmscore', arity: -3, flags: ['readonly', 'fast'], keys: kOneKey, acl: ['read', 'sortedset', 'fast'],
  group: 'sorted-set', since: '6.2.0', summary: 'Returns the score of one or more members in a sorted set.',
  complexity: 'O(N) where N is the number of members being requested.',
  run(s, argv) {
    const nils = (): Reply[] => new Array(argv.length - 2).fill(null);
    return exec(s, kZsetSql.mscore, [dbArg(s), argv[1], encodeBufferArray(argv.slice(2)), nowArg()], typedRead(KeyType.Zset, nils(), (rows) => {
      const out = nils();
      for (const r of rows) out[(r[1] as number) - 1] = dbl(r[2]);
      return out;
    }));
  },
});
