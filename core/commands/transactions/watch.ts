/**
 * WATCH key [key …] / UNWATCH — optimistic locking: EXEC fails (null array) when a watched key
 * changed after WATCH, by any client, any PostRESP instance on the same database, or expiry.
 * The check compares kv.version (stamped with the writing transaction's id) inside EXEC's
 * transaction.
 * https://redis.io/commands/watch/
 */
import { RespError } from '../../reply';
import { kOk } from '../../shared-replies';
import { defineCommand } from '../define';
import { kAllKeys } from '../spec';

const kInMulti = new RespError('ERR WATCH inside MULTI is not allowed');

export const watch = defineCommand({
  name: 'watch', arity: -2, flags: ['noscript', 'loading', 'stale', 'fast', 'allow_busy'], keys: kAllKeys,
  acl: ['fast', 'transaction'], group: 'transactions', since: '2.2.0', summary: 'Monitors changes to keys to determine the execution of a transaction.',
  async run(s, argv) {
    if (s.multi !== undefined) return kInMulti;
    const keys = argv.slice(1);
    const db = s.db;
    const versions = await s.server.store.versions(s, keys);
    keys.forEach((key, i) => {
      if (!s.watched.some((w) => w.db === db && w.key.equals(key))) s.watched.push({ db, key, version: versions[i] });
    });
    return kOk;
  },
});

export const unwatch = defineCommand({
  name: 'unwatch', arity: 1, flags: ['noscript', 'loading', 'stale', 'fast', 'allow_busy'], acl: ['fast', 'transaction'],
  group: 'transactions', since: '2.2.0', summary: 'Forgets about watched keys of a transaction.',
  run(s) {
    s.watched = [];
    return kOk;
  },
});
