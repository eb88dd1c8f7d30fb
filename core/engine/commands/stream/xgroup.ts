/**
 * XGROUP CREATE key group id|$ [MKSTREAM] [ENTRIESREAD n] | SETID key group id|$ [ENTRIESREAD n]
 * | DESTROY key group | CREATECONSUMER key group consumer | DELCONSUMER key group consumer | HELP.
 * https://redis.io/commands/xgroup/
 */
import { Noted } from '../../pending-reply';
import { RespError, Simple, type Reply } from '../../reply';
import { Err } from '../../resp-errors';
import { eqIgnoreCase, parseI64 } from '../args';
import { dbArg, exec, int8Reply, nowArg } from '../exec';
import { defineCommand } from '../define';
import type { CommandSpec, CommandFlag } from '../spec';
import type { Session } from '../../session';
import { alwaysAt, delConsumerEvents, whenDoneAt } from './events';
import { parseFullId, parseId, kInvalidId, toSql } from './id';
import { noGroupForKey } from './reply';
import { kStreamSql } from './sql';
import { kOk } from '../../shared-replies';

const kNoKey = new RespError('ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically.');
const kBusy = new RespError('BUSYGROUP Consumer Group name already exists');
const kEntriesRead = new RespError('ERR value for ENTRIESREAD must be positive or -1');
const syntaxOf = (sub: string) => new RespError(`ERR unknown subcommand or wrong number of arguments for '${sub}'. Try XGROUP HELP.`);
const kKey2 = { first: 2, last: 2, step: 1 };

interface GroupOpts { mkstream: boolean; entriesRead: bigint }

/** CREATE's / SETID's options from argv[5] */
function parseOpts(argv: Buffer[], create: boolean): GroupOpts | RespError {
  const o: GroupOpts = { mkstream: false, entriesRead: -1n };
  for (let i = 5; i < argv.length;) {
    if (create && eqIgnoreCase(argv[i], 'mkstream')) { o.mkstream = true; i++; } else if (eqIgnoreCase(argv[i], 'entriesread') && i + 1 < argv.length) {
      const n = parseI64(argv[i + 1]);
      if (n === undefined) return Err.notInteger;
      if (n < 0n && n !== -1n) return kEntriesRead;
      o.entriesRead = n;
      i += 2;
    } else {
      return syntaxOf(argv[1].toString('latin1'));
    }
  }
  return o;
}

/** id|$ (strict for CREATE, `-`/`+` allowed for SETID): shifted halves, null for '$' */
function groupId(arg: Buffer, strict: boolean): [bigint | null, bigint | null] | RespError {
  if (arg.length === 1 && arg[0] === 36) return [null, null]; // $
  const id = strict ? parseFullId(arg, 0n, true) : parseId(arg, 0n, false);
  if (id === undefined) return kInvalidId;
  if (id instanceof RespError) return id;
  return [toSql(id.ms), toSql(id.seq!)];
}

function sub(name: string, arity: number, flags: CommandFlag[], summary: string, events: CommandSpec['events'],
  run: (s: Session, argv: Buffer[]) => Reply | PromiseLike<Reply>): CommandSpec {
  return defineCommand({
    name: `xgroup|${name}`, arity, flags, keys: kKey2, acl: ['write', 'stream', 'slow'], events, group: 'stream',
    since: name === 'createconsumer' ? '6.2.0' : '5.0.0', summary, run,
  });
}

/** SETID / DESTROY / CREATECONSUMER / DELCONSUMER through x_group_op */
function op(s: Session, argv: Buffer[], code: number, id: [bigint | null, bigint | null], er: bigint, consumer: Buffer | null) {
  return exec(s, kStreamSql.groupOp, [dbArg(s), argv[2], argv[3], String(code), id[0], id[1], er, consumer, nowArg()], (rows) => {
    const status = rows[0][0] as number;
    if (status === 2) return Err.wrongType;
    if (status === 6) return kNoKey;
    if (status === 5) return noGroupForKey(argv[2], argv[3]);
    if (code === 1) return kOk;
    const n = Number(int8Reply(rows[0][1]));
    // DELCONSUMER notes whether the consumer existed (-1: it did not; the event xgroup-delconsumer)
    return code === 4 ? new Noted(n < 0 ? 0 : n, n < 0 ? 0 : 1) : n < 0 ? 0 : n;
  });
}

