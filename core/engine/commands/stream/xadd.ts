/**
 * XADD key [NOMKSTREAM] [MAXLEN|MINID [=|~] threshold [LIMIT count]] *|id field value [field value …]
 * — the new entry's id, nil with NOMKSTREAM on a missing key; trims after adding.
 * https://redis.io/commands/xadd/
 */
import { Noted } from '../../pending-reply';
import { RespError } from '../../reply';
import { Err, wrongArity } from '../../resp-errors';
import { encodeBufferArray, dbArg, exec, nowArg } from '../exec';
import { defineCommand } from '../define';
import { kOneKey } from '../spec';
import { parseTrimArgs, trimLimit } from './args';
import { xaddEvents } from './events';
import { kInvalidId, parseId, sqlIdText, toSql } from './id';
import { entryBytes, nodeMaxBytes, nodeMaxEntries } from './node-limits';
import { kStreamSql } from './sql';

const kZeroId = new RespError('ERR The ID specified in XADD must be greater than 0-0');
const kTooLarge = new RespError('ERR Elements are too large to be stored');
const kExhausted = new RespError('ERR The stream has exhausted the last possible ID, unable to add more items');
const kNotAbove = new RespError('ERR The ID specified in XADD is equal or smaller than the target stream top item');

export const xadd = defineCommand({
  name: 'xadd', arity: -5, flags: ['write', 'denyoom', 'fast'], keys: kOneKey, acl: ['write', 'stream', 'fast'],
  tips: ['nondeterministic_output'], events: xaddEvents,
  group: 'stream', since: '5.0.0', summary: 'Appends a new message to a stream. Creates the key if it doesn\'t exist.',
  complexity: 'O(1) when adding a new entry, O(N) when trimming where N being the number of entries evicted.',
  run(s, argv) {
    const a = parseTrimArgs(argv, true);
    if (a instanceof RespError) return a;
    const fieldAt = a.idAt + 1;
    const nfv = argv.length - fieldAt;
    if (nfv < 2 || nfv % 2 === 1) return wrongArity('xadd');
    let mode = 0;
    let ms = 0n;
    let seq = 0n;
    const arg = argv[a.idAt];
    if (!(arg.length === 1 && arg[0] === 42)) { // *
      const id = parseId(arg, 0n, true, true);
      if (id === undefined) return kInvalidId;
      mode = id.seq === undefined ? 2 : 1;
      ms = id.ms;
      seq = id.seq ?? 0n;
      if (mode === 1 && ms === 0n && seq === 0n) return kZeroId;
    }
    let total = 0;
    for (let i = fieldAt; i < argv.length; i++) total += argv[i].length;
    if (total > 2 ** 30) return kTooLarge;
    const values = [dbArg(s), argv[1], String(mode), toSql(ms), toSql(seq), encodeBufferArray(argv.slice(fieldAt)),
      a.noMkStream, String(a.trim), a.approx, a.maxlen, toSql(a.minid.ms), toSql(a.minid.seq),
      trimLimit(a, nodeMaxEntries(s)), nodeMaxEntries(s), nodeMaxBytes(s), entryBytes(argv, fieldAt), nowArg(),
      toSql(BigInt(Date.now()))];
    return exec(s, kStreamSql.add, values, (rows) => {
      switch (rows[0][0] as number) {
        case 0: return null;
        // note: entries trimmed (the event xtrim)
        case 1: return new Noted(sqlIdText(rows[0][1], rows[0][2]), Number(rows[0][3]) > 0 ? 1 : 0);
        case 2: return Err.wrongType;
        case 3: return kExhausted;
        default: return kNotAbove;
      }
    });
  },
});
