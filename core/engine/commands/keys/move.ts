/**
 * MOVE key db — moves the key (value, TTL, collection rows) to another database, atomically:
 * 1 when moved, 0 when missing here or present there.
 * https://redis.io/commands/move/
 */
import { RespError } from '../../reply';
import { defineCommand } from '../define';
import { moveEvents } from './events';
import { kOneKey } from '../spec';
import { dbOf, kSameObject, nowMs, parseDb } from './shared';

const kStmt = { name: 'pr_move', text: 'SELECT move_key($1::int2, $2::bytea, $3::int2, $2::bytea, true, $4::int8)' };

export const move = defineCommand({
  name: 'move', arity: 3, flags: ['write', 'fast'], keys: kOneKey, acl: ['keyspace', 'write', 'fast'],
  events: moveEvents,
  group: 'generic', summary: 'Moves a key to another database.', complexity: 'O(1)',
  run(s, argv) {
    const db = parseDb(argv[2], s.server.config.int('databases'));
    if (db instanceof RespError) return db;
    if (db === s.db) return kSameObject;
    return s.server.store.exec(s, kStmt, [dbOf(s), argv[1], String(db), nowMs()],
      (rows) => Math.max(0, rows[0][0] as number));
  },
});
