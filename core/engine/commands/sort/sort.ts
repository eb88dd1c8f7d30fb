/**
 * SORT key [BY pattern] [LIMIT offset count] [GET pattern …] [ASC | DESC] [ALPHA] [STORE dst]
 * and SORT_RO (no STORE) — lists, sets and sorted sets; the work is one statement (sort_run).
 * Options are checked first, then the key's type, as in Redis.
 * https://redis.io/commands/sort/
 */
import { RespError, type Reply } from '../../reply';
import { Noted } from '../../pending-reply';
import { Err } from '../../resp-errors';
import { eqIgnoreCase, parseI64 } from '../args';
import { encodeBufferArray, dbArg, exec, int8, int8Reply, nowArg } from '../exec';
import { defineCommand } from '../define';
import { stored } from '../events';
import type { EventsOf } from '../../write-hook';
import type { CommandSpec } from '../spec';
import { parsePattern, PatternKind, type Pattern } from './pattern';
import { kSortSql } from './sql';

const kNotDouble = new RespError('ERR One or more scores can\'t be converted into double');

interface SortArgs { by: Pattern | null; gets: Pattern[]; desc: boolean; alpha: boolean; start: bigint; count: bigint; store: Buffer | null }

function parse(argv: Buffer[], readonly: boolean): SortArgs | RespError {
  const a: SortArgs = { by: null, gets: [], desc: false, alpha: false, start: 0n, count: -1n, store: null };
  for (let j = 2; j < argv.length; j++) {
    const left = argv.length - j - 1;
    const o = argv[j];
    if (eqIgnoreCase(o, 'asc')) a.desc = false;
    else if (eqIgnoreCase(o, 'desc')) a.desc = true;
    else if (eqIgnoreCase(o, 'alpha')) a.alpha = true;
    else if (eqIgnoreCase(o, 'limit') && left >= 2) {
      const start = parseI64(argv[j + 1]);
      const count = parseI64(argv[j + 2]);
      if (start === undefined || count === undefined) return Err.notInteger;
      a.start = start; a.count = count;
      j += 2;
    } else if (!readonly && eqIgnoreCase(o, 'store') && left >= 1) a.store = argv[++j];
    else if (eqIgnoreCase(o, 'by') && left >= 1) a.by = parsePattern(argv[++j]);
    else if (eqIgnoreCase(o, 'get') && left >= 1) a.gets.push(parsePattern(argv[++j]));
    else return Err.syntax;
  }
  return a;
}

/** BY: 0 sort the elements, 1 no sort (a pattern without `*`), 2 / 3 weights from keys */
function byKind(by: Pattern | null): number {
  if (by === null) return 0;
  return by.kind === PatternKind.String || by.kind === PatternKind.HashField ? by.kind : 1;
}

/** sortGetKeys: the key, and the last STORE's key (LIMIT, GET and BY arguments skipped) */
function sortKeys(argv: Buffer[]): Buffer[] {
  let store: Buffer | undefined;
  for (let i = 2; i < argv.length; i++) {
    if (eqIgnoreCase(argv[i], 'limit')) i += 2;
    else if (eqIgnoreCase(argv[i], 'get') || eqIgnoreCase(argv[i], 'by')) i += 1;
    else if (eqIgnoreCase(argv[i], 'store') && i + 1 < argv.length) store = argv[i + 1];
  }
  return store === undefined ? [argv[1]] : [argv[1], store];
}

/** SORT … STORE: `sortstore` on the destination, or `del` when the result was empty and it existed (the note) */
const sortEvents: EventsOf = (emit, db, argv, reply, note) => {
  const keys = sortKeys(argv);
  if (keys.length > 1) kStored(emit, db, keys, reply, note);
};
const kStored = stored('sortstore');

function sortCommand(name: string, readonly: boolean, since: string, summary: string): CommandSpec {
  return defineCommand({
    name, arity: -2, flags: readonly ? ['readonly', 'movablekeys'] : ['write', 'denyoom', 'movablekeys'],
    keys: { first: 1, last: 1, step: 1 }, acl: ['set', 'sortedset', 'list', 'dangerous'], group: 'generic', since, summary,
    complexity: 'O(N+M*log(M)) where N is the number of elements in the list or set to sort, and M the number of returned elements. When the elements are not sorted, complexity is O(N).',
    getKeys: readonly ? (argv) => [argv[1]] : sortKeys,
    events: readonly ? undefined : sortEvents,
    run(s, argv) {
      const a = parse(argv, readonly);
      if (a instanceof RespError) return a;
      const none = Buffer.alloc(0);
      const values = [dbArg(s), argv[1], String(byKind(a.by)), a.by?.pre ?? none, a.by?.post ?? none, a.by?.field ?? none,
        `{${a.gets.map((g) => g.kind).join(',')}}`, encodeBufferArray(a.gets.map((g) => g.pre)),
        encodeBufferArray(a.gets.map((g) => g.post)), encodeBufferArray(a.gets.map((g) => g.field)),
        a.desc ? 'true' : 'false', a.alpha ? 'true' : 'false', int8(a.start), int8(a.count), a.store, nowArg()];
      return exec(s, kSortSql.run, values, (rows) => {
        const status = rows.length === 0 ? 1 : (rows[0][0] as number);
        if (status === 2) return Err.wrongType;
        if (status === 8) return kNotDouble;
        if (a.store !== null) return new Noted(int8Reply(rows[0][1]), rows[0][2] as number);
        return rows.map((r) => r[3] as Reply);
      });
    },
  });
}

export const sort = sortCommand('sort', false, '1.0.0', 'Sorts the elements in a list, a set, or a sorted set, optionally storing the result.');
export const sortRo = sortCommand('sort_ro', true, '7.0.0', 'Returns the sorted elements of a list, a set, or a sorted set.');
