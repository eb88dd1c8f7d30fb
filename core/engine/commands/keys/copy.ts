/**
 * COPY source destination [DB destination-db] [REPLACE] — copies the value, its TTL and any
 * collection rows (copy_key): 1 when copied, 0 when the source is missing or the destination
 * exists without REPLACE.
 * https://redis.io/commands/copy/
 */
import { RespError } from '../../reply';
import { Err } from '../../resp-errors';
import { lower } from '../args';
import { defineCommand } from '../define';
import { copyEvents } from './events';
import { kSameObject, parseDb } from './shared';
import { dbArg, nowArg } from '../exec';
import { kKeySql } from './sql';


export const copy = defineCommand({
  name: 'copy', arity: -3, flags: ['write', 'denyoom'], keys: { first: 1, last: 2, step: 1 },
  events: copyEvents,
  acl: ['keyspace', 'write', 'slow'], group: 'generic', since: '6.2.0', complexity: 'O(N)',
  summary: 'Copies the value of a key to a new key.',
  run(s, argv) {
    let dst = s.db;
    let replace = false;
    for (let j = 3; j < argv.length; j++) {
      const o = lower(argv[j]);
      if (o === 'replace') replace = true;
      else if (o === 'db' && j + 1 < argv.length) {
        const db = parseDb(argv[++j], s.server.config.int('databases'));
        if (db instanceof RespError) return db;
        dst = db;
      } else return Err.syntax;
    }
    if (dst === s.db && argv[1].equals(argv[2])) return kSameObject;
    const values = [dbArg(s), argv[1], String(dst), argv[2], replace ? 'true' : 'false', nowArg()];
    return s.server.store.exec(s, kKeySql.copy, values, (rows) => rows[0][0] as number);
  },
});
