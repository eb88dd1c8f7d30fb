/**
 * HSET key field value [field value …] | HMSET (same, answers OK) — fields added; a repeated
 * field keeps its last value, as if set one after the other.
 * https://redis.io/commands/hset/
 */
import { wrongArity } from '../../resp-errors';
import { kOk } from '../../shared-replies';
import { dbArg, exec, int8Reply, nowArg, statusReply } from '../exec';
import { defineCommand } from '../define';
import { kOneKey, type CommandSpec } from '../spec';
import { kHashSql } from './sql';

function hsetLike(name: 'hset' | 'hmset', summary: string): CommandSpec {
  const arity = wrongArity(name);
  return defineCommand({
    name, arity: -4, flags: ['write', 'denyoom', 'fast'], keys: kOneKey, acl: ['write', 'hash', 'fast'],
    events: 'hset',
    group: 'hash', since: '2.0.0', summary, complexity: 'O(N) where N is the number of fields being set.',
    run(s, argv) {
      if (argv.length % 2 === 1) return arity;
      const byField = new Map<string, [Buffer, Buffer]>();
      for (let i = 2; i < argv.length; i += 2) {
        const id = argv[i].toString('latin1');
        byField.delete(id);
        byField.set(id, [argv[i], argv[i + 1]]);
      }
      const pairs = [...byField.values()];
      // fields and values as Buffer[] (encoded as bytea[] by the connection): the lane merges
      // consecutive HSETs to one key into one call (workers/storage/hset-run.ts)
      const values = [dbArg(s), argv[1], pairs.map((p) => p[0]), pairs.map((p) => p[1]), 'false', nowArg()];
      return exec(s, kHashSql.set, values, statusReply({}, (rows) => (name === 'hset' ? int8Reply(rows[0][1]) : kOk)));
    },
  });
}

export const hset = hsetLike('hset', 'Creates or modifies the value of a field in a hash.');
export const hmset = hsetLike('hmset', 'Sets the values of multiple fields.');
