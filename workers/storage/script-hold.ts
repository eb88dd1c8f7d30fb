/**
 * Declared keys held before the snapshot, for keys that made calls restart (docs/scripting.md
 * "Waiting for a lock"). A call locks its KEYS' rows in its first statement, which also takes the
 * REPEATABLE READ snapshot: a call that waited there for another call's commit has a snapshot from
 * before it and restarts (a lock restart: 0.4–0.5 per call in BullMQ, whose scripts all declare
 * the queue's keys). Postgres takes the snapshot at the first statement after BEGIN, so a lock that
 * must come first is taken outside the transaction: a session-level advisory lock per declared key
 * (class: the schema's, objid: a 32-bit hash of (db, key)), all in one statement in hash order (no
 * deadlock between two holds) and in its own sync group before BEGIN, given back right after
 * COMMIT / ROLLBACK. A call that waits there waits before its snapshot, and its row locks then find
 * the holder gone.
 *
 * Only calls with a hot key hold: a declared key of a call (or batch) that had a lock restart in
 * the last kHotMs on this worker. An uncontended call pays a Map lookup per key instead of two more
 * statements. Plain writers and keys a script did not declare still lock rows only: a call waiting
 * on those restarts as before (correct, only slower).
 */
import type { AtomicShare } from '../../core/engine/key-store';
import { int8Array } from '../../core/engine/pg-driver/binary-array';

/** the advisory-lock class: per schema, so instances on other schemas of the database do not wait on these */
const kClass = "hashtext('postresp.script-holds:' || current_schema())";

export const kHoldSql = {
  lock: `SELECT count(pg_advisory_lock(${kClass}, h::int4)) FROM unnest($1::int8[]) AS h`,
  unlock: `SELECT count(pg_advisory_unlock(${kClass}, h::int4)) FROM unnest($1::int8[]) AS h`,
};

/** a key stays hot this long after its last lock restart */
const kHotMs = 10_000;
/** at most this many hot keys per worker: past it the set starts over (a miss costs a restart, not an error) */
const kMaxHot = 4096;

/** FNV-1a over the db and the key's bytes, as a signed 32-bit int (pg_advisory_lock(int4, int4)) */
function keyHash(db: number, key: Buffer): number {
  let h = (0x811c9dc5 ^ (db & 0xff)) >>> 0;
  h = Math.imul(h, 0x01000193);
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key[i], 0x01000193);
  return h | 0;
}

export class HotKeys {
  private readonly until = new Map<string, number>();

  /** these calls' keys had a lock restart */
  add(shares: readonly (AtomicShare | undefined)[]): void {
    const t = Date.now() + kHotMs;
    for (const sh of shares) {
      if (sh === undefined) continue;
      for (const k of sh.keys) this.until.set(`${sh.db}:${k.toString('latin1')}`, t);
    }
    if (this.until.size > kMaxHot) this.until.clear();
  }

  /** The hold statement's parameter when one of these calls' keys is hot: every declared key's hash, distinct, sorted. */
  holdValues(shares: readonly (AtomicShare | undefined)[]): unknown[] | undefined {
    if (this.until.size === 0) return undefined;
    const now = Date.now();
    let hot = false;
    for (const sh of shares) {
      if (sh === undefined || hot) continue;
      for (const k of sh.keys) {
        const t = this.until.get(`${sh.db}:${k.toString('latin1')}`);
        if (t !== undefined && t > now) { hot = true; break; }
      }
    }
    if (!hot) return undefined;
    const hashes = new Set<number>();
    for (const sh of shares) if (sh !== undefined) for (const k of sh.keys) hashes.add(keyHash(sh.db, k));
    return [int8Array([...hashes].sort((a, b) => a - b))];
  }
}
