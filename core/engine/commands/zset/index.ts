/** Sorted-set commands (rows in the zsets table; docs/collections.md). */
import type { CommandSpec } from '../spec';
import { zadd, zincrby } from './zadd';
import { zcard } from './zcard';
import { zdiff, zdiffstore, zinter, zinterstore, zunion, zunionstore } from './zcombine';
import { zintercard } from './zintercard';
import { zcount, zlexcount } from './zcount';
import { bzmpop } from './bzmpop';
import { bzpopmax, bzpopmin } from './bzpop';
import { zmpop } from './zmpop';
import { zpopmax, zpopmin } from './zpop';
import { zrandmember } from './zrandmember';
import { zrange, zrangebylex, zrangebyscore, zrangestore, zrevrange, zrevrangebylex, zrevrangebyscore } from './zrange';
import { zrank, zrevrank } from './zrank';
import { zrem } from './zrem';
import { zremrangebylex, zremrangebyrank, zremrangebyscore } from './zremrange';
import { zscan } from './zscan';
import { zmscore, zscore } from './zscore';

export const kZsetCommands: CommandSpec[] = [
  zadd, zincrby, zrem, zcard, zscore, zmscore, zrank, zrevrank, zcount, zlexcount, zrange, zrangestore, zrevrange,
  zrangebyscore, zrevrangebyscore, zrangebylex, zrevrangebylex, zpopmin, zpopmax, zmpop, zremrangebyrank, zremrangebyscore,
  zremrangebylex, zrandmember, zunionstore, zinterstore, zdiffstore, zunion, zinter, zdiff, zintercard, zscan,
  bzpopmin, bzpopmax, bzmpop,
];
