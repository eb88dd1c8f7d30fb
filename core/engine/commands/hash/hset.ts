/**
 * HSET key field value [field value …] | HMSET (same, answers OK) — fields added; a repeated
 * field keeps its last value, as if set one after the other.
 * https://redis.io/commands/hset/
 */
import { BatchOp } from '../../ops';
import type { Reply } from '../../reply';
import { Err, wrongArity } from '../../resp-errors';
import { kOk } from '../../shared-replies';
import { countReply } from '../exec';
import { defineCommand } from '../define';
import { kOneKey, type CommandSpec } from '../spec';
import { kHsetBatch } from './hset-batch';

/** HMSET answers OK where HSET answers the count of new fields */
function hmsetReply(status: number): Reply {
  return status === 2 ? Err.wrongType : kOk;
}

function hsetLike(name: 'hset' | 'hmset', summary: string): CommandSpec {
  const arity = wrongArity(name);
  const reply = name === 'hset' ? countReply : hmsetReply;
  return defineCommand({
    name, arity: -4, flags: ['write', 'denyoom', 'fast'], keys: kOneKey, acl: ['write', 'hash', 'fast'],
    events: 'hset',
    group: 'hash', since: '2.0.0', summary, complexity: 'O(N) where N is the number of fields being set.',
    run(s, argv) {
      if (argv.length % 2 === 1) return arity;
      if (argv.length === 4) {
        // one field (redis-benchmark's HSET): no dedupe, no string of the field
        const one = { db: s.db, key: argv[1], fields: [argv[2]], values: [argv[3]] };
        return s.server.store.submit(s, new BatchOp(kHsetBatch, one, reply));
      }
      const byField = new Map<string, [Buffer, Buffer]>();
      for (let i = 2; i < argv.length; i += 2) {
        const id = argv[i].toString('latin1');
        byField.delete(id);
        byField.set(id, [argv[i], argv[i + 1]]);
      }
      const pairs = [...byField.values()];
      // consecutive HSETs and HMSETs to one key run as one call (./hset-batch.ts)
      const args = { db: s.db, key: argv[1], fields: pairs.map((p) => p[0]), values: pairs.map((p) => p[1]) };
      return s.server.store.submit(s, new BatchOp(kHsetBatch, args, reply));
    },
  });
}

export const hset = hsetLike('hset', 'Creates or modifies the value of a field in a hash.');
export const hmset = hsetLike('hmset', 'Sets the values of multiple fields.');
