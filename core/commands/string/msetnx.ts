/**
 * MSETNX key value [key value …] — sets every key, or none if any of them exists: 1 or 0.
 * A key named twice takes its last value, as in Redis.
 * https://redis.io/commands/msetnx/
 */
import { wrongArity } from '../../resp-errors';
import { defineCommand } from '../define';
import { byteaArrayText, dbOf, nowMs } from '../keys/shared';

const kArity = wrongArity('msetnx');
const kStmt = { name: 'pr_msetnx', text: 'SELECT msetnx($1::int2, $2::bytea[], $3::bytea[], $4::int8)' };

export const msetnx = defineCommand({
  name: 'msetnx', arity: -3, flags: ['write', 'denyoom'], keys: { first: 1, last: -1, step: 2 },
  acl: ['write', 'string', 'slow'], group: 'string', since: '1.0.1', complexity: 'O(N)',
  summary: 'Atomically modifies the string values of one or more keys only when all keys don\'t exist.',
  run(s, argv) {
    if (argv.length % 2 === 0) return kArity;
    const last = new Map<string, [Buffer, Buffer]>();
    for (let i = 1; i < argv.length; i += 2) last.set(argv[i].toString('latin1'), [argv[i], argv[i + 1]]);
    // sorted: rows are locked in key order, like every multi-row write (no deadlocks)
    const pairs = [...last.values()].sort((a, b) => Buffer.compare(a[0], b[0]));
    const values = [dbOf(s), byteaArrayText(pairs.map((p) => p[0])), byteaArrayText(pairs.map((p) => p[1])), nowMs()];
    return s.server.store.exec(s, kStmt, values, (rows) => rows[0][0] as number);
  },
});
