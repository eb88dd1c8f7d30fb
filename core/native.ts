/**
 * Loads the PostRESP addon (binding.gyp target "postresp") with node-gyp-build. The addon is
 * context-aware, so the primary and every worker thread load their own instance.
 */
import path from 'node:path';
import { PostrespError, kErrNative } from './errors';

export interface NativeAddon {
  dupFd(fd: number): number;
  closeFd(fd: number): void;
  /** one nonblocking send(2): bytes sent, or -errno */
  sendFd(fd: number, data: Uint8Array): number;
  /** the socket inode of fd (unique while it is open), or -errno */
  socketId(fd: number): number;
  /** sendFd, or -ESTALE when fd is no longer the socket whose socketId was id */
  sendFdIf(fd: number, id: number, data: Uint8Array): number;
  [name: string]: unknown;
}

let cached: NativeAddon | undefined;

export function packageRoot(): string {
  // compiled files live in dist/core/, sources in core/: the package root is where package.json is
  const here = __dirname;
  return path.basename(path.dirname(here)) === 'dist' ? path.resolve(here, '..', '..') : path.resolve(here, '..');
}

export function loadNative(): NativeAddon {
  if (cached) return cached;
  try {
    // eslint-disable-next-line @typescript-eslint/no-var-requires
    const build = require('node-gyp-build') as (dir: string) => NativeAddon;
    cached = build(packageRoot());
    return cached;
  } catch (e) {
    throw new PostrespError(kErrNative,
      `cannot load the PostRESP native addon (${(e as Error).message}). ` +
      'Install the build prerequisites (python3, make, g++, libpq-dev) and run `npm rebuild`.', { cause: e });
  }
}
