/**
 * ZUNION | ZINTER | ZDIFF numkeys key [key …] [WEIGHTS w …] [AGGREGATE SUM|MIN|MAX] [WITHSCORES]
 * and ZUNIONSTORE | ZINTERSTORE | ZDIFFSTORE destination numkeys key … — one generic over the
 * operation and whether the result is stored (z_combine / z_store). Sets count as sorted sets
 * with score 1. As in Redis, the keys' types are checked before the options: an option error on
 * a WRONGTYPE key answers WRONGTYPE.
 * https://redis.io/commands/zunionstore/
 */
import { RespError } from '../../reply';
import { Err } from '../../resp-errors';
import { eqIgnoreCase, parseI64 } from '../args';
import { encodeBufferArray, dbArg, exec, nowArg, statusReply, countNoted } from '../exec';
import { string2d } from '../collection/strtod';
import { defineCommand } from '../define';
import { stored } from '../events';
import { kCountedKeys, type CommandSpec } from '../spec';
import { f8Array } from './bounds';
import { elements } from './reply';
import { kZsetSql } from './sql';

export const enum ZsetOp { TypesOnly = 0, Inter = 1, Union = 2, Diff = 3 }

const kWeight = new RespError('ERR weight value is not a float');
const kAggregates = ['sum', 'min', 'max'];

interface Parsed { keys: Buffer[]; weights: number[]; aggregate: number; withScores: boolean; error?: RespError }

function parse(name: string, argv: Buffer[], at: number, op: ZsetOp, store: boolean): Parsed | RespError {
  const n = parseI64(argv[at]);
  if (n === undefined) return Err.notInteger;
  if (n < 1n) return new RespError(`ERR at least 1 input key is needed for '${name}' command`);
  if (n > BigInt(argv.length - at - 1)) return Err.syntax;
  const count = Number(n);
  const out: Parsed = { keys: argv.slice(at + 1, at + 1 + count), weights: [], aggregate: 1, withScores: false };
  for (let j = at + 1 + count; j < argv.length && out.error === undefined;) {
    const left = argv.length - j;
    if (op !== ZsetOp.Diff && left >= count + 1 && eqIgnoreCase(argv[j], 'weights')) {
      j++;
      for (let i = 0; i < count; i++, j++) {
        const w = string2d(argv[j]);
        if (w === undefined) { out.error = kWeight; break; }
        out.weights[i] = w;
      }
    } else if (op !== ZsetOp.Diff && left >= 2 && eqIgnoreCase(argv[j], 'aggregate')) {
      const a = kAggregates.findIndex((x) => eqIgnoreCase(argv[j + 1], x));
      if (a < 0) out.error = Err.syntax;
      out.aggregate = a + 1;
      j += 2;
    } else if (!store && eqIgnoreCase(argv[j], 'withscores')) {
      out.withScores = true;
      j++;
    } else {
      out.error = Err.syntax;
    }
  }
  return out;
}

function combine(name: string, op: ZsetOp, store: boolean, since: string, summary: string): CommandSpec {
  const at = store ? 2 : 1;
  return defineCommand({
    name, arity: store ? -4 : -3, flags: store ? ['write', 'denyoom'] : ['readonly'],
    events: store ? stored(name) : undefined,
    keys: store ? { first: 1, last: 1, step: 1, numkeysAt: 2 } : kCountedKeys, acl: [store ? 'write' : 'read', 'sortedset', 'slow'],
    group: 'sorted-set', since, summary,
    complexity: 'O(N)+O(M*log(M)) with N being the sum of the sizes of the input sorted sets, and M being the number of elements in the resulting sorted set.',
    run(s, argv) {
      const p = parse(name, argv, at, op, store);
      if (p instanceof RespError) return p;
      const keys = encodeBufferArray(p.keys);
      if (p.error !== undefined) {
        const error = p.error;
        return exec(s, kZsetSql.combine, [dbArg(s), String(ZsetOp.TypesOnly), keys, '{}', '1', nowArg()], statusReply({}, () => error));
      }
      const weights = f8Array(p.keys.map((_, i) => p.weights[i] ?? 1));
      if (store) {
        return exec(s, kZsetSql.store, [dbArg(s), argv[1], String(op), keys, weights, String(p.aggregate), nowArg()],
          statusReply({}, countNoted));
      }
      return exec(s, kZsetSql.combine, [dbArg(s), String(op), keys, weights, String(p.aggregate), nowArg()],
        statusReply({}, (rows) => elements(rows, 1, p.withScores, s.proto === 3)));
    },
  });
}

export const zunion = combine('zunion', ZsetOp.Union, false, '6.2.0', 'Returns the union of multiple sorted sets.');
export const zinter = combine('zinter', ZsetOp.Inter, false, '6.2.0', 'Returns the intersect of multiple sorted sets.');
export const zdiff = combine('zdiff', ZsetOp.Diff, false, '6.2.0', 'Returns the difference between multiple sorted sets.');
export const zunionstore = combine('zunionstore', ZsetOp.Union, true, '2.0.0', 'Stores the union of multiple sorted sets in a key.');
export const zinterstore = combine('zinterstore', ZsetOp.Inter, true, '2.0.0', 'Stores the intersect of multiple sorted sets in a key.');
export const zdiffstore = combine('zdiffstore', ZsetOp.Diff, true, '6.2.0', 'Stores the difference of multiple sorted sets in a key.');
