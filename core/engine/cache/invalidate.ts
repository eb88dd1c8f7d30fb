/**
 * What a write bumps in the version table once its outcome is known (committed, failed or
 * unknown), before its reply: each of its keys' slots (COMMAND GETKEYS's, keysOf), or the epoch
 * when it touches keys it does not name in this db (FLUSHDB, FLUSHALL, SWAPDB, MOVE, COPY … DB) or
 * its keys cannot be found from the line. Conservative on purpose: every write command bumps,
 * whatever it turns out to do (the hook's "maybe" outcomes, errors, a lost connection), so no
 * outcome can leave an entry behind. A key turned into another type, expired by EXPIRE, renamed
 * or deleted is a write on it.
 *
 * One bump, after: nothing before the statement is sent. A read racing the write either snapshot
 * its slot after the bump (its SELECT was sent after the commit, so it sees it) or before it (its
 * entry dies at the bump, or is not kept). What the bump before used to give, that the writer's
 * own pipelined GET is not answered from an entry its write is about to replace, comes from
 * Session.unackedWrites: the cache does not answer a session with a write still owed. The bump
 * before cost a SET a hash and an atomic add on a cold cache line (docs/cache.md).
 */
import { keysOf, type CommandSpec } from '../commands/spec';
import type { WriteListener } from '../write-hook';
import type { VersionTable } from './version-table';

/** writes reaching keys outside their own db's named keys */
const kWholeDb = new Set(['flushdb', 'flushall', 'swapdb', 'move', 'copy']);

/** Where a write's keys go: the version table, or --cache shared's outgoing invalidations. */
export interface WrittenSink {
  bump(db: number, key: Buffer): void;
  bumpEpoch(): void;
}

/** Tells sink the keys a write command changes (or the epoch). */
export function touchWritten(sink: WrittenSink, db: number, spec: CommandSpec, argv: Buffer[]): void {
  const k = spec.keys;
  // one key at argv[1] (SET, INCR, APPEND…): no key list made, no set looked up (MOVE reaches another db)
  if (k.first === 1 && k.last === 1 && k.numkeysAt === undefined && k.afterKeyword === undefined && argv.length > 1 && spec.name !== 'move') {
    return sink.bump(db, argv[1]);
  }
  if (kWholeDb.has(spec.name)) return sink.bumpEpoch();
  const keys = keysOf(spec, argv);
  if (keys === undefined) return sink.bumpEpoch();
  for (let i = 0; i < keys.length; i++) sink.bump(db, keys[i]);
}

export function invalidator(table: VersionTable): WriteListener {
  const bump = (db: number, spec: CommandSpec, argv: Buffer[]): void => touchWritten(table, db, spec, argv);
  return { after: bump };
}
