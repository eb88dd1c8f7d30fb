/**
 * WATCH's statements (./functions.ts): run by the KeyStore (watch, unwatch) and by the lane
 * inside EXEC's transaction (watchCheck), arrays of (db, key) in $1, $2.
 */
import type { Statement } from '../../key-store';

export const kTransactionSql = {
  /** WATCH: per key (i = its position) the version EXEC compares, and whether it is a mark */
  watch: { text: 'SELECT i, ver, marked FROM watch_keys($1::int2[], $2::bytea[], $3::int8)' },
  /** EXEC: raises PRW01 when a watched key changed; $3 the versions WATCH saw */
  watchCheck: { text: 'SELECT watch_check($1::int2[], $2::bytea[], $3::int8[], $4::int8)' },
  /** the session's marks released (EXEC, DISCARD, UNWATCH, RESET, disconnect) */
  watchRelease: { text: 'SELECT watch_release($1::int2[], $2::bytea[], $3::int8[])' },
} satisfies Record<string, Statement>;
