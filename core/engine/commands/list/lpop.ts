/**
 * LPOP | RPOP key [count] — one element (nil when missing), or up to count of them (a null array
 * when the key is missing). One generic: pop(left).
 * https://redis.io/commands/lpop/
 */
import { BatchOp } from '../../ops';
import { RespError } from '../../reply';
import { positiveLong } from '../collection/args';
import { defineCommand } from '../define';
import { listPopEvents } from './events';
import { kOneKey, type CommandSpec } from '../spec';
import { kListPopBatch } from './pop-batch';

function pop(name: string, left: boolean, summary: string): CommandSpec {
  return defineCommand({
    name, arity: -2, flags: ['write', 'fast'], keys: kOneKey, acl: ['write', 'list', 'fast'], group: 'list', since: '1.0.0',
    events: listPopEvents(left ? 'lpop' : 'rpop'),
    summary, complexity: 'O(N) where N is the number of elements returned',
    run(s, argv) {
      if (argv.length > 3) return new RespError(`ERR wrong number of arguments for '${name}' command`);
      const single = argv.length === 2;
      let count = 1n;
      if (!single) {
        const c = positiveLong(argv[2]);
        if (c instanceof RespError) return c;
        count = c;
      }
      // consecutive pops from one end of one key run as one call (./pop-batch.ts)
      return s.server.store.submit(s, new BatchOp(kListPopBatch, { db: s.db, key: argv[1], left, count: single ? null : count }, null));
    },
  });
}

export const lpop = pop('lpop', true, 'Returns the first elements in a list after removing it. Deletes the list if the last element was popped.');
export const rpop = pop('rpop', false, 'Returns and removes the last elements of a list. Deletes the list if the last element was popped.');
