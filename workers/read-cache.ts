/**
 * The worker's end of the read cache (docs/cache.md): its NearCache over the process's shared
 * version table, the write hook's before/after bumps, and the lanes' submit path that answers
 * a GET/MGET from it. Absent with --cache off.
 */
import type { ServeTask } from '../core/messages';
import type { Config } from '../core/config/config';
import type { WriteHook } from '../core/engine/write-hook';
import { NearCache } from '../core/engine/cache/near-cache';
import { VersionTable } from '../core/engine/cache/version-table';
import { invalidator } from '../core/engine/cache/invalidate';

/** values larger than this are not cached: a 64 KB value is ~20 µs of copying, nothing next to its round trip */
const kMaxValue = 64 * 1024;

export function startReadCache(task: ServeTask, config: Config, hook: WriteHook, workers: number): NearCache | undefined {
  if (task.cacheVersions === undefined) return undefined;
  const table = new VersionTable(task.cacheVersions);
  hook.listen(invalidator(table));
  return new NearCache(table, shareOf(config, workers), kMaxValue);
}

/** --cache-max-memory is per process: each worker keeps its share */
export function shareOf(config: Config, workers: number): number {
  return Math.floor(config.int('cache-max-memory') / Math.max(1, workers));
}
