/**
 * XINFO STREAM key [FULL [COUNT n]] | GROUPS key | CONSUMERS key group | HELP.
 * radix-tree-keys is the node count (stream_nodes); radix-tree-nodes, Redis's internal rax node
 * count, is not modelled: it answers keys + 1.
 * https://redis.io/commands/xinfo/
 */
import { kNullArray, RespError, RespMap, Simple, type Reply } from '../../reply';
import { Err } from '../../resp-errors';
import type { Rows } from '../../key-store';
import type { Session } from '../../session';
import { eqIgnoreCase, parseI64 } from '../args';
import { dbArg, exec, int8Reply, nowArg } from '../exec';
import { defineCommand } from '../define';
import type { CommandFlag, CommandSpec } from '../spec';
import { kNoSuchKey } from '../keys/shared';
import { sqlIdText } from './id';
import { groupLag, pair, type StreamState } from './lag';
import { entryReply, noGroupForKey } from './reply';
import { kStreamSql, kStreamType } from './sql';

const kKey2 = { first: 2, last: 2, step: 1 };
const syntaxOf = (sub: string) => new RespError(`ERR unknown subcommand or wrong number of arguments for '${sub}'. Try XINFO HELP.`);
const num = (v: unknown): number | bigint => int8Reply(v);

function sub(name: string, arity: number, flags: CommandFlag[], summary: string, run: CommandSpec['run'], tips?: string[]): CommandSpec {
  return defineCommand({
    name: `xinfo|${name}`, arity, flags, keys: kKey2, acl: ['read', 'stream', 'slow'], group: 'stream', since: '5.0.0', summary, run, tips,
  });
}

/** the info row (sql.ts kStreamSql.info) as the lag's inputs */
function stateOf(r: unknown[]): StreamState {
  return { len: BigInt(r[1] as string), added: BigInt(r[6] as string), last: pair(r[2], r[3]), first: pair(r[7], r[8]), maxDel: pair(r[4], r[5]) };
}

function streamInfo(s: Session, argv: Buffer[]) {
  let full = false;
  let count: bigint | null = 10n;
  if (argv.length > 3) {
    if (!eqIgnoreCase(argv[3], 'full')) return syntaxOf(argv[1].toString('latin1'));
    full = true;
    if (argv.length > 4) {
      if (argv.length !== 6 || !eqIgnoreCase(argv[4], 'count')) return syntaxOf(argv[1].toString('latin1'));
      const n = parseI64(argv[5]);
      if (n === undefined) return Err.notInteger;
      count = n <= 0n ? null : n;
    }
  }
  const key = argv[2];
  const head = exec(s, kStreamSql.info, [dbArg(s), key, nowArg()], (rows) => rows as unknown as Reply);
  const lists = full ? exec(s, kStreamSql.infoFull, [dbArg(s), key, count], (rows) => rows as unknown as Reply) : undefined;
  return Promise.all([head, lists]).then(([hr, lr]) => {
    const rows = hr as unknown as Rows;
    if (rows.length === 0) return kNoSuchKey;
    const r = rows[0];
    if (r[0] !== kStreamType) return Err.wrongType;
    const nodes = Number(r[13]);
    const fields: Reply[] = ['length', num(r[1]), 'radix-tree-keys', nodes, 'radix-tree-nodes', nodes + 1,
      'last-generated-id', sqlIdText(r[2], r[3]), 'max-deleted-entry-id', sqlIdText(r[4], r[5]),
      'entries-added', num(r[6]), 'recorded-first-entry-id', r[7] === null ? '0-0' : sqlIdText(r[7], r[8])];
    if (!full) {
      fields.push('groups', num(r[14]), 'first-entry', r[7] === null ? null : entryReply(r[7], r[8], r[9]),
        'last-entry', r[10] === null ? null : entryReply(r[10], r[11], r[12]));
      return new RespMap(fields);
    }
    fields.push('entries', (lr as unknown as Rows).filter((x) => x[0] === 1).map((x) => entryReply(x[3], x[4], x[5])));
    fields.push('groups', fullGroups(stateOf(r), lr as unknown as Rows));
    return new RespMap(fields);
  });
}

