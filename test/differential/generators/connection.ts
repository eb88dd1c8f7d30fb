/**
 * Connection commands that change how later commands run: SELECT (valid dbs, out of range, not
 * an int), PING, ECHO with binary payloads, unknown commands (Redis quotes their arguments).
 */
import type { Cmd } from '../oracle';
import { value, type Family, type Keyspace } from './family';

const kBadDbs = ['16', '-1', 'abc', '', '1.0', '01', '2147483648', '4294967296', '-2147483649', '9223372036854775808'];

function connectionEdges(ks: Keyspace): Cmd[] {
  const k = ks.named('sel');
  const out: Cmd[] = [];
  for (const db of ks.dbs) out.push(['SELECT', String(db)], ['SET', k, `in ${db}`]);
  for (const db of ks.dbs) out.push(['SELECT', String(db)], ['GET', k]);
  for (const bad of kBadDbs) out.push(['SELECT', bad], ['GET', k]); // a failed SELECT keeps the db
  out.push(['SELECT', '0'], ['SELECT'], ['SELECT', '1', '2'], ['PING'], ['PING', 'x'], ['PING', 'a', 'b'], ['ECHO'],
    ['ECHO', Buffer.from([0, 255, 13, 10])], ['ECHO', ''], ['NOSUCH'], ['nosuch', 'a', 'b'],
    ['NOSUCH', Buffer.from('a\r\nb')], ['NOSUCH', Buffer.from('a\x00b')], ['GETT', 'x'.repeat(200)]);
  return out;
}

export const connection: Family = {
  name: 'connection',
  commands: [
    { name: 'select', weight: 3, make: ({ rng, ks }) => ['SELECT', rng.chance(0.9) ? String(rng.pick(ks.dbs)) : rng.pick(kBadDbs)] },
    { name: 'ping', weight: 0.5, make: ({ rng }) => (rng.chance(0.5) ? ['PING'] : ['PING', value(rng)]) },
    { name: 'echo', weight: 0.5, make: ({ rng }) => ['ECHO', value(rng)] },
  ],
  edges: connectionEdges,
};
