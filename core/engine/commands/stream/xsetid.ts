/**
 * XSETID key last-id [ENTRIESADDED n] [MAXDELETEDID id] — OK; sets the stream's last id (what
 * XADD's ids must exceed) and, when given, its entries-added counter and max-deleted-entry-id.
 * https://redis.io/commands/xsetid/
 */
import { RespError } from '../../reply';
import { Err } from '../../resp-errors';
import { eqIgnoreCase, parseI64 } from '../args';
import { dbArg, exec, nowArg } from '../exec';
import { defineCommand } from '../define';
import { kOneKey } from '../spec';
import { kOk } from '../../shared-replies';
import { compareIds, parseFullId, toSql, type StreamId } from './id';
import { kNoSuchKey } from '../keys/shared';
import { kStreamSql } from './sql';

const kAddedNeg = new RespError('ERR entries_added must be positive');
const kBelowMaxDel = new RespError('ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id');
const kBelowTop = new RespError('ERR The ID specified in XSETID is smaller than the target stream top item');
const kAddedBelowLen = new RespError('ERR The entries_added specified in XSETID is smaller than the target stream length');

export const xsetid = defineCommand({
  name: 'xsetid', arity: -3, flags: ['write', 'denyoom', 'fast'], keys: kOneKey, acl: ['write', 'stream', 'fast'], events: 'xsetid',
  group: 'stream', since: '5.0.0', summary: 'An internal command for replicating stream values.', complexity: 'O(1)',
  run(s, argv) {
    const id = parseFullId(argv[2], 0n, true);
    if (id instanceof RespError) return id;
    let added: bigint | null = null;
    let maxDel: StreamId | null = null;
    for (let i = 3; i < argv.length; i++) {
      const more = argv.length - 1 - i;
      if (eqIgnoreCase(argv[i], 'entriesadded') && more > 0) {
        const n = parseI64(argv[++i]);
        if (n === undefined) return Err.notInteger;
        if (n < 0n) return kAddedNeg;
        added = n;
      } else if (eqIgnoreCase(argv[i], 'maxdeletedid') && more > 0) {
        const d = parseFullId(argv[++i], 0n, true);
        if (d instanceof RespError) return d;
        if (compareIds(id, d) < 0) return kBelowMaxDel;
        maxDel = d;
      } else {
        return Err.syntax;
      }
    }
    const zero = maxDel !== null && maxDel.ms === 0n && maxDel.seq === 0n;
    return exec(s, kStreamSql.setId, [dbArg(s), argv[1], toSql(id.ms), toSql(id.seq), added,
      maxDel && !zero ? toSql(maxDel.ms) : null, maxDel && !zero ? toSql(maxDel.seq) : null, nowArg()], (rows) => {
      switch (rows[0][0] as number) {
        case 0: return kNoSuchKey;
        case 1: return kOk;
        case 2: return Err.wrongType;
        case 3: return kBelowTop;
        default: return kAddedBelowLen;
      }
    });
  },
});