const create = sub('create', -5, ['write', 'denyoom'], 'Create a consumer group.', alwaysAt('xgroup-create', 2), (s, argv) => {
  if (argv.length > 8) return syntaxOf(argv[1].toString('latin1'));
  const o = parseOpts(argv, true);
  if (o instanceof RespError) return o;
  const id = groupId(argv[4], true);
  // Redis looks the key up before parsing the id
  if (id instanceof RespError) {
    return exec(s, kStreamSql.type, [dbArg(s), argv[2], nowArg()], (rows) => {
      if (rows.length > 0 && rows[0][0] !== 5) return Err.wrongType;
      return rows.length === 0 && !o.mkstream ? kNoKey : id;
    });
  }
  return exec(s, kStreamSql.groupCreate, [dbArg(s), argv[2], argv[3], id[0], id[1], o.mkstream, o.entriesRead, nowArg()], (rows) => {
    switch (rows[0][0] as number) {
      case 1: return kOk;
      case 2: return Err.wrongType;
      case 3: return kBusy;
      default: return kNoKey;
    }
  });
});

const setid = sub('setid', -5, ['write'], 'Set a consumer group to an arbitrary last delivered ID value.', alwaysAt('xgroup-setid', 2), (s, argv) => {
  if (argv.length !== 5 && argv.length !== 7) return syntaxOf(argv[1].toString('latin1'));
  const o = parseOpts(argv, false);
  if (o instanceof RespError) return o;
  const id = groupId(argv[4], false);
  if (id instanceof RespError) {
    return exec(s, kStreamSql.groupOp, [dbArg(s), argv[2], argv[3], '0', null, null, -1n, null, nowArg()], (rows) => {
      const status = rows[0][0] as number;
      return status === 2 ? Err.wrongType : status === 6 ? kNoKey : status === 5 ? noGroupForKey(argv[2], argv[3]) : id;
    });
  }
  return op(s, argv, 1, id, o.entriesRead, null);
});

const destroy = sub('destroy', 4, ['write'], 'Destroy a consumer group.', whenDoneAt('xgroup-destroy', 2),
  (s, argv) => op(s, argv, 2, [null, null], -1n, null));
const createconsumer = sub('createconsumer', 5, ['write', 'denyoom'], 'Create a consumer in a consumer group.',
  whenDoneAt('xgroup-createconsumer', 2), (s, argv) => op(s, argv, 3, [null, null], -1n, argv[4]));
const delconsumer = sub('delconsumer', 5, ['write'], 'Delete a consumer from a consumer group.', delConsumerEvents,
  (s, argv) => op(s, argv, 4, [null, null], -1n, argv[4]));

const kHelp = [
  'XGROUP <subcommand> [<arg> [value] [opt] ...]. Subcommands are:',
  'CREATE <key> <groupname> <id|$> [option]',
  '    Create a new consumer group. Options are:',
  '    * MKSTREAM',
  '      Create the empty stream if it does not exist.',
  '    * ENTRIESREAD entries_read',
  '      Set the group\'s entries_read counter (internal use).',
  'CREATECONSUMER <key> <groupname> <consumer>',
  '    Create a new consumer in the specified group.',
  'DELCONSUMER <key> <groupname> <consumer>',
  '    Remove the specified consumer.',
  'DESTROY <key> <groupname>',
  '    Remove the specified group.',
  'SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]',
  '    Set the current group ID and entries_read counter.',
  'HELP',
  '    Prints this help.',
].map((l) => new Simple(l));

export const xgroup = defineCommand({
  name: 'xgroup', arity: -2, group: 'stream', since: '5.0.0', acl: ['slow'], summary: 'A container for consumer groups commands.',
  subcommands: [create, setid, destroy, createconsumer, delconsumer, defineCommand({
    name: 'xgroup|help', arity: 2, flags: ['loading', 'stale'], acl: ['stream', 'slow'], group: 'stream', since: '5.0.0',
    summary: 'Returns helpful text about the different subcommands.', run: () => kHelp,
  })],
  run: () => null,
});
