/** Stream commands (entries, nodes, groups, consumers and the PEL in their tables; docs/streams.md). */
import type { CommandSpec } from '../spec';
import { xack } from './xack';
import { xadd } from './xadd';
import { xautoclaim } from './xautoclaim';
import { xclaim } from './xclaim';
import { xdel } from './xdel';
import { xgroup } from './xgroup';
import { xinfo } from './xinfo';
import { xlen } from './xlen';
import { xpending } from './xpending';
import { xrange, xrevrange } from './xrange';
import { xread, xreadgroup } from './xread';
import { xsetid } from './xsetid';
import { xtrim } from './xtrim';

export const kStreamCommands: CommandSpec[] = [
  xadd, xrange, xrevrange, xlen, xdel, xtrim, xread, xreadgroup, xgroup, xack, xpending, xclaim, xautoclaim, xinfo, xsetid,
];
