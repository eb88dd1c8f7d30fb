/**
 * RESTORE key ttl serialized-value [REPLACE] [ABSTTL] [IDLETIME seconds] [FREQ frequency] — the
 * key from a DUMP payload (ours or redis-server's, ./rdb.ts; a stream: restore_stream), with
 * Redis's checks in its order: options, the key exists (BUSYKEY), the TTL, version and checksum, the data. A TTL already
 * past creates nothing (and deletes the key REPLACE would replace). IDLETIME and FREQ are
 * checked and ignored: PostRESP keeps no LRU clock or LFU counter (docs/dump.md).
 * https://redis.io/commands/restore/
 */
import { KeyType } from '../../key-store';
import { Noted } from '../../pending-reply';
import { RespError } from '../../reply';
import { Err } from '../../resp-errors';
import { kOk } from '../../shared-replies';
import { eqIgnoreCase, parseI64 } from '../args';
import { defineCommand } from '../define';
import { dbArg, encodeBufferArray, exec, int8, nowArg } from '../exec';
import { kOneKey } from '../spec';
import { f8Array } from '../zset/bounds';
import { restoreEvents } from './events';
import { BadFormat } from './packed';
import { payloadOk, readPayload, type RdbValue } from './rdb';
import { kDumpSql } from './sql';
import { streamParams } from './stream-rows';

const kBusy = new RespError('BUSYKEY Target key name already exists.');
const kBadTtl = new RespError('ERR Invalid TTL value, must be >= 0');
const kBadPayload = new RespError('ERR DUMP payload version or checksum are wrong');
const kBadData = new RespError('ERR Bad data format');
const kBadIdle = new RespError('ERR Invalid IDLETIME value, must be >= 0');
const kBadFreq = new RespError('ERR Invalid FREQ value, must be >= 0 and <= 255');

interface Options { replace: boolean; absttl: boolean }

function options(argv: Buffer[]): Options | RespError {
  const o: Options = { replace: false, absttl: false };
  let idle = false;
  let freq = false;
  for (let j = 4; j < argv.length; j++) {
    const more = argv.length - j - 1;
    if (eqIgnoreCase(argv[j], 'replace')) o.replace = true;
    else if (eqIgnoreCase(argv[j], 'absttl')) o.absttl = true;
    else if (eqIgnoreCase(argv[j], 'idletime') && more >= 1 && !freq) {
      const v = parseI64(argv[++j]);
      if (v === undefined) return Err.notInteger;
      if (v < 0n) return kBadIdle;
      idle = true;
    } else if (eqIgnoreCase(argv[j], 'freq') && more >= 1 && !idle) {
      const v = parseI64(argv[++j]);
      if (v === undefined) return Err.notInteger;
      if (v < 0n || v > 255n) return kBadFreq;
      freq = true;
    } else return Err.syntax;
  }
  return o;
}

/** the checks after the existence test, in Redis's order: TTL, payload, data */
function decode(argv: Buffer[]): { ttl: bigint; v: RdbValue } | RespError {
  const ttl = parseI64(argv[2]);
  if (ttl === undefined) return Err.notInteger;
  if (ttl < 0n) return kBadTtl;
  if (!payloadOk(argv[3])) return kBadPayload;
  try {
    return { ttl, v: readPayload(argv[3]) };
  } catch (e) {
    if (e instanceof BadFormat) return kBadData;
    throw e;
  }
}

const none = encodeBufferArray([]);

export const restore = defineCommand({
  name: 'restore', arity: -4, flags: ['write', 'denyoom'], events: restoreEvents, keys: kOneKey, acl: ['keyspace', 'dangerous'],
  group: 'generic', since: '2.6.0', summary: 'Creates a key using the provided serialized value, previously obtained using DUMP.',
  complexity: 'O(1) to create the new key and additional O(N*M) to reconstruct the serialized value, where N is the number of Redis objects composing the value and M their average size. For small string values the time complexity is thus O(1)+O(1*M) where M is small, so simply O(1). However for sorted set values the complexity is O(N*M*log(N)) because inserting values into sorted sets is O(log(N)).',
  run(s, argv) {
    const o = options(argv);
    if (o instanceof RespError) return o;
    const d = decode(argv);
    const now = Date.now();
    // an error after the existence test: the statement only looks (REPLACE off, no rows), and
    // BUSYKEY wins over it as in Redis
    const err = d instanceof RespError ? d : null;
    const v = err === null ? (d as { v: RdbValue }).v : { type: KeyType.String, value: Buffer.alloc(0) } as RdbValue;
    const ttl = err === null ? (d as { ttl: bigint }).ttl : 0n;
    const exp = ttl === 0n ? null : int8(o.absttl ? ttl : ttl + BigInt(now));
    if (v.type === KeyType.Stream) {
      return exec(s, kDumpSql.restoreStream, [dbArg(s), argv[1], o.replace, exp, nowArg(now), ...streamParams(v)], (rows) => {
        const status = rows[0][0] as number;
        return status === 3 ? kBusy : new Noted(kOk, status);
      });
    }
    const a = v.type === KeyType.String ? none : encodeBufferArray(v.type === KeyType.Hash ? v.fields : v.type === KeyType.Zset ? v.members : v.items);
    const b = v.type === KeyType.Hash ? encodeBufferArray(v.values) : none;
    const sc = v.type === KeyType.Zset ? f8Array(v.scores) : '{}';
    const values = [dbArg(s), argv[1], String(v.type), v.type === KeyType.String ? v.value : null, a, b, sc,
      err === null && o.replace ? 'true' : 'false', err === null ? exp : int8(-1), nowArg(now)];
    return exec(s, kDumpSql.restore, values, (rows) => {
      const status = rows[0][0] as number;
      if (status === 3 && !(err !== null && o.replace)) return kBusy;
      // the status is the note: the events differ for a TTL already past (./events.ts)
      return err ?? new Noted(kOk, status);
    });
  },
});
