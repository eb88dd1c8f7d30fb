/**
 * MOVE key db — moves the key (value, TTL, collection rows) to another database, atomically:
 * 1 when moved, 0 when missing here or present there.
 * https://redis.io/commands/move/
 */
import { RespError } from '../../reply';
import { defineCommand } from '../define';
import { moveEvents } from './events';
import { kOneKey } from '../spec';
import { kSameObject, parseDb } from './shared';
import { dbArg, nowArg } from '../exec';
import { kKeySql } from './sql';


export const move = defineCommand({
  name: 'move', arity: 3, flags: ['write', 'fast'], keys: kOneKey, acl: ['keyspace', 'write', 'fast'],
  events: moveEvents,
  group: 'generic', summary: 'Moves a key to another database.', complexity: 'O(1)',
  run(s, argv) {
    const db = parseDb(argv[2], s.server.config.int('databases'));
    if (db instanceof RespError) return db;
    if (db === s.db) return kSameObject;
    return s.server.store.exec(s, kKeySql.move, [dbArg(s), argv[1], String(db), nowArg()],
      (rows) => Math.max(0, rows[0][0] as number));
  },
});
