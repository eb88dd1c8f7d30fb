/**
 * HGETALL key | HKEYS key | HVALS key — one generic over what each field contributes. Order is
 * unspecified (Redis: insertion order for small hashes, hash order for large ones); HGETALL is a
 * map in RESP3.
 * https://redis.io/commands/hgetall/
 */
import { RespMap, type Reply } from '../../reply';
import { KeyType, type Statement } from '../../key-store';
import { dbArg, exec, nowArg, typedRead } from '../exec';
import { defineCommand } from '../define';
import { kOneKey, type CommandSpec } from '../spec';
import { kHashSql } from './sql';

function dump(name: string, stmt: Statement, summary: string, map: (rows: unknown[][]) => Reply, empty: () => Reply): CommandSpec {
  return defineCommand({
    name, arity: 2, flags: ['readonly'], keys: kOneKey, acl: ['read', 'hash', 'slow'], tips: ['nondeterministic_output_order'],
    group: 'hash', since: '2.0.0', summary, complexity: 'O(N) where N is the size of the hash.',
    run: (s, argv) => exec(s, stmt, [dbArg(s), argv[1], nowArg()], typedRead(KeyType.Hash, empty(), map)),
  });
}

const column = (rows: unknown[][]): Reply => rows.map((r) => r[1] as Buffer);

export const hkeys = dump('hkeys', kHashSql.keys, 'Returns all fields in a hash.', column, () => []);
export const hvals = dump('hvals', kHashSql.vals, 'Returns all values in a hash.', column, () => []);
export const hgetall = dump('hgetall', kHashSql.getall, 'Returns all fields and values in a hash.', (rows) => {
  const flat: Reply[] = new Array(rows.length * 2);
  for (let i = 0; i < rows.length; i++) { flat[2 * i] = rows[i][1] as Buffer; flat[2 * i + 1] = rows[i][2] as Buffer; }
  return new RespMap(flat);
}, () => new RespMap([]));
