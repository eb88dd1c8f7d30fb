/**
 * LSET key index element — OK; "no such key" / "index out of range" otherwise. The key is looked
 * up before the index is parsed, as in Redis.
 * https://redis.io/commands/lset/
 */
import { RespError } from '../../reply';
import { Err } from '../../resp-errors';
import { kOk } from '../../shared-replies';
import { parseI64 } from '../args';
import { dbArg, exec, int8, nowArg, statusReply } from '../exec';
import { defineCommand } from '../define';
import { kOneKey } from '../spec';
import { kListSql } from './sql';

const kErrors = { 3: new RespError('ERR no such key'), 4: new RespError('ERR index out of range'), 5: Err.notInteger };

export const lset = defineCommand({
  name: 'lset', arity: 4, flags: ['write', 'denyoom'], keys: kOneKey, acl: ['write', 'list', 'slow'],
  events: 'lset',
  group: 'list', since: '1.0.0', summary: 'Sets the value of an element in a list by its index.',
  complexity: 'O(N) where N is the length of the list. Setting either the first or the last element of the list is O(1).',
  run(s, argv) {
    const index = parseI64(argv[2]);
    return exec(s, kListSql.set, [dbArg(s), argv[1], index === undefined ? null : int8(index), argv[3], nowArg()],
      statusReply(kErrors, () => kOk));
  },
});
