/**
 * GEOSEARCH, GEOSEARCHSTORE, GEORADIUS, GEORADIUSBYMEMBER and the _RO forms: one generic over
 * Redis's variant flags (georadiusGeneric). The search runs in Postgres (geo_search: the 9
 * geohash cells' score ranges, Redis's distances, order, COUNT [ANY], STORE/STOREDIST) as one
 * statement; the options are parsed here for each state the key can be in (./search-args.ts)
 * and the statement's status picks the answer.
 * https://redis.io/commands/geosearch/
 */
import { RespError, type Reply } from '../../reply';
import { Noted } from '../../pending-reply';
import type { Session } from '../../session';
import { eqIgnoreCase } from '../args';
import { dbArg, exec, int8, int8Reply, nowArg } from '../exec';
import { defineCommand } from '../define';
import { stored } from '../events';
import { kOneKey, type CommandFlag, type CommandSpec, type KeySpec } from '../spec';
import { Err } from '../../resp-errors';
import { f8 } from '../zset/bounds';
import { fixed } from './fixed';
import { georadiusEvents } from './events';
import { decodeScore } from './geohash';
import { coordinate } from './geopos';
import { GeoVariant, kNoMember, parseGeoQuery, type GeoQuery } from './search-args';
import { kGeoSql } from './sql';

const enum Status { Missing = 0, Done = 1, WrongType = 2, NoMember = 3 }

/** a STORE's count, noted with whether the destination existed (an empty result's 'del') */
const storedNoted = (rows: unknown[][], n: Reply): Noted => new Noted(n, rows[0][4] === true ? 1 : 0);

/** the statement's values for a query (or only the key checks when `q` is an error) */
function values(s: Session, src: Buffer, q: GeoQuery | RespError, lookup: Buffer | null,
  whenMissing: GeoQuery | RespError): unknown[] {
  const ok = !(q instanceof RespError);
  const g = ok ? q : undefined;
  const store = g?.store ?? (whenMissing instanceof RespError ? null : whenMissing.store);
  const conv = g?.conv ?? 1;
  const radiusM = g === undefined ? 0
    : g.box ? Math.sqrt((g.width / 2) * (g.width / 2) + (g.height / 2) * (g.height / 2)) * conv : g.radius * conv;
  return [dbArg(s), src, lookup, f8(g?.lon ?? 0), f8(g?.lat ?? 0), g?.box ? 'true' : 'false', f8(radiusM),
    f8((g?.width ?? 0) * conv), f8((g?.height ?? 0) * conv), int8(g?.any ? g.count : 0n), String(g?.sort ?? 0),
    int8(g?.count ?? 0n), store, g?.storeDist ? 'true' : 'false', f8(conv), ok ? 'true' : 'false',
    !(whenMissing instanceof RespError) && whenMissing.store !== null ? 'true' : 'false', nowArg()];
}

function reply(s: Session, q: GeoQuery, rows: unknown[][]): Reply | Noted {
  if (q.store !== null) return storedNoted(rows, int8Reply(rows[0][3] as number));
  const out: Reply[] = [];
  for (const r of rows) {
    if (r[1] === null) continue;
    const member = r[1] as Buffer;
    if (!q.withDist && !q.withHash && !q.withCoord) { out.push(member); continue; }
    const item: Reply[] = [member];
    if (q.withDist) item.push(Buffer.from(fixed((r[3] as number) / q.conv, 4)));
    if (q.withHash) item.push(Math.trunc(r[2] as number));
    if (q.withCoord) item.push(decodeScore(r[2] as number).map((x) => coordinate(s, x)));
    out.push(item);
  }
  return out;
}

/**
 * GEORADIUS's keys as redis-server 7.0's COMMAND GETKEYS finds them (keyword key specs): the key,
 * then the argument after the first STORE, then after the first STOREDIST, searched from `from`.
 */
function storeKeys(from: number): (argv: Buffer[]) => Buffer[] {
  return (argv) => {
    const out = [argv[1]];
    for (const word of ['store', 'storedist']) {
      for (let i = from; i + 1 < argv.length; i++) if (eqIgnoreCase(argv[i], word)) { out.push(argv[i + 1]); break; }
    }
    return out;
  };
}

interface Variant { name: string; arity: number; flags: readonly CommandFlag[]; keys: KeySpec; v: GeoVariant; since: string; summary: string }

