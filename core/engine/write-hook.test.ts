import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineCommand } from './commands/define';
import { RespError } from './reply';
import { WriteHook, type Emit } from './write-hook';

const b = (s: string) => Buffer.from(s);
const mset = defineCommand({ name: 'tmset', arity: -3, flags: ['write'], keys: { first: 1, last: -1, step: 2 }, events: 'set', summary: '', run: () => null });
let calls = 0;
const counted = defineCommand({
  name: 'tcount', arity: 2, flags: ['write'], summary: '', run: () => null,
  events: (emit, db, argv) => { calls++; emit(db, 'thing', argv[1], true); },
});

function recorder(hook: WriteHook): { seen: unknown[]; off: () => void } {
  const seen: unknown[] = [];
  const committed: Emit = (db, event, key, maybe) => seen.push([db, event, key?.toString() ?? null, maybe]);
  return { seen, off: hook.listen({ committed }) };
}

describe('WriteHook', () => {
  it('is active while a committed listener is registered, and says so on each change', () => {
    const changes: boolean[] = [];
    const hook = new WriteHook((on) => changes.push(on));
    assert.equal(hook.active, false);
    const a = recorder(hook);
    const c = recorder(hook);
    assert.equal(hook.active, true);
    a.off();
    assert.equal(hook.active, true);
    c.off();
    assert.equal(hook.active, false);
    assert.deepEqual(changes, [true, false]);
    const before = hook.listen({ before: () => undefined });
    assert.equal(hook.beforeActive, true);
    assert.equal(hook.active, false);
    before();
    assert.equal(hook.beforeActive, false);
  });

  it('a declared name fires on each key of the line; a function decides for itself', () => {
    const hook = new WriteHook();
    const { seen } = recorder(hook);
    hook.command(2, mset, [b('tmset'), b('a'), b('1'), b('b'), b('2')], 'OK');
    hook.command(0, counted, [b('tcount'), b('k')], 1);
    assert.deepEqual(seen, [[2, 'set', 'a', false], [2, 'set', 'b', false], [0, 'thing', 'k', true]]);
  });

  it('an error reply reports nothing, and nothing is evaluated while nobody listens', () => {
    const hook = new WriteHook();
    calls = 0;
    hook.command(0, counted, [b('tcount'), b('k')], 1);
    assert.equal(calls, 0);
    const { seen } = recorder(hook);
    hook.command(0, counted, [b('tcount'), b('k')], new RespError('WRONGTYPE x'));
    assert.equal(calls, 0);
    assert.deepEqual(seen, []);
  });

  it('expired keys and the before point', () => {
    const hook = new WriteHook();
    const { seen } = recorder(hook);
    const before: unknown[] = [];
    hook.listen({ before: (db, spec, argv) => before.push([db, spec.name, argv.length]) });
    hook.expired([1, 4], [b('x'), b('y')]);
    hook.before(3, mset, [b('tmset'), b('a'), b('1')]);
    assert.deepEqual(seen, [[1, 'expired', 'x', false], [4, 'expired', 'y', false]]);
    assert.deepEqual(before, [[3, 'tmset', 3]]);
  });

  it('a listener removed while reports go out does not disturb the others', () => {
    const hook = new WriteHook();
    const seen: string[] = [];
    const off = hook.listen({ committed: () => { seen.push('first'); off(); } });
    hook.listen({ committed: () => seen.push('second') });
    hook.expired([0, 0], [b('x'), b('y')]);
    assert.deepEqual(seen, ['first', 'second', 'second']);
  });
});
