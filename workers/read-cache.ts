/**
 * The worker's end of the read cache (docs/cache.md): its NearCache over the process's shared
 * version table and entry arena, the write hook's bumps, and the lanes' submit path that answers
 * a GET/MGET from it. Absent with --cache off.
 */
import type { ServeTask } from '../core/messages';
import type { Config } from '../core/config/config';
import type { WriteHook } from '../core/engine/write-hook';
import { NearCache } from '../core/engine/cache/near-cache';
import { VersionTable } from '../core/engine/cache/version-table';
import { invalidator } from '../core/engine/cache/invalidate';
import { CacheArena } from '../core/engine/cache/arena';

/** values larger than this are not cached: a 64 KB value is ~20 µs of copying, nothing next to its round trip */
const kMaxValue = 64 * 1024;

export function startReadCache(task: ServeTask, config: Config, hook: WriteHook): NearCache | undefined {
  if (task.cacheVersions === undefined || task.cacheArena === undefined) return undefined;
  const table = new VersionTable(task.cacheVersions);
  hook.listen(invalidator(table));
  // owner: a replacement of a worker that died holding the arena's lock releases it
  const arena = new CacheArena(task.cacheArena, task.workerIndex + 1);
  // CONFIG SET before this worker started (a restarted worker): the arena holds the bound already
  if (arena.limitBytes > config.int('cache-max-memory')) arena.setLimit(config.int('cache-max-memory'));
  // worker 0 reports the arena's entries and bytes (one arena per process: the workers' sum stays right)
  return new NearCache(table, arena, kMaxValue, task.workerIndex === 0);
}
