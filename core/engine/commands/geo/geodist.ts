/**
 * GEODIST key member1 member2 [M | KM | FT | MI] — the distance, "%.4f" in the unit; nil when
 * the key or a member is missing. The unit is checked before the key, as in Redis.
 * https://redis.io/commands/geodist/
 */
import { KeyType } from '../../key-store';
import { RespError } from '../../reply';
import { Err } from '../../resp-errors';
import { dbArg, exec, nowArg, typedRead } from '../exec';
import { defineCommand } from '../define';
import { kOneKey } from '../spec';
import { unit } from './args';
import { fixed } from './fixed';
import { kGeoSql } from './sql';

export const geodist = defineCommand({
  name: 'geodist', arity: -4, flags: ['readonly'], keys: kOneKey, acl: ['geo'], group: 'geo', since: '3.2.0',
  summary: 'Returns the distance between two members of a geospatial index.', complexity: 'O(log(N))',
  run(s, argv) {
    if (argv.length > 5) return Err.syntax;
    const conv = argv.length === 5 ? unit(argv[4]) : 1;
    if (conv instanceof RespError) return conv;
    return exec(s, kGeoSql.dist, [dbArg(s), argv[1], argv[2], argv[3], nowArg()], typedRead(KeyType.Zset, null, (rows) =>
      (rows[0][1] === null ? null : Buffer.from(fixed((rows[0][1] as number) / conv, 4)))));
  },
});
