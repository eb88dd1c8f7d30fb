/** Statement pieces every collection family uses. */
import type { Statement } from '../../key-store';
import { live } from '../kv-row';

/** WHERE for the kv row `k` of key $2 in db $1, live at $n (expired keys read as missing) */
export const liveKey = (n: number): string =>
  `k.db = $1::int2 AND k.key = $2::bytea AND ${live('k', `$${n}::int8`)}`;

/** Every collection's element count (HLEN, SCARD, ZCARD, LLEN): kv.card, checked against the type. */
export const kCardSql: Statement = {
  text: `SELECT k.type, k.card FROM kv k WHERE ${liveKey(3)}`,
};
