/**
 * GEOPOS key [member …] — each member's [longitude, latitude] (nil when missing); GEOHASH key
 * [member …] — each member's 11-character geohash. Positions are decoded from the scores here.
 * https://redis.io/commands/geopos/
 */
import { KeyType } from '../../key-store';
import { kNullArray, Raw, type Reply } from '../../reply';
import type { Session } from '../../session';
import { encodeBufferArray, dbArg, exec, nowArg, typedRead } from '../exec';
import { defineCommand } from '../define';
import { kOneKey, type CommandSpec } from '../spec';
import { kZsetSql } from '../zset/sql';
import { human } from './fixed';
import { decodeScore, geohashString } from './geohash';

/** addReplyHumanLongDouble: a bulk string in RESP2, a double with the same text in RESP3 */
export function coordinate(s: Session, x: number): Reply {
  const text = human(x);
  return s.proto === 3 ? new Raw(Buffer.from(`,${text}\r\n`)) : Buffer.from(text);
}

function perMember(name: string, summary: string, complexity: string, missing: () => Reply, show: (s: Session, score: number) => Reply): CommandSpec {
  return defineCommand({
    name, arity: -2, flags: ['readonly'], keys: kOneKey, acl: ['geo'], group: 'geo', since: '3.2.0', summary, complexity,
    run(s, argv) {
      const none = (): Reply[] => Array.from({ length: argv.length - 2 }, missing);
      if (argv.length === 2) return exec(s, kZsetSql.score, [dbArg(s), argv[1], Buffer.alloc(0), nowArg()], typedRead(KeyType.Zset, [], () => []));
      return exec(s, kZsetSql.mscore, [dbArg(s), argv[1], encodeBufferArray(argv.slice(2)), nowArg()], typedRead(KeyType.Zset, none(), (rows) => {
        const out = none();
        for (const r of rows) if (r[2] !== null) out[(r[1] as number) - 1] = show(s, r[2] as number);
        return out;
      }));
    },
  });
}

export const geopos = perMember('geopos', 'Returns the longitude and latitude of members from a geospatial index.',
  'O(N) where N is the number of members requested.', () => kNullArray,
  (s, score) => decodeScore(score).map((x) => coordinate(s, x)));

export const geohash = perMember('geohash', 'Returns members from a geospatial index as geohash strings.',
  'O(log(N)) for each member requested, where N is the number of elements in the sorted set.', () => null,
  (_s, score) => Buffer.from(geohashString(score)));
