/**
 * FLUSHDB [ASYNC|SYNC] | FLUSHALL [ASYNC|SYNC] — delete every key of the selected database, or
 * of all. Postgres does the work either way; ASYNC and SYNC both answer after it committed.
 * https://redis.io/commands/flushall/
 */
import { Err } from '../../resp-errors';
import { lower } from '../args';
import { defineCommand } from '../define';
import { flushallEvents, flushdbEvents } from './events';
import type { CommandSpec } from '../spec';

function flush(name: 'flushdb' | 'flushall', summary: string): CommandSpec {
  return defineCommand({
    name, arity: -1, flags: ['write'], acl: ['keyspace', 'write', 'slow', 'dangerous'], group: 'server', summary,
    events: name === 'flushdb' ? flushdbEvents : flushallEvents,
    tips: ['request_policy:all_shards', 'response_policy:all_succeeded'],
    run(s, argv) {
      if (argv.length > 2) return Err.syntax;
      if (argv.length === 2 && !['async', 'sync'].includes(lower(argv[1]))) return Err.syntax;
      return s.server.store.flush(s, name === 'flushdb' ? s.db : null);
    },
  });
}

export const flushdb = flush('flushdb', 'Removes all keys from the current database.');
export const flushall = flush('flushall', 'Removes all keys from all databases.');
