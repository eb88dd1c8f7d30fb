/**
 * SINTER key [key …] | SUNION key [key …] | SDIFF key [key …] — one generic over the operation
 * (s_combine: missing keys are empty sets, any other type is WRONGTYPE). A set in RESP3.
 * https://redis.io/commands/sinter/
 */
import { RespSet } from '../../reply';
import { encodeBufferArray, dbArg, exec, nowArg, statusReply } from '../exec';
import { defineCommand } from '../define';
import { kAllKeys, type CommandSpec } from '../spec';
import { kSetSql } from './sql';

export const enum SetOp { Inter = 1, Union = 2, Diff = 3 }

function combine(name: string, op: SetOp, summary: string, complexity: string): CommandSpec {
  return defineCommand({
    name, arity: -2, flags: ['readonly'], keys: kAllKeys, acl: ['read', 'set', 'slow'], group: 'set', since: '1.0.0',
    tips: ['nondeterministic_output_order'],
    summary, complexity,
    run: (s, argv) => exec(s, kSetSql.combine, [dbArg(s), String(op), encodeBufferArray(argv.slice(1)), '0', nowArg()],
      (rows) => (rows.length === 0 ? new RespSet([]) : statusReply({}, () => new RespSet(rows.map((r) => r[1] as Buffer)))(rows))),
  });
}

export const sinter = combine('sinter', SetOp.Inter, 'Returns the intersect of multiple sets.',
  'O(N*M) worst case where N is the cardinality of the smallest set and M is the number of sets.');
export const sunion = combine('sunion', SetOp.Union, 'Returns the union of multiple sets.',
  'O(N) where N is the total number of elements in all given sets.');
export const sdiff = combine('sdiff', SetOp.Diff, 'Returns the difference of multiple sets.',
  'O(N) where N is the total number of elements in all given sets.');
