/** Set commands (rows in the sets table; docs/collections.md). */
import type { CommandSpec } from '../spec';
import { sadd, srem } from './sadd';
import { scard } from './scard';
import { sdiff, sinter, sunion } from './sinter';
import { sintercard } from './sintercard';
import { sismember, smismember } from './sismember';
import { smembers } from './smembers';
import { smove } from './smove';
import { spop } from './spop';
import { srandmember } from './srandmember';
import { sscan } from './sscan';
import { sdiffstore, sinterstore, sunionstore } from './sstore';

export const kSetCommands: CommandSpec[] = [
  sadd, srem, scard, sismember, smismember, smembers, srandmember, spop, smove, sinter, sintercard, sunion, sdiff,
  sinterstore, sunionstore, sdiffstore, sscan,
];
