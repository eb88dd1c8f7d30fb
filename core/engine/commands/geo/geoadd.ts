/**
 * GEOADD key [NX | XX] [CH] longitude latitude member [… …] — ZADD with each position's 52-bit
 * geohash as the score (Redis rewrites the command into a ZADD the same way).
 * https://redis.io/commands/geoadd/
 */
import { RespError } from '../../reply';
import { Err } from '../../resp-errors';
import { eqIgnoreCase } from '../args';
import { defineCommand } from '../define';
import { kOneKey } from '../spec';
import { zaddEvents } from '../zset/events';
import { ZaddFlag, zaddExec } from '../zset/zadd';
import { lonLat } from './args';
import { geoScore } from './geohash';

export const geoadd = defineCommand({
  name: 'geoadd', arity: -5, flags: ['write', 'denyoom'], events: zaddEvents, keys: kOneKey, acl: ['geo'], group: 'geo', since: '3.2.0',
  summary: 'Adds one or more members to a geospatial index. The key is created if it doesn\'t exist.',
  complexity: 'O(log(N)) for each item added, where N is the number of elements in the sorted set.',
  run(s, argv) {
    let flags = 0;
    let at = 2;
    for (; at < argv.length; at++) {
      if (eqIgnoreCase(argv[at], 'nx')) flags |= ZaddFlag.Nx;
      else if (eqIgnoreCase(argv[at], 'xx')) flags |= ZaddFlag.Xx;
      else if (eqIgnoreCase(argv[at], 'ch')) flags |= ZaddFlag.Ch;
      else break;
    }
    const n = argv.length - at;
    if (n % 3 !== 0 || (flags & ZaddFlag.Nx && flags & ZaddFlag.Xx) || n === 0) return Err.syntax;
    const members: Buffer[] = [];
    const scores: number[] = [];
    for (let i = at; i < argv.length; i += 3) {
      const ll = lonLat(argv[i], argv[i + 1]);
      if (ll instanceof RespError) return ll;
      scores.push(geoScore(ll[0], ll[1]));
      members.push(argv[i + 2]);
    }
    return zaddExec(s, argv[1], members, scores, flags);
  },
});
