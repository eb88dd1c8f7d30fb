/**
 * What a write bumps in the version table, before it is sent and again once its outcome is known:
 * each of its keys' slots (COMMAND GETKEYS's, keysOf), or the epoch when it touches keys it does
 * not name in this db (FLUSHDB, FLUSHALL, SWAPDB, MOVE, COPY … DB) or its keys cannot be found
 * from the line. Conservative on purpose: every write command bumps, whatever it turns out to do
 * (the hook's "maybe" outcomes, errors, a lost connection), so no outcome can leave an entry
 * behind. A key turned into another type, expired by EXPIRE, renamed or deleted is a write on it.
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
  if (kWholeDb.has(spec.name)) return sink.bumpEpoch();
  const k = spec.keys;
  // one key at argv[1] (SET, INCR, APPEND…): no key list made
  if (k.first === 1 && k.last === 1 && k.numkeysAt === undefined && k.afterKeyword === undefined && argv.length > 1) return sink.bump(db, argv[1]);
  const keys = keysOf(spec, argv);
  if (keys === undefined) return sink.bumpEpoch();
  for (let i = 0; i < keys.length; i++) sink.bump(db, keys[i]);
}

export function invalidator(table: VersionTable): WriteListener {
  const bump = (db: number, spec: CommandSpec, argv: Buffer[]): void => touchWritten(table, db, spec, argv);
  return { before: bump, after: bump };
}
