/**
 * The command table and the write hook: every write command declares its keyspace events and
 * no other command does (what each fires is compared with redis-server in
 * test/differential/write-events.test.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { allCommands } from './index';
import { done, popEvents } from './events';
import { kNullArray, RespSet } from '../reply';

const specs = allCommands().flatMap((s) => [s, ...s.subcommands ?? []]);

describe('keyspace events in the command table', () => {
  it('every write command declares events, and only write commands (and PFCOUNT) do', () => {
    const undeclared = specs.filter((s) => s.flags.includes('write') && s.events === undefined).map((s) => s.name);
    // PFCOUNT: readonly, but it may rewrite its key's cached cardinality (Redis's signalModifiedKey,
    // no keyspace event): its events function reports 'modified' for CLIENT TRACKING
    const stray = specs.filter((s) => !s.flags.includes('write') && s.events !== undefined && s.name !== 'pfcount').map((s) => s.name);
    assert.deepEqual(undeclared, [], `write commands without events: ${undeclared.join(', ')}`);
    assert.deepEqual(stray, [], `commands declaring events without the write flag: ${stray.join(', ')}`);
  });

  it('done() reads what a reply says was done', () => {
    for (const r of [1, 2n, 'OK', Buffer.from('v'), ['x'], new RespSet([Buffer.from('m')])]) assert.equal(done(r), true, String(r));
    for (const r of [0, 0n, -1, null, kNullArray, [], new RespSet([])]) assert.equal(done(r), false, String(r));
  });

  it('a pop that got fewer than it asked for emptied the key; as many leaves it open', () => {
    const seen: unknown[] = [];
    const emit = (db: number, event: string, key: Buffer | null, maybe: boolean) => seen.push([event, maybe]);
    const k = Buffer.from('k');
    popEvents(emit, 0, k, 'lpop', 5n, [Buffer.from('a'), Buffer.from('b')]);
    popEvents(emit, 0, k, 'lpop', 2n, [Buffer.from('a'), Buffer.from('b')]);
    popEvents(emit, 0, k, 'zpopmin', 2n, [Buffer.from('a'), 1, Buffer.from('b'), 2], true); // flat pairs: 2 popped
    popEvents(emit, 0, k, 'zpopmin', 3n, [[Buffer.from('a'), 1], [Buffer.from('b'), 2]], true); // nested: 2 popped
    popEvents(emit, 0, k, 'lpop', undefined, null);
    popEvents(emit, 0, k, 'lpop', 3n, kNullArray);
    assert.deepEqual(seen, [['lpop', false], ['del', false], ['lpop', false], ['del', true],
      ['zpopmin', false], ['del', true], ['zpopmin', false], ['del', false]]);
  });
});
