/**
 * The servers BullMQ's tests run against (test/e2e/bullmq.test.ts, test/libraries/bullmq-flow.test.ts):
 * two PostRESP processes sharing a schema in a storage mode, or one redis-server 7.0 (the oracle).
 */
import { startServer, uniqueSchema } from './start-server';
import { startRedis } from '../differential/oracle';
import { withPg } from '../support/pg';

export interface Target { ports: [number, number]; stop(): Promise<void> }

export async function postresp(mode: 'logged' | 'unlogged', prefix = 'bullmq'): Promise<Target> {
  const schema = uniqueSchema(`${prefix}_${mode}`);
  const args = ['--workers', '2', '--storage-mode', mode];
  const [a, b] = await Promise.all([startServer(args, { schema }), startServer(args, { schema })]);
  return {
    ports: [a.port, b.port],
    async stop() {
      await Promise.all([a.stop(), b.stop()]);
      await withPg(async (c) => void (await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)));
    },
  };
}

export async function redis(): Promise<Target> {
  const r = await startRedis();
  return { ports: [r.port, r.port], stop: () => r.stop() };
}

/** BullMQ requires maxRetriesPerRequest null on the connections it blocks on */
export const connection = (port: number) => ({ host: '127.0.0.1', port, maxRetriesPerRequest: null });
