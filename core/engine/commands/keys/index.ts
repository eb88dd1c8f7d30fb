/** Generic key-space commands. */
import type { CommandSpec } from '../spec';
import { copy } from './copy';
import { dbsize } from './dbsize';
import { del } from './del';
import { exists } from './exists';
import { expireat, expireCmd, pexpire, pexpireat } from './expire';
import { flushall, flushdb } from './flush';
import { keys } from './keys';
import { memory } from './memory';
import { move } from './move';
import { object } from './object';
import { persist } from './persist';
import { randomkey } from './randomkey';
import { renameCmd, renamenx } from './rename';
import { scan } from './scan';
import { swapdb } from './swapdb';
import { touch } from './touch';
import { expiretime, pexpiretime, pttl, ttlCmd } from './ttl';
import { type } from './type';
import { unlink } from './unlink';

export const kKeyCommands: CommandSpec[] = [
  del, exists, dbsize, flushdb, flushall,
  unlink, type, expireCmd, pexpire, expireat, pexpireat, ttlCmd, pttl, expiretime, pexpiretime, persist,
  renameCmd, renamenx, copy, move, keys, scan, randomkey, touch, swapdb, object, memory,
];
