/**
 * SADD key member [member …] | SREM key member [member …] — members added / removed; one
 * generic. The key is created by its first member and goes with its last.
 * https://redis.io/commands/sadd/
 */
import { dbArg, exec, int8Reply, nowArg, statusReply } from '../exec';
import { distinct } from '../collection/args';
import { defineCommand } from '../define';
import { whenDone, whenRemoved } from '../events';
import { kOneKey, type CommandSpec } from '../spec';
import { kSetSql } from './sql';

function change(name: 'sadd' | 'srem', summary: string): CommandSpec {
  const stmt = name === 'sadd' ? kSetSql.add : kSetSql.rem;
  return defineCommand({
    name, arity: -3, flags: name === 'sadd' ? ['write', 'denyoom', 'fast'] : ['write', 'fast'], keys: kOneKey,
    events: name === 'sadd' ? whenDone('sadd') : whenRemoved('srem'),
    acl: ['write', 'set', 'fast'], group: 'set', since: '1.0.0', summary,
    complexity: `O(1) for each element ${name === 'sadd' ? 'added' : 'removed'}, so O(N) for N elements.`,
    // members as a Buffer[] (encoded as bytea[] by the connection): the lane merges consecutive
    // SADDs to one key into one call (workers/storage/sadd-run.ts)
    run: (s, argv) => exec(s, stmt, [dbArg(s), argv[1], distinct(argv.slice(2)), nowArg()],
      statusReply({}, (rows) => int8Reply(rows[0][1]))),
  });
}

export const sadd = change('sadd', 'Adds one or more members to a set. Creates the key if it doesn\'t exist.');
export const srem = change('srem', 'Removes one or more members from a set. Deletes the set if the last member was removed.');
