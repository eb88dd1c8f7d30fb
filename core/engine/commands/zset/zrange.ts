/**
 * ZRANGE key start stop [BYSCORE | BYLEX] [REV] [LIMIT offset count] [WITHSCORES], its legacy
 * forms (ZREVRANGE, ZRANGEBYSCORE, ZREVRANGEBYSCORE, ZRANGEBYLEX, ZREVRANGEBYLEX) and
 * ZRANGESTORE dst src … — one parser (Redis's zrangeGenericCommand: the legacy forms preset the
 * kind and the direction) and one function, z_range.
 * https://redis.io/commands/zrange/
 */
import { RespError } from '../../reply';
import { Err } from '../../resp-errors';
import { eqIgnoreCase, parseI64 } from '../args';
import { dbArg, exec, int8, nowArg, statusReply, countNoted } from '../exec';
import { defineCommand } from '../define';
import { stored } from '../events';
import { kOneKey, type CommandSpec } from '../spec';
import { f8, parseLexRange, parseScoreRange } from './bounds';
import { elements } from './reply';
import { kZsetSql } from './sql';

export const enum RangeKind { Rank = 0, Score = 1, Lex = 2 }

const kLimitRank = new RespError('ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX');
const kScoresLex = new RespError('ERR syntax error, WITHSCORES not supported in combination with BYLEX');

interface RangeRequest { values: unknown[]; withScores: boolean }

/** argv[at] is the source key; kind/rev undefined = chosen by the options (ZRANGE, ZRANGESTORE). */
export function parseRange(argv: Buffer[], at: number, store: boolean, kind?: RangeKind, rev?: boolean): RangeRequest | RespError {
  let withScores = false;
  let offset = 0n;
  let limit = -1n;
  let hasLimit = false;
  const presetDirection = rev !== undefined;
  for (let j = at + 3; j < argv.length; j++) {
    const left = argv.length - j - 1;
    if (!store && eqIgnoreCase(argv[j], 'withscores')) withScores = true;
    else if (eqIgnoreCase(argv[j], 'limit') && left >= 2) {
      const o = parseI64(argv[j + 1]);
      const l = parseI64(argv[j + 2]);
      if (o === undefined || l === undefined) return Err.notInteger;
      offset = o; limit = l; hasLimit = true;
      j += 2;
    } else if (!presetDirection && rev === undefined && eqIgnoreCase(argv[j], 'rev')) rev = true;
    else if (kind === undefined && eqIgnoreCase(argv[j], 'bylex')) kind = RangeKind.Lex;
    else if (kind === undefined && eqIgnoreCase(argv[j], 'byscore')) kind = RangeKind.Score;
    else return Err.syntax;
  }
  kind ??= RangeKind.Rank;
  rev ??= false;
  if (hasLimit && kind === RangeKind.Rank) return kLimitRank;
  if (withScores && kind === RangeKind.Lex) return kScoresLex;
  // BYSCORE / BYLEX with REV take max before min
  const [a, b] = rev && kind !== RangeKind.Rank ? [argv[at + 2], argv[at + 1]] : [argv[at + 1], argv[at + 2]];
  let start = 0n; let stop = 0n; let lo = 0; let hi = 0; let llo: Buffer | null = null; let lhi: Buffer | null = null;
  if (kind === RangeKind.Rank) {
    const x = parseI64(a);
    const y = parseI64(b);
    if (x === undefined || y === undefined) return Err.notInteger;
    start = x; stop = y;
  } else if (kind === RangeKind.Score) {
    const r = parseScoreRange(a, b);
    if (r instanceof RespError) return r;
    ({ lo, hi } = r);
  } else {
    const r = parseLexRange(a, b);
    if (r instanceof RespError) return r;
    llo = r.lo; lhi = r.hi;
  }
  const values = [String(kind), rev ? 'true' : 'false', int8(start), int8(stop), f8(lo), f8(hi), llo, lhi,
    int8(offset), limit < 0n ? null : int8(limit)];
  return { values, withScores };
}

interface Variant { name: string; kind?: RangeKind; rev?: boolean; since: string; summary: string; arity: number }

function zrangeLike(v: Variant): CommandSpec {
  return defineCommand({
    name: v.name, arity: v.arity, flags: ['readonly'], keys: kOneKey, acl: ['read', 'sortedset', 'slow'],
    group: 'sorted-set', since: v.since, summary: v.summary,
    complexity: 'O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements returned.',
    run(s, argv) {
      const r = parseRange(argv, 1, false, v.kind, v.rev);
      if (r instanceof RespError) return r;
      return exec(s, kZsetSql.range, [dbArg(s), argv[1], ...r.values, nowArg()],
        (rows) => (rows.length === 0 ? [] : statusReply({}, () => elements(rows, 1, r.withScores, s.proto === 3))(rows)));
    },
  });
}

export const zrange = zrangeLike({ name: 'zrange', arity: -4, since: '1.2.0', summary: 'Returns members in a sorted set within a range of indexes.' });
export const zrevrange = zrangeLike({ name: 'zrevrange', arity: -4, kind: RangeKind.Rank, rev: true, since: '1.2.0',
  summary: 'Returns members in a sorted set within a range of indexes in reverse order.' });
export const zrangebyscore = zrangeLike({ name: 'zrangebyscore', arity: -4, kind: RangeKind.Score, rev: false, since: '1.0.5',
  summary: 'Returns members in a sorted set within a range of scores.' });
export const zrevrangebyscore = zrangeLike({ name: 'zrevrangebyscore', arity: -4, kind: RangeKind.Score, rev: true, since: '2.2.0',
  summary: 'Returns members in a sorted set within a range of scores in reverse order.' });
export const zrangebylex = zrangeLike({ name: 'zrangebylex', arity: -4, kind: RangeKind.Lex, rev: false, since: '2.8.9',
  summary: 'Returns members in a sorted set within a lexicographical range.' });
export const zrevrangebylex = zrangeLike({ name: 'zrevrangebylex', arity: -4, kind: RangeKind.Lex, rev: true, since: '2.8.9',
  summary: 'Returns members in a sorted set within a lexicographical range in reverse order.' });

export const zrangestore = defineCommand({
  name: 'zrangestore', arity: -5, flags: ['write', 'denyoom'], keys: { first: 1, last: 2, step: 1 },
  events: stored('zrangestore'),
  acl: ['write', 'sortedset', 'slow'], group: 'sorted-set', since: '6.2.0',
  summary: 'Stores a range of members from sorted set in a key.',
  complexity: 'O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements stored into the destination key.',
  run(s, argv) {
    const r = parseRange(argv, 2, true);
    if (r instanceof RespError) return r;
    return exec(s, kZsetSql.rangeStore, [dbArg(s), argv[2], ...r.values, argv[1], nowArg()],
      statusReply({}, countNoted));
  },
});
