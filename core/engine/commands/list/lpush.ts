/**
 * LPUSH | RPUSH | LPUSHX | RPUSHX key element [element …] — the new length; the X forms only
 * push onto an existing list (0 otherwise). One generic: push(left, onlyExisting).
 * https://redis.io/commands/lpush/
 */
import { dbArg, exec, int8Reply, nowArg, statusReply } from '../exec';
import { defineCommand } from '../define';
import { whenDone } from '../events';
import { kOneKey, type CommandSpec } from '../spec';
import { kListSql } from './sql';

function push(name: string, left: boolean, onlyExisting: boolean, since: string, summary: string): CommandSpec {
  return defineCommand({
    name, arity: -3, flags: ['write', 'denyoom', 'fast'], keys: kOneKey, acl: ['write', 'list', 'fast'],
    events: onlyExisting ? whenDone(left ? 'lpush' : 'rpush') : left ? 'lpush' : 'rpush',
    group: 'list', since, summary,
    complexity: 'O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.',
    // elements as a Buffer[] (the connection encodes it as bytea[]): the lane concatenates the
    // elements of consecutive pushes onto one key into one call (workers/storage/push-run.ts)
    run: (s, argv) => exec(s, kListSql.push,
      [dbArg(s), argv[1], argv.slice(2), left ? 'true' : 'false', onlyExisting ? 'true' : 'false', nowArg()],
      statusReply({}, (rows) => int8Reply(rows[0][1]))),
  });
}

export const lpush = push('lpush', true, false, '1.0.0', 'Prepends one or more elements to a list. Creates the key if it doesn\'t exist.');
export const rpush = push('rpush', false, false, '1.0.0', 'Appends one or more elements to a list. Creates the key if it doesn\'t exist.');
export const lpushx = push('lpushx', true, true, '2.2.0', 'Prepends one or more elements to a list only when the list exists.');
export const rpushx = push('rpushx', false, true, '2.2.0', 'Appends an element to a list only when the list exists.');
