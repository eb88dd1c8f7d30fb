/** List commands (rows in the lists table; docs/collections.md). */
import type { CommandSpec } from '../spec';
import { blmove, brpoplpush } from './blmove';
import { blmpop } from './blmpop';
import { blpop, brpop } from './blpop';
import { lindex } from './lindex';
import { linsert } from './linsert';
import { llen } from './llen';
import { lmove, rpoplpush } from './lmove';
import { lmpop } from './lmpop';
import { lpop, rpop } from './lpop';
import { lpos } from './lpos';
import { lpush, lpushx, rpush, rpushx } from './lpush';
import { lrange } from './lrange';
import { lrem } from './lrem';
import { lset } from './lset';
import { ltrim } from './ltrim';

export const kListCommands: CommandSpec[] = [
  lpush, rpush, lpushx, rpushx, lpop, rpop, llen, lrange, lindex, lset, linsert, lrem, ltrim, lpos, lmove, rpoplpush, lmpop,
  blpop, brpop, brpoplpush, blmove, blmpop,
];
