/** End to end: the real server on port 0, raw RESP bytes, connection and server commands. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RawClient, encode } from './resp-client';
import { startServer, type RunningServer } from './start-server';

let server: RunningServer;
before(async () => { server = await startServer(['--workers', '2']); });
after(async () => { await server.stop(); });

async function client(): Promise<RawClient> {
  return RawClient.connect(server.port);
}

describe('connection commands over raw RESP', () => {
  it('answers PING, PING msg, ECHO', async () => {
    const c = await client();
    assert.equal(await c.call('PING'), 'PONG');
    assert.equal(await c.call('ping', 'hello'), 'hello');
    assert.equal(await c.call('ECHO', Buffer.from([0, 255, 13, 10])), '\x00\xff\r\n');
    c.close();
  });

  it('answers inline commands as telnet sends them', async () => {
    const c = await client();
    c.send('PING\r\nECHO "a b"\r\n\r\nping \'x\'\n');
    assert.deepEqual(await c.read(3), ['PONG', 'a b', 'x']);
    c.close();
  });

  it('uses Redis 7 texts for unknown commands and arity', async () => {
    const c = await client();
    assert.deepEqual(await c.call('foo', 'a', 'b'), { error: "ERR unknown command 'foo', with args beginning with: 'a' 'b' " });
    assert.deepEqual(await c.call('echo'), { error: "ERR wrong number of arguments for 'echo' command" });
    assert.deepEqual(await c.call('ping', 'a', 'b'), { error: "ERR wrong number of arguments for 'ping' command" });
    assert.deepEqual(await c.call('client', 'setname'), { error: "ERR wrong number of arguments for 'client|setname' command" });
    assert.deepEqual(await c.call('client', 'foo'), { error: "ERR unknown subcommand 'foo'. Try CLIENT HELP." });
    c.close();
  });

  it('keeps replies in request order across a long pipeline', async () => {
    const c = await client();
    const parts: Buffer[] = [];
    for (let i = 0; i < 2000; i++) parts.push(encode('ECHO', String(i)), encode('CLIENT', 'ID'));
    c.send(Buffer.concat(parts));
    const replies = await c.read(4000);
    for (let i = 0; i < 2000; i++) assert.equal(replies[2 * i], String(i));
    assert.equal(typeof replies[1], 'number');
    c.close();
  });

  it('replies to a protocol error and closes the connection', async () => {
    const c = await client();
    c.send('*1\r\n$4\r\nPING\r\n*1\r\nx\r\n');
    const replies = await c.read(2);
    assert.deepEqual(replies, ['PONG', { error: "ERR Protocol error: expected '$', got 'x'" }]);
    await c.waitClosed();
  });

  it('does not allocate a huge bulk up front', async () => {
    const c = await client();
    c.send('*2\r\n$4\r\nECHO\r\n$4294967296\r\n');
    assert.deepEqual(await c.read(1), [{ error: 'ERR Protocol error: invalid bulk length' }]);
    await c.waitClosed();
  });

  it('SELECT checks the index', async () => {
    const c = await client();
    assert.equal(await c.call('SELECT', '15'), 'OK');
    assert.deepEqual(await c.call('SELECT', '16'), { error: 'ERR DB index is out of range' });
    assert.deepEqual(await c.call('SELECT', 'x'), { error: 'ERR value is not an integer or out of range' });
    c.close();
  });

  it('CLIENT SETNAME/GETNAME/ID/INFO/LIST/SETINFO', async () => {
    const c = await client();
    assert.equal(await c.call('CLIENT', 'GETNAME'), null);
    assert.equal(await c.call('CLIENT', 'SETNAME', 'alpha'), 'OK');
    assert.equal(await c.call('CLIENT', 'GETNAME'), 'alpha');
    assert.deepEqual(await c.call('CLIENT', 'SETNAME', 'a b'),
      { error: 'ERR Client names cannot contain spaces, newlines or special characters.' });
    assert.equal(await c.call('CLIENT', 'SETINFO', 'LIB-NAME', 'ioredis'), 'OK');
    const id = await c.call('CLIENT', 'ID');
    const infoLine = String(await c.call('CLIENT', 'INFO'));
    assert.match(infoLine, new RegExp(`^id=${id} addr=127\\.0\\.0\\.1:\\d+ .*name=alpha .*lib-name=ioredis`));
    const other = await client();
    await other.call('CLIENT', 'SETNAME', 'beta');
    const list = String(await c.call('CLIENT', 'LIST'));
    assert.match(list, /name=alpha/);
    assert.match(list, /name=beta/);
    assert.equal(list.trim().split('\n').length >= 2, true);
    other.close();
    c.close();
  });

  it('CLIENT KILL closes a client on any worker', async () => {
    const a = await client();
    const b = await client();
    const bid = await b.call('CLIENT', 'ID');
    assert.equal(await a.call('CLIENT', 'KILL', 'ID', String(bid)), 1);
    await b.waitClosed();
    assert.equal(await a.call('CLIENT', 'KILL', 'ID', '999999'), 0);
    assert.deepEqual(await a.call('CLIENT', 'KILL', '1.2.3.4:5'), { error: 'ERR No such client' });
    a.close();
  });

  it('CLIENT REPLY OFF and SKIP suppress replies', async () => {
    const c = await client();
    c.send(Buffer.concat([
      encode('CLIENT', 'REPLY', 'SKIP'), encode('ECHO', 'skipped'), encode('ECHO', 'one'),
      encode('CLIENT', 'REPLY', 'OFF'), encode('ECHO', 'hidden'), encode('CLIENT', 'REPLY', 'ON'), encode('ECHO', 'two'),
    ]));
    assert.deepEqual(await c.read(3), ['one', 'OK', 'two']);
    c.close();
  });

  it('HELLO 3 switches to RESP3 and answers the handshake map', async () => {
    const c = await client();
    const r = await c.call('HELLO', '3', 'SETNAME', 'resp3');
    assert.ok(typeof r === 'object' && r !== null && 'map' in r);
    const m = new Map((r as { map: [string, unknown][] }).map);
    assert.equal(m.get('server'), 'redis');
    assert.equal(m.get('proto'), 3);
    assert.equal(m.get('mode'), 'standalone');
    assert.equal(m.get('role'), 'master');
    assert.deepEqual(m.get('modules'), []);
    assert.match(String(m.get('version')), /^7\./);
    // RESP3 null and map on the wire
    c.send(encode('CLIENT', 'GETNAME'));
    assert.equal(await c.read(1).then((v) => v[0]), 'resp3');
    assert.deepEqual(await c.call('HELLO', '4'), { error: 'NOPROTO unsupported protocol version' });
    assert.ok(c.raw.includes(Buffer.from('%7\r\n')));
    c.close();
  });

  it('RESET returns to defaults', async () => {
    const c = await client();
    await c.call('SELECT', '3');
    await c.call('HELLO', '3');
    assert.equal(await c.call('RESET'), 'RESET');
    const line = String(await c.call('CLIENT', 'INFO'));
    assert.match(line, / db=0 /);
    assert.match(line, / resp=2/);
    c.close();
  });

  it('TIME, COMMAND COUNT/INFO/DOCS/GETKEYS/LIST', async () => {
    const c = await client();
    const t = (await c.call('TIME')) as string[];
    assert.ok(Math.abs(Number(t[0]) - Date.now() / 1000) < 5);
    assert.ok(Number(t[1]) >= 0 && Number(t[1]) < 1e6);
    const count = (await c.call('COMMAND', 'COUNT')) as number;
    assert.ok(count >= 14);
    const [pingInfo] = (await c.call('COMMAND', 'INFO', 'ping')) as unknown[][];
    assert.equal(pingInfo[0], 'ping');
    assert.equal(pingInfo[1], -1);
    const list = (await c.call('COMMAND', 'LIST')) as string[];
    assert.ok(list.includes('client|setname'));
    assert.deepEqual(await c.call('COMMAND', 'GETKEYS', 'ping', 'x'), { error: 'ERR The command has no key arguments' });
    const docs = await c.call('COMMAND', 'DOCS', 'echo');
    assert.ok(Array.isArray(docs) && docs[0] === 'echo');
    const all = (await c.call('COMMAND')) as unknown[];
    assert.equal(all.length, count);
    c.close();
  });

  it('CONFIG GET/SET with Redis errors, no-op parameters kept', async () => {
    const c = await client();
    assert.deepEqual(await c.call('CONFIG', 'GET', 'maxclients'), ['maxclients', '10000']);
    assert.equal(await c.call('CONFIG', 'SET', 'hash-max-listpack-entries', '512', 'maxmemory-policy', 'allkeys-lru'), 'OK');
    assert.deepEqual(await c.call('CONFIG', 'GET', 'hash-max-listpack-entries'), ['hash-max-listpack-entries', '512']);
    assert.deepEqual(await c.call('CONFIG', 'SET', 'foo', '1'), { error: "ERR Unknown option or number of arguments for CONFIG SET - 'foo'" });
    assert.deepEqual(await c.call('CONFIG', 'SET', 'maxclients', 'x'),
      { error: "ERR CONFIG SET failed (possibly related to argument 'maxclients') - argument couldn't be parsed into an integer" });
    // memory values are checked as redis-server 7.0.15 checks them, even for maxmemory (no effect here)
    assert.deepEqual(await c.call('CONFIG', 'SET', 'maxmemory', 'bla'),
      { error: "ERR CONFIG SET failed (possibly related to argument 'maxmemory') - argument must be a memory value" });
    assert.deepEqual(await c.call('CONFIG', 'SET', 'proto-max-bulk-len', '1x'),
      { error: "ERR CONFIG SET failed (possibly related to argument 'proto-max-bulk-len') - argument must be a memory value" });
    assert.equal(await c.call('CONFIG', 'SET', 'maxmemory', '10mb'), 'OK');
    assert.deepEqual(await c.call('CONFIG', 'GET', 'maxmemory'), ['maxmemory', '10485760']);
    assert.equal(await c.call('CONFIG', 'SET', 'maxmemory', '0'), 'OK');
    assert.deepEqual(await c.call('CONFIG', 'SET', 'databases', '4'),
      { error: "ERR CONFIG SET failed (possibly related to argument 'databases') - can't set immutable config" });
    const many = (await c.call('CONFIG', 'GET', 'client-*')) as string[];
    assert.ok(many.includes('client-query-buffer-limit'));
    // a change made through one worker is seen by clients of the other
    assert.equal(await c.call('CONFIG', 'SET', 'timeout', '0', 'save', ''), 'OK');
    const d = await client();
    const e = await client();
    assert.deepEqual(await d.call('CONFIG', 'GET', 'save'), ['save', '']);
    assert.deepEqual(await e.call('CONFIG', 'GET', 'save'), ['save', '']);
    d.close();
    e.close();
    c.close();
  });

  it('INFO has what clients read on connect', async () => {
    const c = await client();
    const text = String(await c.call('INFO'));
    assert.match(text, /^# Server\r\n/);
    assert.match(text, /\r\nredis_version:7\.\d+\.\d+\r\n/);
    assert.match(text, /\r\npostresp_version:\d+\.\d+\.\d+\r\n/);
    assert.match(text, /\r\nloading:0\r\n/);
    assert.match(text, /\r\nblocked_clients:0\r\n/);
    assert.match(text, /\r\nconnected_clients:\d+\r\n/);
    assert.match(text, /\r\nrole:master\r\n/);
    const stats = String(await c.call('INFO', 'commandstats'));
    assert.match(stats, /cmdstat_ping:calls=\d+/);
    c.close();
  });

  it('DEBUG is refused unless enabled', async () => {
    const c = await client();
    const r = (await c.call('DEBUG', 'SLEEP', '0')) as { error: string };
    assert.match(r.error, /^ERR DEBUG command not allowed/);
    c.close();
  });
});
