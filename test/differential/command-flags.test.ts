/**
 * Differential: the command table's flags against redis-server 7.0.15, as data and as behaviour.
 *
 * COMMAND INFO of every command and subcommand in our table against redis-server
 * 7.0.15, field by field (arity, flags, first/last/step key positions, ACL categories, tips), and
 * COMMAND DOCS's since and group. The names come from the table itself (allCommands), so a command
 * added later is checked without touching this file. Flags matter beyond COMMAND INFO: `no_multi`
 * refuses a command inside MULTI, `no_auth` lets it run before AUTH. Every difference is printed,
 * one line each, before the test fails.
 *
 * Not compared: key specs (ours are simplified: Redis's carry per-key flags such as RM or OW),
 * the subcommand list (we serve a subset), COMMAND DOCS summaries and complexity texts.
 *
 * Then what the flags do, byte for byte: a `no_multi` command (SHUTDOWN) inside MULTI is refused
 * with Redis's text, EXEC answers EXECABORT, and the connection and the server stay up.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { allCommands } from '../../core/engine/commands/index';
import { RawClient, type Value } from '../e2e/resp-client';
import { Oracle, report, type Cmd } from './oracle';

/**
 * Commands we serve that redis-server 7.0.15 does not know (it answers nil): Redis 7.2's
 * COMMAND INFO for them, from its command JSON (client-setinfo.json, client-no-touch.json).
 */
const kNewerThan70: Record<string, Value[]> = {
  'client|setinfo': ['client|setinfo', 4, { set: ['noscript', 'loading', 'stale'] }, 0, 0, 0,
    { set: ['@slow', '@connection'] }, { set: [] }],
  'client|no-touch': ['client|no-touch', 3, { set: ['noscript', 'loading', 'stale'] }, 0, 0, 0,
    { set: ['@slow', '@connection'] }, { set: [] }],
};

const kInfoFields = ['name', 'arity', 'flags', 'first key', 'last key', 'step', 'acl categories', 'tips'];
const kDocFields = ['since', 'group'];

let oracle: Oracle;
before(async () => { oracle = await Oracle.start(['--workers', '1', '--storage-mode', 'unlogged']); });
after(async () => { await oracle.stop(); });

interface Answers { info: Value[]; docs: Map<string, Map<string, Value>> }

const entries = (v: Value): [Value, Value][] => (v as { map: [Value, Value][] }).map;

async function ask(port: number, names: string[]): Promise<Answers> {
  const c = await RawClient.connect(port);
  try {
    // RESP3: flags, categories and tips come as sets, so a set-vs-array difference shows too
    await c.call('HELLO', '3');
    const info = await c.call('COMMAND', 'INFO', ...names) as Value[];
    const docs = new Map(entries(await c.call('COMMAND', 'DOCS', ...names))
      .map(([name, doc]) => [String(name), new Map(entries(doc).map(([k, v]) => [String(k), v]))]));
    return { info, docs };
  } finally {
    c.close();
  }
}

const show = (v: Value | undefined): string => JSON.stringify(v);

describe('COMMAND INFO and DOCS against redis-server 7.0.15', () => {
  it('has Redis\'s arity, flags, key positions, ACL categories, tips, since and group for every command we serve', async () => {
    const names = allCommands().flatMap((c) => [c.name, ...(c.subcommands ?? []).map((s) => s.name)]);
    const [redis, ours] = await Promise.all([ask(oracle.redis.port, names), ask(oracle.postresp.port, names)]);
    assert.equal(ours.info.length, names.length);
    const diffs: string[] = [];
    names.forEach((name, i) => {
      const want = (redis.info[i] ?? kNewerThan70[name]) as Value[] | null | undefined;
      const got = ours.info[i] as Value[] | null;
      if (want === null || want === undefined) { diffs.push(`${name}: redis-server does not know it`); return; }
      if (got === null) { diffs.push(`${name}: we answer nil`); return; }
      kInfoFields.forEach((field, f) => {
        if (show(want[f]) !== show(got[f])) diffs.push(`${name}: ${field} redis ${show(want[f])} postresp ${show(got[f])}`);
      });
      const wantDoc = redis.docs.get(name);
      if (wantDoc === undefined) return; // newer than 7.0: checked above from Redis 7.2's JSON
      for (const field of kDocFields) {
        const [w, g] = [wantDoc.get(field), ours.docs.get(name)?.get(field)];
        if (show(w) !== show(g)) diffs.push(`${name}: docs ${field} redis ${show(w)} postresp ${show(g)}`);
      }
    });
    assert.ok(names.length > 150, `${names.length} names`);
    assert.deepEqual(diffs, [], `${diffs.length} differences from redis-server:\n${diffs.join('\n')}`);
  });
});