function fullGroups(st: StreamState, rows: Rows): Reply[] {
  const same = (a: unknown, b: Buffer) => Buffer.compare(a as Buffer, b) === 0;
  return rows.filter((g) => g[0] === 2).map((g) => {
    const grp = g[1] as Buffer;
    const er = g[6] === null ? null : BigInt(g[6] as string);
    const lag = groupLag(st, pair(g[3], g[4]), er);
    const pel = rows.filter((p) => p[0] === 3 && same(p[1], grp))
      .map((p) => [sqlIdText(p[3], p[4]), p[2] as Buffer, num(p[6]), num(p[7])]);
    const consumers = rows.filter((c) => c[0] === 4 && same(c[1], grp)).map((c) => new RespMap([
      'name', c[2] as Buffer, 'seen-time', num(c[6]), 'pel-count', num(c[7]),
      'pending', rows.filter((p) => p[0] === 5 && same(p[1], grp) && same(p[2], c[2] as Buffer))
        .map((p) => [sqlIdText(p[3], p[4]), num(p[6]), num(p[7])]),
    ]));
    return new RespMap(['name', grp, 'last-delivered-id', sqlIdText(g[3], g[4]), 'entries-read', er === null ? null : er,
      'lag', lag, 'pel-count', num(g[7]), 'pending', pel, 'consumers', consumers]);
  });
}

const stream = sub('stream', -3, ['readonly'], 'Get information about a stream.', streamInfo);

const groups = sub('groups', 3, ['readonly'], 'List the consumer groups of a stream.', (s, argv) =>
  exec(s, kStreamSql.groups, [dbArg(s), argv[2], nowArg()], (rows) => {
    if (rows.length === 0) return kNoSuchKey;
    if (rows[0][0] !== kStreamType) return Err.wrongType;
    return rows.filter((g) => g[1] !== null).map((g) => {
      const st: StreamState = { len: BigInt(g[7] as string), added: BigInt(g[10] as string), last: pair(g[8], g[9]),
        first: pair(g[13], g[14]), maxDel: pair(g[11], g[12]) };
      const er = g[4] === null ? null : BigInt(g[4] as string);
      return new RespMap(['name', g[1] as Buffer, 'consumers', num(g[5]), 'pending', num(g[6]),
        'last-delivered-id', sqlIdText(g[2], g[3]), 'entries-read', er, 'lag', groupLag(st, pair(g[2], g[3]), er)]);
    });
  }));

const consumers = sub('consumers', 4, ['readonly'], 'List the consumers in a consumer group.', (s, argv) => {
  const now = Date.now();
  return exec(s, kStreamSql.consumers, [dbArg(s), argv[2], argv[3], nowArg(now)], (rows) => {
    if (rows.length === 0) return kNoSuchKey;
    if (rows[0][0] !== kStreamType) return Err.wrongType;
    if (rows[0][1] !== true) return noGroupForKey(argv[2], argv[3]);
    return rows.filter((c) => c[2] !== null).map((c) => new RespMap(['name', c[2] as Buffer, 'pending', num(c[4]),
      'idle', Math.max(0, now - Number(c[3]))]));
  });
}, ['nondeterministic_output']);

const kHelp = [
  'XINFO <subcommand> [<arg> [value] [opt] ...]. Subcommands are:',
  'CONSUMERS <key> <groupname>',
  '    Show consumers of <groupname>.',
  'GROUPS <key>',
  '    Show the stream consumer groups.',
  'STREAM <key> [FULL [COUNT <count>]',
  '    Show information about the stream.',
  'HELP',
  '    Prints this help.',
].map((l) => new Simple(l));

export const xinfo = defineCommand({
  name: 'xinfo', arity: -2, group: 'stream', since: '5.0.0', acl: ['slow'], summary: 'A container for stream introspection commands.',
  subcommands: [stream, groups, consumers, defineCommand({
    name: 'xinfo|help', arity: 2, flags: ['loading', 'stale'], acl: ['stream', 'slow'], group: 'stream', since: '5.0.0',
    summary: 'Returns helpful text about the different subcommands.', run: () => kHelp,
  })],
  run: () => kNullArray,
});
