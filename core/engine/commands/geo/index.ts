/** Geo commands: positions as 52-bit geohash scores in sorted sets (docs/geo.md). */
import type { CommandSpec } from '../spec';
import { geoadd } from './geoadd';
import { geodist } from './geodist';
import { geohash, geopos } from './geopos';
import { georadius, georadiusbymember, georadiusbymemberRo, georadiusRo, geosearch, geosearchstore } from './search';

export const kGeoCommands: CommandSpec[] = [
  geoadd, geodist, geohash, geopos, geosearch, geosearchstore, georadius, georadiusRo, georadiusbymember, georadiusbymemberRo,
];
