/**
 * WATCH key [key …] / UNWATCH — optimistic locking: EXEC fails (null array) when a watched key
 * was written after WATCH (even created and deleted again), by any client, any PostRESP instance
 * on the same database, or expired. A key live at WATCH is compared by kv.version, an absent one
 * through its watch mark (core/engine/commands/transactions/functions.ts), inside EXEC's transaction.
 * https://redis.io/commands/watch/
 */
import { RespError } from '../../reply';
import { kOk } from '../../shared-replies';
import { defineCommand } from '../define';
import { kAllKeys } from '../spec';
import type { Session } from '../../session';

const kInMulti = new RespError('ERR WATCH inside MULTI is not allowed');

export const watch = defineCommand({
  name: 'watch', arity: -2, flags: ['noscript', 'loading', 'stale', 'fast', 'allow_busy'], keys: kAllKeys,
  acl: ['fast', 'transaction'], group: 'transactions', since: '2.2.0', summary: 'Monitors changes to keys to determine the execution of a transaction.',
  run(s, argv) {
    if (s.multi !== undefined) return kInMulti;
    const db = s.db;
    // a key already watched keeps what it was watched with (Redis: watchForKey returns early)
    const keys: Buffer[] = [];
    for (const key of argv.slice(1)) {
      if (!s.watched.some((w) => w.db === db && w.key.equals(key)) && !keys.some((k) => k.equals(key))) keys.push(key);
    }
    return keys.length > 0 ? s.server.store.watch(s, keys) : kOk;
  },
});

/** The session stops watching (EXEC, DISCARD, UNWATCH, RESET, disconnect). */
export function unwatchAll(s: Session): void {
  const watched = s.watched;
  if (watched.length === 0) return;
  s.watched = [];
  s.server.store.unwatch(s, watched);
}

export const unwatch = defineCommand({
  name: 'unwatch', arity: 1, flags: ['noscript', 'loading', 'stale', 'fast', 'allow_busy'], acl: ['fast', 'transaction'],
  group: 'transactions', since: '2.2.0', summary: 'Forgets about watched keys of a transaction.',
  run(s) {
    unwatchAll(s);
    return kOk;
  },
});
