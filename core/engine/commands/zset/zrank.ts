/**
 * ZRANK key member | ZREVRANK key member — the 0-based position in (score, member) order, from
 * the bottom or the top; nil when missing. Counts the index entries before it: O(rank).
 * https://redis.io/commands/zrank/
 */
import { KeyType } from '../../key-store';
import { dbArg, exec, int8Reply, nowArg, typedRead } from '../exec';
import { defineCommand } from '../define';
import { kOneKey, type CommandSpec } from '../spec';
import { kZsetSql } from './sql';

function rank(name: string, rev: boolean, summary: string): CommandSpec {
  return defineCommand({
    name, arity: 3, flags: ['readonly', 'fast'], keys: kOneKey, acl: ['read', 'sortedset', 'fast'],
    group: 'sorted-set', since: '2.0.0', summary, complexity: 'O(log(N))',
    run: (s, argv) => exec(s, kZsetSql.rank, [dbArg(s), argv[1], argv[2], nowArg()], typedRead(KeyType.Zset, null, (rows) => {
      if (!rows[0][3]) return null;
      const below = Number(int8Reply(rows[0][2]));
      return rev ? Number(int8Reply(rows[0][1])) - 1 - below : below;
    })),
  });
}

export const zrank = rank('zrank', false, 'Returns the index of a member in a sorted set ordered by ascending scores.');
export const zrevrank = rank('zrevrank', true, 'Returns the index of a member in a sorted set ordered by descending scores.');
