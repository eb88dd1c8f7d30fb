/**
 * Helpers for durability tests: a Postgres of the test's own (it gets killed), PostRESP pointed
 * at it, a pipelined writer that records what was acknowledged, and patient readers that wait
 * out PostRESP's reconnect backoff (50 ms … 2 s per lane).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../core/primary/postgres/embedded';
import { encode, RawClient, type Value } from '../e2e/resp-client';
import { startServer, uniqueSchema, type RunningServer } from '../e2e/start-server';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface OwnPostgres {
  dir: string;
  dataDir: string;
  pg: EmbeddedPostgres;
  /** start again on the same data folder and port (after stop() or a kill) */
  restart(): Promise<EmbeddedPostgres>;
  cleanup(): Promise<void>;
}

export async function ownPostgres(label: string): Promise<OwnPostgres> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), `postresp-${label}-`));
  const dataDir = path.join(dir, 'pg');
  const self: OwnPostgres = {
    dir, dataDir,
    pg: await startEmbeddedPostgres({ dataDir }),
    async restart() {
      self.pg = await startEmbeddedPostgres({ dataDir, port: self.pg.port });
      return self.pg;
    },
    async cleanup() {
      await self.pg.stop().catch(() => undefined);
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
  return self;
}

export function startPostresp(pg: EmbeddedPostgres, mode: string, schema: string, extra: string[] = []): Promise<RunningServer> {
  return startServer(['--pg-url', pg.localUrl, '--storage-mode', mode, '--workers', '2', ...extra], { schema });
}

export { uniqueSchema };

export const isError = (v: Value): v is { error: string } => typeof v === 'object' && v !== null && 'error' in v;

export interface WriterStats {
  acked: Map<string, string>; // key → value, every SET answered +OK
  errors: number; // SETs answered with an error
  errorTexts: Map<string, number>; // error text up to its first ':' → count
  errorExamples: Map<string, string>; // the same kinds → one full text
  okAfterKill: number; // +OK received after the kill (must be durable like every other)
  unanswered: number; // sent, never answered (connection closed or timeout)
  failed: Set<string>; // keys whose SET got an error or no answer: in doubt
}

/**
 * `clients` connections, each sending SET k<c>_<i> v… in pipelined windows of `window` and
 * waiting for each window's replies before the next, until stop().
 */
export function startWriter(port: number, clients: number, window: number, killedAt: () => number | undefined, valueBytes = 64) {
  const stats: WriterStats = { acked: new Map(), errors: 0, errorTexts: new Map(), errorExamples: new Map(), okAfterKill: 0, unanswered: 0, failed: new Set() };
  let stopping = false;
  const one = async (c: number) => {
    const conn = await RawClient.connect(port);
    try {
      for (let i = 0; !stopping; i += window) {
        const keys = Array.from({ length: window }, (_, j) => `k${c}_${i + j}`);
        const value = (k: string) => `v:${k}:${'x'.repeat(valueBytes)}`;
        conn.send(Buffer.concat(keys.map((k) => encode('SET', k, value(k)))));
        let replies: Value[];
        try {
          replies = await conn.read(window, 20000);
        } catch {
          stats.unanswered += window;
          for (const k of keys) stats.failed.add(k);
          return;
        }
        replies.forEach((r, j) => {
          if (r === 'OK') {
            stats.acked.set(keys[j], value(keys[j]));
            if (killedAt() !== undefined) stats.okAfterKill++;
          } else {
            stats.errors++;
            stats.failed.add(keys[j]);
            const full = isError(r) ? r.error : JSON.stringify(r);
            const text = full.replace(/:.*/, '');
            stats.errorTexts.set(text, (stats.errorTexts.get(text) ?? 0) + 1);
            if (!stats.errorExamples.has(text)) stats.errorExamples.set(text, full);
          }
        });
      }
    } finally {
      conn.close();
    }
  };
  const done = Promise.all(Array.from({ length: clients }, (_, c) => one(c)));
  return { stats, async stop() { stopping = true; await done; }, done };
}

/** GET key on a fresh connection until it answers a value instead of an error; ms waited. */
export async function waitAnswering(port: number, key: string, timeoutMs = 30000): Promise<number> {
  const t0 = Date.now();
  let last: Value = null;
  while (Date.now() - t0 < timeoutMs) {
    const c = await RawClient.connect(port);
    try {
      last = await c.call('GET', key);
      if (!isError(last)) return Date.now() - t0;
    } finally {
      c.close();
    }
    await sleep(100);
  }
  throw new Error(`PostRESP still answers ${JSON.stringify(last)} ${timeoutMs} ms after Postgres came back`);
}

/** MGET of every key, 500 at a time, retrying a chunk while it answers a storage error. */
export async function readAll(port: number, keys: string[], timeoutMs = 30000): Promise<Map<string, string | null>> {
  const out = new Map<string, string | null>();
  const c = await RawClient.connect(port);
  try {
    for (let i = 0; i < keys.length; i += 500) {
      const chunk = keys.slice(i, i + 500);
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const r = await c.call('MGET', ...chunk);
        if (Array.isArray(r)) {
          chunk.forEach((k, j) => out.set(k, r[j] as string | null));
          break;
        }
        if (Date.now() > deadline) throw new Error(`MGET still fails: ${JSON.stringify(r)}`);
        await sleep(100);
      }
    }
  } finally {
    c.close();
  }
  return out;
}
