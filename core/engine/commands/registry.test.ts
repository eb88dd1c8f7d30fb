/** Tests over the command table itself (STYLE.md: commands are data). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { allCommands, buildCommandTable } from './index';
import { keysOf, type CommandSpec } from './spec';
import { RespError } from '../reply';

const table = buildCommandTable();
const every: CommandSpec[] = allCommands().flatMap((c) => [c, ...(c.subcommands ?? [])]);

describe('command table', () => {
  it('has unique lower-case names, subcommands named container|sub', () => {
    const names = every.map((c) => c.name);
    assert.equal(new Set(names).size, names.length);
    for (const c of allCommands()) {
      assert.equal(c.name, c.name.toLowerCase());
      for (const s of c.subcommands ?? []) assert.ok(s.name.startsWith(`${c.name}|`), s.name);
    }
  });

  it('has valid arities and key positions', () => {
    for (const c of every) {
      assert.ok(c.arity !== 0 && Number.isInteger(c.arity), c.name);
      const { first, last, step } = c.keys;
      if (first === 0) { assert.equal(last, 0, c.name); continue; }
      assert.ok(step > 0, c.name);
      assert.ok(last < 0 || last >= first, c.name);
      // or the keys are optional and run to the end (SUNSUBSCRIBE [shardchannel …]: arity -1, keys 1 -1 1 as in Redis)
      assert.ok(Math.abs(c.arity) > first || (c.arity < 0 && last === -1), `${c.name}: arity covers the first key`);
    }
  });

  it('flags every write command write and never both write and readonly', () => {
    for (const c of every) assert.ok(!(c.flags.includes('write') && c.flags.includes('readonly')), c.name);
  });

  it('has a summary and group for COMMAND DOCS', () => {
    for (const c of every) {
      assert.ok(c.summary.length > 0, c.name);
      assert.ok(c.group.length > 0, c.name);
    }
  });

  it('resolves case-insensitively and checks arity centrally', () => {
    assert.equal((table.resolve([Buffer.from('PiNg')]) as CommandSpec).name, 'ping');
    const e = table.resolve([Buffer.from('echo')]);
    assert.ok(e instanceof RespError);
    assert.equal(e.text, "ERR wrong number of arguments for 'echo' command");
    const u = table.resolve([Buffer.from('nope'), Buffer.from('x')]);
    assert.ok(u instanceof RespError);
    assert.equal(u.text, "ERR unknown command 'nope', with args beginning with: 'x' ");
    const sub = table.resolve([Buffer.from('CLIENT'), Buffer.from('Id')]) as CommandSpec;
    assert.equal(sub.name, 'client|id');
  });

  it('resolves a name view it saw last time by identity, still checking arity and subcommands', () => {
    const get = Buffer.from('GET');
    assert.equal((table.resolve([get, Buffer.from('k')]) as CommandSpec).name, 'get');
    assert.equal((table.resolve([get, Buffer.from('k')]) as CommandSpec).name, 'get');
    assert.equal((table.resolve([get]) as RespError).text, "ERR wrong number of arguments for 'get' command");
    const client = Buffer.from('client');
    assert.equal((table.resolve([client, Buffer.from('id')]) as CommandSpec).name, 'client|id');
    assert.equal((table.resolve([client, Buffer.from('getname')]) as CommandSpec).name, 'client|getname');
    const nope = Buffer.from('nope');
    assert.ok(table.resolve([nope]) instanceof RespError);
    assert.ok(table.resolve([nope]) instanceof RespError);
    assert.equal((table.resolve([Buffer.from('GET'), Buffer.from('k')]) as CommandSpec).name, 'get');
  });

  it('truncates long unknown-command texts like Redis (128 bytes)', () => {
    const long = Buffer.alloc(300, 'a');
    const e = table.resolve([long, long]) as RespError;
    assert.equal(e.text, `ERR unknown command '${'a'.repeat(128)}', with args beginning with: '${'a'.repeat(128)}' `);
  });

  it('derives keys from key specs', () => {
    const spec: CommandSpec = { ...allCommands()[0], keys: { first: 1, last: -1, step: 2 } };
    const argv = ['mset', 'a', '1', 'b', '2'].map((s) => Buffer.from(s));
    assert.deepEqual(keysOf(spec, argv)?.map(String), ['a', 'b']);
  });
});
