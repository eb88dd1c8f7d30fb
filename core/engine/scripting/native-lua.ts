/**
 * Loads the Lua engine addon (binding.gyp target "postresp_lua", core/native/lua). It is its own
 * .node file so that the main addon does not depend on liblua; like the main one it is
 * context-aware, so every worker thread loads its own instance (they share one thread pool and
 * one script/library store per process).
 */
import path from 'node:path';
import { packageRoot } from '../../native';
import { PostrespError, kErrNative } from '../../errors';

/** Raw binding; see core/native/lua/addon-lua.c for each function. */
export interface LuaAddon {
  init(dispatch: (kind: number, id: number, a: unknown, b: unknown) => void): void;
  run(kind: number, id: number, shaOrName: string | null, body: Buffer | null, argv: (Buffer | string)[],
    nkeys: number, proto: number, replace: boolean): object;
  reply(handle: object, bytes: Buffer): void;
  /** false: a KILL came first and the call must not write (decided under the kill's lock) */
  markWritten(handle: object): boolean;
  kill(functions: boolean): number;
  running(): { kind: 'script' | 'function'; name: string; ms: number; written: boolean }[];
  /** 0, or 1 (EVAL) / 2 (FCALL): the kind of the oldest call past thresholdMs that a call of this
   *  thread waiting for a script connection waits behind (pool.c pool_busy) */
  busy(thresholdMs: number): number;
  scriptLoad(body: Buffer | string): { sha: string; flags: number } | { error: string };
  scriptFlags(sha: string): number;
  scriptFlush(): void;
  sha1hex(data: Buffer | string): string;
  functionFlags(name: string): number;
  functionDelete(name: string): boolean;
  functionFlush(): void;
  functionList(): { name: string; code: Buffer; functions: { name: string; description: string | null; flags: number }[] }[];
  configure(threads: number, memoryLimit: number, redisVersion: string): void;
  stats(): { threads: number; idle: number; queued: number; memoryLimit: number };
  libraryVersion(): number;
  librarySync(begin: boolean, version?: number): boolean;
}

let cached: LuaAddon | undefined;

export function loadLuaAddon(): LuaAddon {
  if (cached) return cached;
  const root = packageRoot();
  const tried: string[] = [];
  for (const dir of ['Release', 'Debug']) {
    const file = path.join(root, 'build', dir, 'postresp_lua.node');
    tried.push(file);
    try {
      // eslint-disable-next-line @typescript-eslint/no-var-requires
      cached = require(file) as LuaAddon;
      return cached;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') {
        throw new PostrespError(kErrNative, `cannot load the Lua engine addon ${file} (${(e as Error).message}). ` +
          'Install liblua5.1-0-dev, lua-cjson-dev and lua-bitop-dev and run `npm rebuild`.', { cause: e });
      }
    }
  }
  throw new PostrespError(kErrNative, `the Lua engine addon is not built (looked for ${tried.join(', ')}). ` +
    'Install liblua5.1-0-dev, lua-cjson-dev and lua-bitop-dev and run `npm rebuild`.');
}
