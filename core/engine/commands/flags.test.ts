/** Flag bits and implied ACL categories (flags.ts) and what defineCommand derives from them. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineCommand } from './define';
import { aclCategories, flagBits, kFlagNoAuth, kFlagNoMulti, kFlagWrite, shownFlags } from './flags';
import { allCommands } from './index';
import { kCountedKeys, keysOf, type CommandFlag } from './spec';

const every = allCommands().flatMap((c) => [c, ...(c.subcommands ?? [])]);
const b = (s: string) => Buffer.from(s);

describe('command flags', () => {
  it('prints shown flags in Redis\'s order and hides may_replicate and sentinel', () => {
    const bits = flagBits(['allow_busy', 'sentinel', 'no_auth', 'fast', 'may_replicate', 'noscript', 'write']);
    assert.deepEqual(shownFlags(bits), ['write', 'noscript', 'fast', 'no_auth', 'allow_busy']);
    assert.throws(() => flagBits(['no-multi' as CommandFlag]), /unknown command flag no-multi/);
  });

  it('gives every spec the bits of its flags', () => {
    for (const c of every) {
      assert.equal(c.flagBits, flagBits(c.flags), c.name);
      assert.equal((c.flagBits & kFlagNoAuth) !== 0, c.flags.includes('no_auth'), c.name);
    }
    assert.deepEqual(every.filter((c) => (c.flagBits & kFlagNoMulti) !== 0).map((c) => c.name).sort(), ['save', 'shutdown']);
  });

  it('adds the categories flags imply, like Redis\'s setImplicitACLCategories', () => {
    assert.deepEqual(aclCategories(['string'], ['readonly', 'fast']), ['read', 'string', 'fast']);
    assert.deepEqual(aclCategories(['string'], ['write', 'denyoom']), ['write', 'string', 'slow']);
    assert.deepEqual(aclCategories([], ['admin', 'noscript']), ['admin', 'slow', 'dangerous']);
    assert.deepEqual(aclCategories(['scripting'], ['readonly']), ['slow', 'scripting']);
    assert.deepEqual(aclCategories(['connection', 'fast'], []), ['fast', 'connection']);
    assert.throws(() => aclCategories(['@read'], []), /unknown ACL category @read/);
  });

  it('derives movablekeys from a key count and reads counted keys', () => {
    const spec = defineCommand({ name: 'x', arity: -3, flags: ['write'], keys: { ...kCountedKeys, first: 1, last: 1, step: 1, numkeysAt: 2 },
      summary: 'test', run: () => null });
    assert.deepEqual(shownFlags(spec.flagBits), ['write', 'movablekeys']);
    assert.notEqual(spec.flagBits & kFlagWrite, 0);
    assert.deepEqual(keysOf(spec, ['x', 'd', '2', 'a', 'b', 'c'].map(b))?.map(String), ['d', 'a', 'b']);
    for (const n of ['0', '-1', '3', '1x', '', '99999999999']) assert.equal(keysOf(spec, ['x', 'd', n, 'a', 'b'].map(b)), undefined, n);
  });
});