function geoSearchCommand(d: Variant): CommandSpec {
  const src = d.v & GeoVariant.SearchStore ? 2 : 1;
  return defineCommand({
    name: d.name, arity: d.arity, flags: d.flags, keys: d.keys, acl: ['geo'], group: 'geo', since: d.since, summary: d.summary,
    events: !d.flags.includes('write') ? undefined
      : d.v & GeoVariant.SearchStore ? stored('geosearchstore') : georadiusEvents(d.v & GeoVariant.Coords ? 6 : 5),
    getKeys: d.flags.includes('movablekeys') ? storeKeys(d.v & GeoVariant.Coords ? 6 : 5) : undefined,
    complexity: 'O(N+log(M)) where N is the number of elements in the grid-aligned bounding box area around the shape provided as the filter and M is the number of items inside the shape',
    run(s, argv) {
      // the answers for each state of the key (see search-args.ts); the member looked up, if any
      const found = parseGeoQuery(argv, d.v, true, true);
      const noMember = parseGeoQuery(argv, d.v, true, false);
      const missing = parseGeoQuery(argv, d.v, false, false);
      const lookup = !(found instanceof RespError) ? found.member : noMember === kNoMember ? memberArg(argv, d.v) : null;
      return exec(s, kGeoSql.search, values(s, argv[src], found, lookup, missing), (rows) => {
        const status = rows.length === 0 ? Status.Done : (rows[0][0] as Status);
        if (status === Status.WrongType) return Err.wrongType;
        if (status === Status.Missing) {
          if (missing instanceof RespError) return missing;
          return missing.store !== null ? storedNoted(rows, 0) : [];
        }
        if (status === Status.NoMember) return noMember;
        return found instanceof RespError ? found : reply(s, found, rows);
      });
    },
  });
}

/** the member a search around a member looks up (GEORADIUSBYMEMBER's, or FROMMEMBER's argument) */
function memberArg(argv: Buffer[], v: GeoVariant): Buffer | null {
  if (v & GeoVariant.Member) return argv[2];
  for (let i = v & GeoVariant.SearchStore ? 3 : 2; i + 1 < argv.length; i++) {
    if (argv[i].toString('latin1').toLowerCase() === 'frommember') return argv[i + 1];
  }
  return null;
}

const kRead: readonly CommandFlag[] = ['readonly'];
const kWrite: readonly CommandFlag[] = ['write', 'denyoom', 'movablekeys'];

export const geosearch = geoSearchCommand({ name: 'geosearch', arity: -7, flags: kRead, keys: kOneKey, v: GeoVariant.Search,
  since: '6.2.0', summary: 'Queries a geospatial index for members inside an area of a box or a circle.' });
export const geosearchstore = geoSearchCommand({ name: 'geosearchstore', arity: -8, flags: ['write', 'denyoom'],
  keys: { first: 1, last: 2, step: 1 }, v: GeoVariant.Search | GeoVariant.SearchStore, since: '6.2.0',
  summary: 'Queries a geospatial index for members inside an area of a box or a circle, optionally stores the result.' });
export const georadius = geoSearchCommand({ name: 'georadius', arity: -6, flags: kWrite, keys: kOneKey, v: GeoVariant.Coords,
  since: '3.2.0', summary: 'Queries a geospatial index for members within a distance from a coordinate, optionally stores the result.' });
export const georadiusRo = geoSearchCommand({ name: 'georadius_ro', arity: -6, flags: kRead, keys: kOneKey,
  v: GeoVariant.Coords | GeoVariant.NoStore, since: '3.2.10', summary: 'Returns members from a geospatial index that are within a distance from a coordinate.' });
export const georadiusbymember = geoSearchCommand({ name: 'georadiusbymember', arity: -5, flags: kWrite, keys: kOneKey,
  v: GeoVariant.Member, since: '3.2.0', summary: 'Queries a geospatial index for members within a distance from a member, optionally stores the result.' });
export const georadiusbymemberRo = geoSearchCommand({ name: 'georadiusbymember_ro', arity: -5, flags: kRead, keys: kOneKey,
  v: GeoVariant.Member | GeoVariant.NoStore, since: '3.2.10', summary: 'Returns members from a geospatial index that are within a distance from a member.' });
