/**
 * dispatch() over a real command table of test commands and a real ReplyQueue: what a
 * connection does with each command.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ReplyWriter } from '../protocol/writer';
import { CommandTable } from '../core/engine/commands/registry';
import { defineCommand } from '../core/engine/commands/define';
import { PendingReply } from '../core/engine/pending-reply';
import { RespError, type Reply } from '../core/engine/reply';
import type { CommandSpec } from '../core/engine/commands/spec';
import { kOk } from '../core/engine/shared-replies';
import { kTransactionCommands } from '../core/engine/commands/transactions';
import { dispatch, type DispatchClient } from './dispatch';
import { ReplyQueue } from './reply-queue';
import { emptyStats } from './state';

const pending: PendingReply[] = [];
const kKey = { first: 1, last: 1, step: 1 };
const table = new CommandTable([
  // a write Postgres answers later: the test settles it
  defineCommand({ name: 'tset', arity: 3, flags: ['write'], keys: kKey, summary: '',
    run: () => { const p = new PendingReply(); pending.push(p); return p; } }),
  defineCommand({ name: 'tselect', arity: 2, flags: ['fast'], summary: '', run: (s, argv) => { s.db = Number(argv[1]); return kOk; } }),
  defineCommand({ name: 'tnow', arity: 2, flags: ['write'], keys: kKey, summary: '', run: () => 1 }),
  defineCommand({ name: 'tlater', arity: 2, flags: ['write'], keys: kKey, summary: '', run: async () => 2 }),
  defineCommand({ name: 'tthrow', arity: 2, flags: ['write'], keys: kKey, summary: '', run: () => { throw new Error('boom'); } }),
  defineCommand({ name: 'tauth', arity: 1, flags: ['no_auth'], summary: '', run: () => kOk }),
  ...kTransactionCommands,
]);

function client(): { c: DispatchClient; out: () => string; records: string[] } {
  const writer = new ReplyWriter();
  const records: string[] = [];
  const state = {
    stats: emptyStats(), log: () => undefined,
    record: (spec: CommandSpec, _started: number, r: Reply) => records.push(`${spec.name}${r instanceof RespError ? '!' : ''}`),
    countError: () => undefined,
  };
  const c = {
    state, replies: new ReplyQueue(writer), closing: false, mustAuth: false, chunkAt: 0, lastCommand: '',
    server: { commands: table }, db: 0, proto: 2, replyOff: false, skipNext: false, multi: undefined, multiAborted: false,
    watched: [], replied: () => c.replies.drain(),
  } as unknown as DispatchClient;
  return { c, out: () => Buffer.concat(writer.take()).toString(), records };
}

const run = (c: DispatchClient, ...words: string[]) => dispatch(c, words.map((w) => Buffer.from(w)));

describe('dispatch', () => {
  it('replies in request order, whenever Postgres answers', () => {
    const { c, out, records } = client();
    pending.length = 0;
    run(c, 'tset', 'k', 'v');
    run(c, 'tselect', '5'); // pipelined: runs before the write's reply comes
    run(c, 'tnow', 'n');
    assert.equal(c.db, 5);
    assert.equal(out(), '');
    pending[0].settle(kOk);
    assert.equal(out(), '+OK\r\n+OK\r\n:1\r\n');
    assert.deepEqual(records, ['tselect', 'tnow', 'tset']);
  });

  it('errors, throws and refusals are replies in their place', async () => {
    const { c, out } = client();
    pending.length = 0;
    run(c, 'tset', 'k', 'v');
    pending[0].settle(new RespError('WRONGTYPE Operation against a key holding the wrong kind of value'));
    run(c, 'tthrow', 'k');
    run(c, 'tset', 'k'); // arity
    run(c, 'nosuch');
    (c as { mustAuth: boolean }).mustAuth = true;
    run(c, 'tnow', 'k');
    run(c, 'tauth');
    assert.match(out(), /^-WRONGTYPE.*\r\n-ERR internal error: boom\r\n-ERR wrong number.*\r\n-ERR unknown command.*\r\n-NOAUTH.*\r\n\+OK\r\n$/);
  });

  it('a Promise reply takes its slot; inside MULTI commands are queued, not run', async () => {
    const { c, out } = client();
    run(c, 'tlater', 'p');
    await new Promise((r) => setImmediate(r));
    run(c, 'multi');
    run(c, 'tnow', 'q');
    assert.equal(c.multi?.length, 1);
    assert.equal(out(), ':2\r\n+OK\r\n+QUEUED\r\n');
  });
});
