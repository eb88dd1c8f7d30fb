/**
 * SPOP key [count] — removes and returns one random member (or nil), or up to count of them (a
 * set in RESP3). Picks as in collection/random.ts; count ≥ size takes the whole set.
 * https://redis.io/commands/spop/
 */
import { BatchOp } from '../../ops';
import { RespError } from '../../reply';
import { Err } from '../../resp-errors';
import { positiveLong } from '../collection/args';
import { defineCommand } from '../define';
import { spopEvents } from './events';
import { kOneKey } from '../spec';
import { kSpopBatch } from './spop-batch';

export const spop = defineCommand({
  name: 'spop', arity: -2, flags: ['write', 'fast'], keys: kOneKey, acl: ['write', 'set', 'fast'],
  events: spopEvents,
  tips: ['nondeterministic_output'],
  group: 'set', since: '1.0.0', summary: 'Returns one or more random members from a set after removing them. Deletes the set if the last member was popped.',
  complexity: 'Without the count argument O(1), otherwise O(N) where N is the value of the passed count.',
  run(s, argv) {
    if (argv.length > 3) return Err.syntax;
    const single = argv.length === 2;
    let count = 1n;
    if (!single) {
      const c = positiveLong(argv[2]);
      if (c instanceof RespError) return c;
      count = c;
    }
    // consecutive SPOPs of one key run as one call (./spop-batch.ts)
    return s.server.store.submit(s, new BatchOp(kSpopBatch, { db: s.db, key: argv[1], count: single ? null : count }, null));
  },
});
