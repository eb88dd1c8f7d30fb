import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { loadConfig, parseOutputLimits } from './config';

describe('configuration', () => {
  it('has Redis defaults', () => {
    const c = loadConfig({ argv: [], env: {} });
    assert.equal(c.int('port'), 6379);
    assert.equal(c.str('bind'), '127.0.0.1');
    assert.equal(c.int('maxclients'), 10000);
    assert.equal(c.int('databases'), 16);
    assert.equal(c.int('proto-max-bulk-len'), 512 * 1024 * 1024);
    assert.equal(c.int('client-query-buffer-limit'), 1024 * 1024 * 1024);
    assert.equal(c.str('storage-mode'), 'logged');
  });

  it('layers file < env < flags', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cfg-'));
    const file = path.join(dir, 'postresp.conf');
    fs.writeFileSync(file, '# comment\nport 7000\nmaxclients 5\nrequirepass "pw"\n');
    const c = loadConfig({ argv: [file, '--maxclients', '7'], env: { POSTRESP_PORT: '7001' } });
    assert.equal(c.int('port'), 7001);
    assert.equal(c.int('maxclients'), 7);
    assert.equal(c.str('requirepass'), 'pw');
    fs.rmSync(dir, { recursive: true });
  });

  it('parses sizes, booleans and --name=value', () => {
    const c = loadConfig({ argv: ['--proto-max-bulk-len=2mb', '--convert-storage-mode', '--unixsocketperm', '770'], env: {} });
    assert.equal(c.int('proto-max-bulk-len'), 2 * 1024 * 1024);
    assert.equal(c.bool('convert-storage-mode'), true);
    assert.equal(c.int('unixsocketperm'), 0o770);
  });

  it('refuses mistakes with one clear message', () => {
    assert.throws(() => loadConfig({ argv: ['--port', 'abc'], env: {} }), /invalid value 'abc' for 'port' \(--port\): argument couldn't be parsed into an integer/);
    assert.throws(() => loadConfig({ argv: ['--nope', '1'], env: {} }), /unknown option 'nope'/);
    assert.throws(() => loadConfig({ argv: [], env: { POSTRESP_STORAGE_MODE: 'fast' } }), /POSTRESP_STORAGE_MODE.*one of the following: unlogged, logged-async, logged/);
    assert.throws(() => loadConfig({ argv: ['--port', '70000'], env: {} }), /between 0 and 65535/);
    assert.throws(() => loadConfig({ argv: ['--port'], env: {} }), /needs a value/);
  });

  it('parses client-output-buffer-limit classes', () => {
    assert.deepEqual(parseOutputLimits('normal 1mb 512kb 10')?.normal, { hard: 1024 * 1024, soft: 512 * 1024, softSeconds: 10 });
    assert.equal(parseOutputLimits('normal 1 2'), undefined);
    assert.equal(parseOutputLimits('weird 0 0 0'), undefined);
  });
});
