/**
 * INFO as Redis 7.0 answers it: which sections each argument list names (several sections,
 * all, everything, default, unknown names, any case), always in Redis's order, compared with
 * redis-server's section headers; the unit/info-command checks of the Redis suite; and
 * executable / config_file in INFO server.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startRedis, type RedisServer } from '../differential/oracle';
import { RawClient, type Value } from './resp-client';
import { startServer, type RunningServer } from './start-server';

let server: RunningServer;
let redis: RedisServer;
before(async () => { [server, redis] = await Promise.all([startServer(['--workers', '2', '--enable-debug-command', 'yes']), startRedis()]); });
after(async () => { await Promise.all([server?.stop(), redis?.stop()]); });

async function info(port: number, ...args: string[]): Promise<string> {
  const c = await RawClient.connect(port);
  try {
    await c.call('PING'); // commandstats then has a line (with rejected_calls=) on both servers
    const r: Value = await c.call('INFO', ...args);
    assert.equal(typeof r, 'string', `INFO ${args.join(' ')}: ${JSON.stringify(r)}`);
    return r as string;
  } finally {
    c.close();
  }
}

const headers = (text: string) => text.split('\r\n').filter((l) => l.startsWith('# '));
const field = (text: string, name: string) => new RegExp(`\\r\\n${name}:(.*)\\r\\n`).exec(text)?.[1];

describe('INFO sections', () => {
  const cases = [
    [], ['default'], ['Default'], ['all'], ['everything'], ['EVERYTHING'], ['server', 'clients'], ['CPU', 'Server'],
    ['keyspace', 'cpu'], ['cpu', 'sentinel'], ['cpu', 'all'], ['cpu', 'default'], ['default', 'commandstats'],
    ['commandSTATS'], ['modules'], ['module_list'], ['errorstats', 'latencystats'], ['server', 'server'],
    ['nosuch'], ['nosuch', 'memory'], ['everything', 'nosuch'], ['sentinel'],
  ];
  for (const args of cases) {
    it(`INFO ${args.join(' ')}: the sections redis-server sends, in its order`, async () => {
      const [mine, theirs] = await Promise.all([info(server.port, ...args), info(redis.port, ...args)]);
      assert.deepEqual(headers(mine), headers(theirs));
      if (theirs === '') assert.equal(mine, '');
    });
  }

  it('the Redis suite\'s unit/info-command checks', async () => {
    for (const arg of [[], ['all'], ['default'], ['everything']]) {
      const text = await info(server.port, ...arg);
      for (const f of ['redis_version', 'used_cpu_user', 'used_memory']) assert.ok(text.includes(f), `INFO ${arg}: ${f}`);
      assert.ok(!text.includes('sentinel_tilt'));
      // only commandstats has rejected_calls: not in the default sections
      assert.equal(text.includes('rejected_calls'), arg[0] === 'all' || arg[0] === 'everything', `INFO ${arg}: rejected_calls`);
    }
    const two = await info(server.port, 'cpu', 'all');
    assert.ok(!/used_cpu_user_children[^]*used_cpu_user_children/.test(two), 'a section came twice');
  });
});

describe('INFO server: executable and config_file', () => {
  it('executable is the absolute path of dist/core/primary/main.js; config_file empty without a file', async () => {
    const text = await info(server.port, 'server');
    assert.equal(field(text, 'executable'), path.resolve(__dirname, '..', '..', 'core', 'primary', 'main.js'));
    assert.equal(field(text, 'config_file'), '');
  });

  it('config_file is the absolute path of the file given, even when given relative', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'postresp-info-'));
    const file = path.join(dir, 'postresp.conf');
    fs.writeFileSync(file, 'loglevel warning\n');
    const s = await startServer(['--config', path.relative(process.cwd(), file)]);
    try {
      assert.equal(field(await info(s.port, 'server'), 'config_file'), file);
    } finally {
      await s.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('CONFIG RESETSTAT', () => {
  it('clears every worker\'s counters before it answers', async () => {
    // two connections open at once land on the two workers (the primary picks the emptier one)
    const [a, b] = await Promise.all([RawClient.connect(server.port), RawClient.connect(server.port)]);
    try {
      for (const c of [a, b]) assert.match((await c.call('NOSUCHCOMMAND') as { error: string }).error, /^ERR unknown command/);
      assert.equal(await a.call('CONFIG', 'RESETSTAT'), 'OK');
      const errors = await a.call('INFO', 'errorstats');
      assert.equal(errors, '# Errorstats\r\n', 'errorstats after RESETSTAT');
      assert.equal(field(String(await b.call('INFO', 'stats')), 'total_error_replies'), '0');
    } finally {
      a.close();
      b.close();
    }
  });
});

describe('CONFIG SET', () => {
  it('reaches every worker before it answers', async () => {
    // a and b land on the two workers; b's worker is kept busy (DEBUG SLEEP blocks its event loop)
    // while a's CONFIG SET runs, so b's CONFIG GET, sent only after a's reply, reaches that worker
    // together with the new value: the value must already be there
    const [a, b] = await Promise.all([RawClient.connect(server.port), RawClient.connect(server.port)]);
    try {
      for (let i = 0; i < 5; i++) {
        const value = String(200 + i);
        const sleeping = b.call('DEBUG', 'SLEEP', '0.3');
        await new Promise((r) => setTimeout(r, 50));
        assert.equal(await a.call('CONFIG', 'SET', 'slowlog-max-len', value), 'OK');
        const seen = b.call('CONFIG', 'GET', 'slowlog-max-len');
        assert.equal(await sleeping, 'OK');
        assert.deepEqual(await seen, ['slowlog-max-len', value], `round ${i}`);
      }
    } finally {
      a.close();
      b.close();
    }
  });
});
