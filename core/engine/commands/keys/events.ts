/**
 * The generic (keys) family's keyspace events: Redis 7.0's db.c and expire.c rules. FLUSHDB,
 * FLUSHALL and SWAPDB fire no keyspace event in Redis; the hook still reports them, as "every
 * key of the db" (key null), for the listeners that keep state per key (cache, tracking).
 */
import { lower } from '../args';
import { done } from '../events';
import type { EventsOf } from '../../write-hook';

/**
 * DEL, UNLINK: `del` for each key that existed, in argument order (a repeated key once). The
 * note says which were deleted (per argument); without it the reply's count leaves that open
 * unless it is all or none (maybe each).
 */
export const delEvents: EventsOf = (emit, db, argv, reply, note) => {
  if (!done(reply)) return;
  const deleted = Array.isArray(note) ? note : undefined;
  const keys: Buffer[] = [];
  const hit: boolean[] = [];
  for (let i = 1; i < argv.length; i++) {
    const at = keys.findIndex((k) => k.equals(argv[i]));
    if (at < 0) {
      keys.push(argv[i]);
      hit.push(deleted?.[i - 1] === true);
    } else if (deleted?.[i - 1] === true) hit[at] = true;
  }
  keys.forEach((k, i) => {
    if (deleted === undefined) emit(db, 'del', k, keys.length !== reply);
    else if (hit[i]) emit(db, 'del', k, false);
  });
};

/**
 * EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT: `expire` when set, `del` when the time is already past
 * (Redis's checkAlreadyExpired: a relative time ≤ 0, an absolute one ≤ now).
 */
export function expireEvents(unitMs: number, absolute: boolean): EventsOf {
  return (emit, db, argv, reply) => {
    if (!done(reply)) return;
    const n = Number(argv[2]);
    const past = absolute ? n * unitMs <= Date.now() : n <= 0;
    emit(db, past ? 'del' : 'expire', argv[1], false);
  };
}

/** RENAME, RENAMENX: nothing for a key renamed to itself */
export const renameEvents: EventsOf = (emit, db, argv, reply) => {
  if (!done(reply) || argv[1].equals(argv[2])) return;
  emit(db, 'rename_from', argv[1], false);
  emit(db, 'rename_to', argv[2], false);
};

/** COPY src dst [DB n]: `copy_to` on the destination, in its db */
export const copyEvents: EventsOf = (emit, db, argv, reply) => {
  if (!done(reply)) return;
  let to = db;
  for (let i = 3; i < argv.length - 1; i++) if (lower(argv[i]) === 'db') to = Number(argv[++i]);
  emit(to, 'copy_to', argv[2], false);
};

/** MOVE key db */
export const moveEvents: EventsOf = (emit, db, argv, reply) => {
  if (!done(reply)) return;
  emit(db, 'move_from', argv[1], false);
  emit(Number(argv[2]), 'move_to', argv[1], false);
};

export const flushdbEvents: EventsOf = (emit, db) => emit(db, 'flushdb', null, false);
export const flushallEvents: EventsOf = (emit) => emit(-1, 'flushall', null, false);

/** SWAPDB a b: both dbs' keys change (nothing when a = b) */
export const swapdbEvents: EventsOf = (emit, _db, argv) => {
  const a = Number(argv[1]);
  const b = Number(argv[2]);
  if (a === b) return;
  emit(a, 'swapdb', null, false);
  emit(b, 'swapdb', null, false);
};
