/** Generic key-space commands. */
import type { CommandSpec } from '../spec';
import { dbsize } from './dbsize';
import { del } from './del';
import { exists } from './exists';
import { flushall, flushdb } from './flush';

export const kKeyCommands: CommandSpec[] = [del, exists, dbsize, flushdb, flushall];
