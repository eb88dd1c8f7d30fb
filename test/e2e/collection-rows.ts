/**
 * Table-driven command tests for the collection families (hash*, set*, list*, zset*.test.ts):
 * each row is a command and the reply Redis 7 gives, run in order on one connection, one at a
 * time or as one pipeline. Rows marked 'unordered' compare arrays (and RESP3 sets/maps) as
 * multisets: Redis does not specify the order of HGETALL, SMEMBERS… either.
 *
 * E2E_ORACLE_PORT=6379 runs the same tables against a real redis-server instead of PostRESP:
 * that is how the expected values here were checked.
 */
import assert from 'node:assert/strict';
import { RawClient, encode, type Value } from './resp-client';
import { startServer, type RunningServer } from './start-server';

export type Row = [(string | Buffer)[], Value] | [(string | Buffer)[], Value, 'unordered'];

export const E = (error: string): Value => ({ error });
export const kWrongType = E('WRONGTYPE Operation against a key holding the wrong kind of value');
export const kSyntax = E('ERR syntax error');
export const kNotInt = E('ERR value is not an integer or out of range');
export const kNotFloat = E('ERR value is not a valid float');
export const arity = (c: string): Value => E(`ERR wrong number of arguments for '${c}' command`);

export interface Target { port: number; stop(): Promise<unknown> }

/** PostRESP (2 workers) or, with E2E_ORACLE_PORT, the redis-server there */
export async function startTarget(): Promise<Target> {
  const oracle = process.env.E2E_ORACLE_PORT;
  if (oracle) return { port: Number(oracle), stop: async () => undefined };
  const server: RunningServer = await startServer(['--workers', '2']);
  return server;
}

function canon(v: Value): string {
  if (Array.isArray(v)) return `[${v.map(canon).sort().join(',')}]`;
  if (v !== null && typeof v === 'object') {
    if ('set' in v) return `~${canon(v.set)}`;
    if ('map' in v) return `%${v.map.map(([k, x]) => `${canon(k)}=${canon(x)}`).sort().join(',')}`;
  }
  return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x));
}

function check(got: Value, row: Row, i: number): void {
  const [cmd, want, mode] = row;
  const label = `#${i} ${cmd.map(String).join(' ')}`;
  if (mode === 'unordered') assert.equal(canon(got), canon(want), label);
  else assert.deepEqual(got, want, label);
}

/** FLUSHALL, then the rows in order; pipelined = all of them in one write. */
export async function runRows(port: number, rows: Row[], pipelined: boolean): Promise<void> {
  const c = await RawClient.connect(port);
  try {
    assert.equal(await c.call('FLUSHALL'), 'OK');
    if (pipelined) {
      c.send(Buffer.concat(rows.map(([cmd]) => encode(...cmd))));
      const got = await c.read(rows.length, 30000);
      rows.forEach((row, i) => check(got[i], row, i));
    } else {
      for (let i = 0; i < rows.length; i++) check(await c.call(...rows[i][0]), rows[i], i);
    }
  } finally {
    c.close();
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** PEXPIRE and friends belong to another family: tests use them when the server has them */
export async function hasCommand(c: RawClient, name: string): Promise<boolean> {
  const info = await c.call('COMMAND', 'INFO', name);
  return Array.isArray(info) && info[0] !== null;
}
