/**
 * SELECT index — switches this connection to logical database `index` (0 … databases-1).
 * https://redis.io/commands/select/
 */
import { Err } from '../../resp-errors';
import { kOk } from '../../shared-replies';
import { parseInt53 } from '../args';
import { defineCommand } from '../define';

export const select = defineCommand({
  name: 'select', arity: 2, flags: ['loading', 'stale', 'fast'], acl: ['fast', 'connection'],
  group: 'connection', summary: 'Changes the selected database.',
  run(session, argv) {
    const db = parseInt53(argv[1]);
    if (db === undefined) return Err.notInteger;
    if (db < 0 || db >= session.server.config.int('databases')) return Err.dbIndex;
    session.db = db;
    return kOk;
  },
});
