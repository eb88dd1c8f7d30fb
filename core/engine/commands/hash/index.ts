/** Hash commands (rows in the hashes table; docs/collections.md). */
import type { CommandSpec } from '../spec';
import { hdel } from './hdel';
import { hexists } from './hexists';
import { hget } from './hget';
import { hgetall, hkeys, hvals } from './hgetall';
import { hincrby } from './hincrby';
import { hincrbyfloat } from './hincrbyfloat';
import { hlen } from './hlen';
import { hmget } from './hmget';
import { hrandfield } from './hrandfield';
import { hscan } from './hscan';
import { hmset, hset } from './hset';
import { hsetnx } from './hsetnx';
import { hstrlen } from './hstrlen';

export const kHashCommands: CommandSpec[] = [
  hset, hsetnx, hget, hmget, hmset, hdel, hexists, hlen, hstrlen, hkeys, hvals, hgetall, hincrby, hincrbyfloat,
  hrandfield, hscan,
];
