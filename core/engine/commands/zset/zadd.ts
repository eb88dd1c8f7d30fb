/**
 * ZADD key [NX | XX] [GT | LT] [CH] [INCR] score member [score member …] — members added (CH:
 * added or changed); with INCR the new score, nil when a condition skipped it. Elements apply in
 * order inside z_add, as in Redis. ZINCRBY key increment member = ZADD key INCR increment member.
 * https://redis.io/commands/zadd/
 */
import { BatchOp } from '../../ops';
import { Noted } from '../../pending-reply';
import { RespDouble, RespError } from '../../reply';
import { Err } from '../../resp-errors';
import { eqIgnoreCase } from '../args';
import { encodeBufferArray, dbArg, exec, int8Reply, nowArg, statusReply } from '../exec';
import { string2d } from '../collection/strtod';
import { defineCommand } from '../define';
import { zaddEvents } from './events';
import { kOneKey } from '../spec';
import { f8Array } from './bounds';
import { kZsetSql } from './sql';
import { kZaddBatch } from './zadd-batch';

export const enum ZaddFlag { Nx = 1, Xx = 2, Gt = 4, Lt = 8, Ch = 16, Incr = 32 }

const kOptions: [string, ZaddFlag][] = [['nx', ZaddFlag.Nx], ['xx', ZaddFlag.Xx], ['ch', ZaddFlag.Ch],
  ['incr', ZaddFlag.Incr], ['gt', ZaddFlag.Gt], ['lt', ZaddFlag.Lt]];
const kNxXx = new RespError('ERR XX and NX options at the same time are not compatible');
const kGtLtNx = new RespError('ERR GT, LT, and/or NX options at the same time are not compatible');
const kIncrPair = new RespError('ERR INCR option supports a single increment-element pair');
const kNaN = new RespError('ERR resulting score is not a number (NaN)');

/** One z_add call: scores already parsed. */
export function zaddExec(s: Parameters<typeof zadd.run>[0], key: Buffer, members: Buffer[], scores: number[], flags: number) {
  const values = [dbArg(s), key, encodeBufferArray(members), f8Array(scores), String(flags & ~ZaddFlag.Ch), nowArg()];
  return exec(s, kZsetSql.add, values, statusReply({ 3: kNaN }, (rows) => {
    if (flags & ZaddFlag.Incr) return rows[0][3] === null ? null : new RespDouble(rows[0][3] as number);
    const added = int8Reply(rows[0][1]);
    const both = Number(added) + Number(int8Reply(rows[0][2]));
    // note: members added or changed (the event `zadd`), which the reply counts only with CH
    return new Noted(flags & ZaddFlag.Ch ? both : added, both);
  }));
}

export const zadd = defineCommand({
  name: 'zadd', arity: -4, flags: ['write', 'denyoom', 'fast'], keys: kOneKey, acl: ['write', 'sortedset', 'fast'],
  events: zaddEvents,
  group: 'sorted-set', since: '1.2.0', summary: 'Adds one or more members to a sorted set, or updates their scores. Creates the key if it doesn\'t exist.',
  complexity: 'O(log(N)) for each item added, where N is the number of elements in the sorted set.',
  run(s, argv) {
    let flags = 0;
    let at = 2;
    for (; at < argv.length; at++) {
      const o = kOptions.find(([word]) => eqIgnoreCase(argv[at], word));
      if (o === undefined) break;
      flags |= o[1];
    }
    const n = argv.length - at;
    if (n === 0 || n % 2 === 1) return Err.syntax;
    if ((flags & ZaddFlag.Nx) && (flags & ZaddFlag.Xx)) return kNxXx;
    const gtLt = flags & (ZaddFlag.Gt | ZaddFlag.Lt);
    if ((gtLt && (flags & ZaddFlag.Nx)) || gtLt === (ZaddFlag.Gt | ZaddFlag.Lt)) return kGtLtNx;
    if ((flags & ZaddFlag.Incr) && n > 2) return kIncrPair;
    const members: Buffer[] = [];
    const scores: number[] = [];
    for (let i = at; i < argv.length; i += 2) {
      const sc = string2d(argv[i]);
      if (sc === undefined) return Err.notFloat;
      scores.push(sc);
      members.push(argv[i + 1]);
    }
    // plain ZADDs (CH aside) on one key merge into one statement (./zadd-batch.ts)
    if ((flags & ~ZaddFlag.Ch) === 0) {
      return s.server.store.submit(s, new BatchOp(kZaddBatch, { db: s.db, key: argv[1], members, scores, ch: flags !== 0 }, null));
    }
    return zaddExec(s, argv[1], members, scores, flags);
  },
});

export const zincrby = defineCommand({
  name: 'zincrby', arity: 4, flags: ['write', 'denyoom', 'fast'], keys: kOneKey, acl: ['write', 'sortedset', 'fast'],
  events: 'zincr',
  group: 'sorted-set', since: '1.2.0', summary: 'Increments the score of a member in a sorted set.',
  complexity: 'O(log(N)) where N is the number of elements in the sorted set.',
  run(s, argv) {
    const by = string2d(argv[2]);
    if (by === undefined) return Err.notFloat;
    return zaddExec(s, argv[1], [argv[3]], [by], ZaddFlag.Incr);
  },
});
