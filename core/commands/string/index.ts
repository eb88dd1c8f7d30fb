/** String commands. */
import type { CommandSpec } from '../spec';
import { get } from './get';
import { decr, decrby, incr, incrby } from './incr';
import { mget } from './mget';
import { mset } from './mset';
import { set } from './set';

export const kStringCommands: CommandSpec[] = [get, set, mget, mset, incr, decr, incrby, decrby];
