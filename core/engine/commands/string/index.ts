/** String commands. */
import type { CommandSpec } from '../spec';
import { append } from './append';
import { get } from './get';
import { getdel } from './getdel';
import { getex } from './getex';
import { getrange, substr } from './getrange';
import { getset } from './getset';
import { decr, decrby, incr, incrby } from './incr';
import { incrbyfloat } from './incrbyfloat';
import { lcsCmd } from './lcs';
import { mget } from './mget';
import { mset } from './mset';
import { msetnx } from './msetnx';
import { set } from './set';
import { psetex, setexCmd } from './setex';
import { setnx } from './setnx';
import { setrange } from './setrange';
import { strlen } from './strlen';

export const kStringCommands: CommandSpec[] = [
  get, set, mget, mset, incr, decr, incrby, decrby,
  setnx, setexCmd, psetex, getset, getdel, getex, msetnx, append, strlen, getrange, substr, setrange,
  incrbyfloat, lcsCmd,
];
