/**
 * SINTERSTORE | SUNIONSTORE | SDIFFSTORE destination key [key …] — the result replaces
 * destination (whatever it held; an empty result deletes it); its size. One generic.
 * https://redis.io/commands/sinterstore/
 */
import { encodeBufferArray, dbArg, exec, nowArg, statusReply, countNoted } from '../exec';
import { defineCommand } from '../define';
import { stored } from '../events';
import { kAllKeys, type CommandSpec } from '../spec';
import { kSetSql } from './sql';
import { SetOp } from './sinter';

function store(name: string, op: SetOp, summary: string, complexity: string): CommandSpec {
  return defineCommand({
    name, arity: -3, flags: ['write', 'denyoom'], keys: kAllKeys, acl: ['write', 'set', 'slow'], group: 'set', since: '1.0.0',
    events: stored(name),
    summary, complexity,
    run: (s, argv) => exec(s, kSetSql.store, [dbArg(s), argv[1], String(op), encodeBufferArray(argv.slice(2)), nowArg()],
      statusReply({}, countNoted)),
  });
}

export const sinterstore = store('sinterstore', SetOp.Inter, 'Stores the intersect of multiple sets in a key.',
  'O(N*M) worst case where N is the cardinality of the smallest set and M is the number of sets.');
export const sunionstore = store('sunionstore', SetOp.Union, 'Stores the union of multiple sets in a key.',
  'O(N) where N is the total number of elements in all given sets.');
export const sdiffstore = store('sdiffstore', SetOp.Diff, 'Stores the difference of multiple sets in a key.',
  'O(N) where N is the total number of elements in all given sets.');
