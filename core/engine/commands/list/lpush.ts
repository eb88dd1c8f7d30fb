/**
 * LPUSH | RPUSH | LPUSHX | RPUSHX key element [element …] — the new length; the X forms only
 * push onto an existing list (0 otherwise). One generic: push(left, onlyExisting).
 * https://redis.io/commands/lpush/
 */
import { BatchOp } from '../../ops';
import { countReply } from '../exec';
import { defineCommand } from '../define';
import { whenDone } from '../events';
import { kOneKey, type CommandSpec } from '../spec';
import { kPushBatch } from './push-batch';

function push(name: string, left: boolean, onlyExisting: boolean, since: string, summary: string): CommandSpec {
  return defineCommand({
    name, arity: -3, flags: ['write', 'denyoom', 'fast'], keys: kOneKey, acl: ['write', 'list', 'fast'],
    events: onlyExisting ? whenDone(left ? 'lpush' : 'rpush') : left ? 'lpush' : 'rpush',
    group: 'list', since, summary,
    complexity: 'O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.',
    // consecutive pushes onto one key run as one call (./push-batch.ts)
    run: (s, argv) => s.server.store.submit(s,
      new BatchOp(kPushBatch, { db: s.db, key: argv[1], elements: argv.slice(2), left, onlyExisting }, countReply)),
  });
}

export const lpush = push('lpush', true, false, '1.0.0', 'Prepends one or more elements to a list. Creates the key if it doesn\'t exist.');
export const rpush = push('rpush', false, false, '1.0.0', 'Appends one or more elements to a list. Creates the key if it doesn\'t exist.');
export const lpushx = push('lpushx', true, true, '2.2.0', 'Prepends one or more elements to a list only when the list exists.');
export const rpushx = push('rpushx', false, true, '2.2.0', 'Appends an element to a list only when the list exists.');