describe('no_multi commands inside MULTI, against redis-server 7.0.15', () => {
  it('refuses SHUTDOWN, flags the transaction (EXECABORT) and keeps the connection; WATCH answers its own error', async () => {
    await oracle.reset();
    const sessions: Cmd[][] = [
      [['MULTI'], ['SHUTDOWN'], ['EXEC'], ['PING']],
      [['MULTI'], ['SET', 'a', '1'], ['shutdown', 'NOSAVE'], ['EXEC'], ['GET', 'a'], ['PING']],
      [['MULTI'], ['SHUTDOWN'], ['DISCARD'], ['EXEC'], ['PING']],
      [['MULTI'], ['WATCH', 'x'], ['SET', 'b', '2'], ['EXEC'], ['GET', 'b'], ['PING']],
      [['MULTI'], ['SHUTDOWN', 'bogus', 'args'], ['NOSUCH'], ['EXEC'], ['ECHO', 'still here']],
    ];
    for (const window of [1, Infinity]) {
      const r = await oracle.compare(sessions, { window, idleMs: 5000 });
      assert.equal(r.mismatches.length, 0, report(`window ${window}`, 0, r));
      await oracle.reset();
    }
    // nothing was shut down: both servers still answer on a new connection
    const again = await oracle.compare([[['PING']]]);
    assert.equal(again.mismatches.length, 0, report('after', 0, again));
  });
});

describe('COMMAND GETKEYS against redis-server 7.0.15', () => {
  it('reads keys from positions and key counts, with Redis\'s errors', async () => {
    const g = (...args: string[]): Cmd => ['COMMAND', 'GETKEYS', ...args];
    const session: Cmd[] = [
      g('GET', 'k'), g('mset', 'a', '1', 'b', '2'), g('MSET', 'a', '1', 'b'), g('ZUNIONSTORE', 'd', '2', 'a', 'b'),
      g('ZUNIONSTORE', 'd', '1', 'a', 'b'), g('ZUNIONSTORE', 'd', '3', 'a', 'b'), g('ZUNIONSTORE', 'd', '0', 'a'),
      g('ZUNIONSTORE', 'd', '-1', 'a'), g('ZUNION', '2', 'a', 'b', 'WEIGHTS', '1', '2'), g('ZDIFFSTORE', 'd', '1', 'a'),
      g('LMPOP', '2', 'a', 'b', 'LEFT'), g('LMPOP', 'x', 'a', 'b'), g('LMPOP', '1', 'a'), g('ZMPOP', '1', 'a', 'MIN'),
      g('SINTERCARD', '2', 'a', 'b', 'LIMIT', '1'), g('TIME', 'x'), g('CLIENT', 'ID'), g('OBJECT', 'ENCODING', 'k'),
      g('object', 'nosuch', 'k'), g('MEMORY', 'USAGE', 'k'), g('SET', 'a'), g('NOSUCH', 'a'), g('GET'),
    ];
    const r = await oracle.compare([session]);
    assert.equal(r.mismatches.length, 0, report('COMMAND GETKEYS', 0, r));
  });
});
