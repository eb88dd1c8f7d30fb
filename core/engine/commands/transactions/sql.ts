/**
 * WATCH's statements (./functions.ts): run by the KeyStore (watch, unwatch) and by the lane
 * inside EXEC's transaction (watchCheck), arrays of (db, key) in $1, $2.
 */
import type { Statement } from '../../key-store';
import { call } from '../function-call';

export const kTransactionSql = {
  /** WATCH: per key (i = its position) the version EXEC compares, and whether it is a mark */
  watch: call('watch_keys', 'i, ver, marked', 'int2[]', 'bytea[]', 'int8'),
  /** EXEC: raises PRW01 when a watched key changed; $3 the versions WATCH saw */
  watchCheck: call('watch_check', '', 'int2[]', 'bytea[]', 'int8[]', 'int8'),
  /** the session's marks released (EXEC, DISCARD, UNWATCH, RESET, disconnect) */
  watchRelease: call('watch_release', '', 'int2[]', 'bytea[]', 'int8[]'),
} satisfies Record<string, Statement>;
