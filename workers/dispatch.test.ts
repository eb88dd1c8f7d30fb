/**
 * dispatch() over a real command table of test commands, a real ReplyQueue and WriteHook: what
 * a connection does with each command, and when the write hook hears of it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ReplyWriter } from '../protocol/writer';
import { CommandTable } from '../core/engine/commands/registry';
import { defineCommand } from '../core/engine/commands/define';
import { PendingReply } from '../core/engine/pending-reply';
import { RespError, type Reply } from '../core/engine/reply';
import { WriteHook } from '../core/engine/write-hook';
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
  defineCommand({ name: 'tset', arity: 3, flags: ['write'], keys: kKey, events: 'set', summary: '',
    run: () => { const p = new PendingReply(); pending.push(p); return p; } }),
  defineCommand({ name: 'tselect', arity: 2, flags: ['fast'], summary: '', run: (s, argv) => { s.db = Number(argv[1]); return kOk; } }),
  defineCommand({ name: 'tnow', arity: 2, flags: ['write'], keys: kKey, events: 'now', summary: '', run: () => 1 }),
  defineCommand({ name: 'tlater', arity: 2, flags: ['write'], keys: kKey, events: 'later', summary: '', run: async () => 2 }),
  defineCommand({ name: 'tthrow', arity: 2, flags: ['write'], keys: kKey, events: 'x', summary: '', run: () => { throw new Error('boom'); } }),
  defineCommand({ name: 'tauth', arity: 1, flags: ['no_auth'], summary: '', run: () => kOk }),
  ...kTransactionCommands,
]);

function client(): { c: DispatchClient; out: () => string; reports: unknown[]; records: string[] } {
  const writer = new ReplyWriter();
  const hook = new WriteHook();
  const reports: unknown[] = [];
  hook.listen({ committed: (db, event, key) => reports.push([db, event, key?.toString()]) });
  const records: string[] = [];
  const state = {
    stats: emptyStats(), writeHook: hook, log: () => undefined,
    record: (spec: CommandSpec, _started: number, r: Reply) => records.push(`${spec.name}${r instanceof RespError ? '!' : ''}`),
    countError: () => undefined,
  };
  const c = {
    state, replies: new ReplyQueue(writer), closing: false, mustAuth: false, chunkAt: 0, lastCommand: '',
    server: { commands: table, tracker: { takeHeld: () => undefined, takeFence: () => undefined } }, db: 0, proto: 2, replyOff: false, skipNext: false, multi: undefined, multiAborted: false,
    watched: [], replied: () => c.replies.drain(), user: { full: true }, unackedWrites: 0,
  } as unknown as DispatchClient;
  return { c, out: () => Buffer.concat(writer.take()).toString(), reports, records };
}

const run = (c: DispatchClient, ...words: string[]) => dispatch(c, words.map((w) => Buffer.from(w)));

describe('dispatch', () => {
  it('reports a write once its reply is final, in the db it ran in', () => {
    const { c, out, reports, records } = client();
    pending.length = 0;
    run(c, 'tset', 'k', 'v');
    run(c, 'tselect', '5'); // pipelined: runs before the write's reply comes
    run(c, 'tnow', 'n');
    assert.deepEqual(reports, [[5, 'now', 'n']]);
    assert.equal(out(), '');
    pending[0].settle(kOk);
    assert.deepEqual(reports, [[5, 'now', 'n'], [0, 'set', 'k']]);
    assert.equal(out(), '+OK\r\n+OK\r\n:1\r\n');
    assert.deepEqual(records, ['tselect', 'tnow', 'tset']);
  });

  it('an error reply, a throw or a refusal reports nothing', async () => {
    const { c, out, reports } = client();
    pending.length = 0;
    run(c, 'tset', 'k', 'v');
    pending[0].settle(new RespError('WRONGTYPE Operation against a key holding the wrong kind of value'));
    run(c, 'tthrow', 'k');
    run(c, 'tset', 'k'); // arity
    run(c, 'nosuch');
    (c as { mustAuth: boolean }).mustAuth = true;
    run(c, 'tnow', 'k');
    run(c, 'tauth');
    assert.deepEqual(reports, []);
    assert.match(out(), /^-WRONGTYPE.*\r\n-ERR internal error: boom\r\n-ERR wrong number.*\r\n-ERR unknown command.*\r\n-NOAUTH.*\r\n\+OK\r\n$/);
  });

  it('a Promise reply reports when it resolves; queued commands only when EXEC commits', async () => {
    const { c, out, reports } = client();
    run(c, 'tlater', 'p');
    assert.deepEqual(reports, []);
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(reports, [[0, 'later', 'p']]);
    run(c, 'multi');
    run(c, 'tnow', 'q');
    assert.deepEqual(reports, [[0, 'later', 'p']]);
    assert.equal(out(), ':2\r\n+OK\r\n+QUEUED\r\n');
  });

  it('the before point sees a write before it runs, and nothing else', () => {
    const { c } = client();
    const seen: string[] = [];
    c.state.writeHook.listen({ before: (db, spec) => seen.push(`${db}:${spec.name}`) });
    pending.length = 0;
    run(c, 'tselect', '2');
    run(c, 'tset', 'k', 'v');
    assert.deepEqual(seen, ['2:tset']);
    assert.equal(pending.length, 1);
  });
});
