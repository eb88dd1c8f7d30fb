/**
 * SWAPDB index1 index2 — swaps two databases in one transaction (swap_db): clients of either
 * see all of one or all of the other. Writers wait for it; it costs a write per key (Redis: O(1)).
 * https://redis.io/commands/swapdb/
 */
import { RespError } from '../../reply';
import { Err } from '../../resp-errors';
import { kOk } from '../../shared-replies';
import { parseI64 } from '../args';
import { defineCommand } from '../define';
import { swapdbEvents } from './events';
import { nowArg } from '../exec';
import { kKeySql } from './sql';

const kBad = [new RespError('ERR invalid first DB index'), new RespError('ERR invalid second DB index')];

export const swapdb = defineCommand({
  name: 'swapdb', arity: 3, flags: ['write', 'fast'], acl: ['keyspace', 'write', 'fast', 'dangerous'],
  events: swapdbEvents,
  group: 'server', since: '4.0.0', summary: 'Swaps two Redis databases.', complexity: 'O(N) where N is the count of keys in both databases',
  run(s, argv) {
    const ids: number[] = [];
    for (const i of [0, 1]) {
      const v = parseI64(argv[i + 1]);
      if (v === undefined || v < -2147483648n || v > 2147483647n) return kBad[i];
      ids.push(Number(v));
    }
    const n = s.server.config.int('databases');
    if (ids.some((id) => id < 0 || id >= n)) return Err.dbIndex;
    return s.server.store.exec(s, kKeySql.swapdb, [...ids.map(String), nowArg()], () => kOk);
  },
});
