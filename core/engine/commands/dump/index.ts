/** DUMP and RESTORE in Redis 7.0's serialization (docs/dump.md). */
import type { CommandSpec } from '../spec';
import { dump } from './dump';
import { restore } from './restore';

export const kDumpCommands: CommandSpec[] = [dump, restore];
