/**
 * KEYS pattern — every live key of the selected database matching the glob, in key order. The
 * pattern's literal prefix narrows the index range Postgres reads; globMatch does the rest.
 * https://redis.io/commands/keys/
 */
import { globMatch } from '../../glob';
import { defineCommand } from '../define';
import { globRange, matchesAll } from './glob-range';
import { dbArg, nowArg } from '../exec';
import { kKeySql } from './sql';


export const keys = defineCommand({
  name: 'keys', arity: 2, flags: ['readonly'], acl: ['keyspace', 'read', 'slow', 'dangerous'], group: 'generic',
  tips: ['request_policy:all_shards', 'nondeterministic_output_order'],
  summary: 'Returns all key names that match a pattern.', complexity: 'O(N) with N being the number of keys in the database',
  run(s, argv) {
    const pattern = argv[1];
    const { from, to } = globRange(pattern);
    const all = matchesAll(pattern);
    const [stmt, values] = to === undefined ? [kKeySql.keysFrom, [dbArg(s), from, nowArg()]] : [kKeySql.keysRange, [dbArg(s), from, to, nowArg()]];
    return s.server.store.exec(s, stmt, values, (rows) => {
      const out: Buffer[] = [];
      for (const r of rows) if (all || globMatch(pattern, r[0] as Buffer)) out.push(r[0] as Buffer);
      return out;
    });
  },
});
