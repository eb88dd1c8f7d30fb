/** Every command PostRESP serves, in one table. */
import { cluster } from './server/cluster';
import { CommandTable } from './registry';
import type { CommandSpec } from './spec';
import { auth } from './connection/auth';
import { client } from './connection/client';
import { echo } from './connection/echo';
import { asking, readonlyCommand, readwrite } from './connection/cluster-only';
import { hello } from './connection/hello';
import { ping } from './connection/ping';
import { quit } from './connection/quit';
import { reset } from './connection/reset';
import { select } from './connection/select';
import { command } from './server/command';
import { config } from './server/config';
import { debug } from './server/debug';
import { info } from './server/info';
import { latency } from './server/latency';
import { save, bgsave, lastsave } from './server/save';
import { shutdown } from './server/shutdown';
import { time } from './server/time';
import { aclCommand } from './server/acl';
import { kKeyCommands } from './keys';
import { kStringCommands } from './string';
import { kTransactionCommands } from './transactions';
import { kHashCommands } from './hash';
import { kSetCommands } from './set';
import { kListCommands } from './list';
import { kZsetCommands } from './zset';
import { kScriptingCommands } from './scripting';
import { kStreamCommands } from './stream';
import { kPubsubCommands } from './pubsub';
import { kHyperLogLogCommands } from './hyperloglog';
import { kGeoCommands } from './geo';
import { kSortCommands } from './sort';
import { kBitmapCommands } from './bitmap';
import { kDumpCommands } from './dump';

export const kConnectionCommands: CommandSpec[] = [auth, client, echo, hello, ping, quit, reset, select, readonlyCommand, readwrite, asking];
export const kServerCommands: CommandSpec[] = [aclCommand, cluster, command, config, debug, info, latency, save, bgsave, lastsave, shutdown, time];

/** Each family's index lists its commands; adding a family = one import and one spread here. */
export function allCommands(): CommandSpec[] {
  return [...kConnectionCommands, ...kServerCommands, ...kStringCommands, ...kKeyCommands, ...kTransactionCommands,
    ...kHashCommands, ...kSetCommands, ...kListCommands,
    ...kZsetCommands,
    ...kScriptingCommands, ...kStreamCommands, ...kPubsubCommands, ...kHyperLogLogCommands, ...kGeoCommands, ...kSortCommands, ...kBitmapCommands, ...kDumpCommands];
}

export function buildCommandTable(): CommandTable {
  return new CommandTable(allCommands());
}
