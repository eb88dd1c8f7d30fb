/**
 * GETRANGE key start end | SUBSTR key start end — the bytes from start to end inclusive,
 * negative offsets counted from the end; "" when missing. Only the slice leaves Postgres.
 * https://redis.io/commands/getrange/
 */
import { Err } from '../../resp-errors';
import { parseI64 } from '../args';
import { defineCommand } from '../define';
import { dbArg, nowArg } from '../exec';
import { kOneKey, type CommandSpec } from '../spec';
import { kStringSql } from './sql';


function getrangeAs(name: 'getrange' | 'substr', since: string): CommandSpec {
  return defineCommand({
    name, arity: 4, flags: ['readonly'], keys: kOneKey, acl: ['read', 'string', 'slow'], group: 'string', since,
    summary: 'Returns a substring of the string stored at a key.', complexity: 'O(N)',
    run(s, argv) {
      const start = parseI64(argv[2]);
      const end = parseI64(argv[3]);
      if (start === undefined || end === undefined) return Err.notInteger;
      return s.server.store.exec(s, kStringSql.getrange, [dbArg(s), argv[1], String(start), String(end), nowArg()],
        (rows) => (rows[0][0] === 2 ? Err.wrongType : (rows[0][1] as Buffer)));
    },
  });
}

export const getrange = getrangeAs('getrange', '2.4.0');
export const substr = getrangeAs('substr', '1.0.0');
