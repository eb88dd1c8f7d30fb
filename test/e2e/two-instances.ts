/**
 * Two PostRESP processes on one fresh schema (the scale-out shape: instances share Postgres),
 * started before a test file's tests and stopped, with the schema dropped, after them.
 */
import { after, before } from 'node:test';
import { startServer, uniqueSchema, type RunningServer } from './start-server';
import { withPg } from '../support/pg';

export interface Pair { a: RunningServer; b: RunningServer; schema: string }

export function twoInstances(prefix: string, args: string[]): Pair {
  const schema = uniqueSchema(prefix);
  const pair = { schema } as Pair;
  before(async () => {
    pair.a = await startServer(args, { schema });
    pair.b = await startServer(args, { schema });
  });
  after(async () => {
    await Promise.all([pair.a?.stop(), pair.b?.stop()]);
    await withPg(async (c) => void (await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)));
  });
  return pair;
}
