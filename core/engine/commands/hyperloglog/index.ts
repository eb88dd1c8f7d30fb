/** HyperLogLog commands: Redis's representation in string values (docs/hyperloglog.md). */
import type { CommandSpec } from '../spec';
import { pfadd } from './pfadd';
import { pfcount } from './pfcount';
import { pfdebug } from './pfdebug';
import { pfmerge } from './pfmerge';

export const kHyperLogLogCommands: CommandSpec[] = [pfadd, pfcount, pfmerge, pfdebug];
