/**
 * redis-server and PostRESP (unlogged) side by side for one test file: both started in a
 * `before` hook (then `setup`), stopped in `after`. Tests read the clients from the returned
 * object once they run.
 */
import { after, before } from 'node:test';
import { RawClient } from '../e2e/resp-client';
import { startServer, type RunningServer } from '../e2e/start-server';
import { startRedis, type RedisServer } from './oracle';

export interface ServerPair { r: RawClient; p: RawClient }

export function serverPair(setup?: (pair: ServerPair) => Promise<void>): ServerPair {
  const pair = {} as ServerPair;
  let redis: RedisServer | undefined;
  let server: RunningServer | undefined;
  before(async () => {
    [redis, server] = await Promise.all([startRedis(), startServer(['--storage-mode', 'unlogged'])]);
    [pair.r, pair.p] = await Promise.all([RawClient.connect(redis.port), RawClient.connect(server.port)]);
    await setup?.(pair);
  });
  after(async () => {
    pair.r?.close();
    pair.p?.close();
    await Promise.all([redis?.stop(), server?.stop()]);
  });
  return pair;
}
