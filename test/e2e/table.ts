/**
 * Table-driven command tests: each row is a command and the reply Redis 7 gives (or a predicate
 * for clock-dependent replies), run on one connection one at a time or as one pipeline.
 */
import assert from 'node:assert/strict';
import { RawClient, encode, type Value } from './resp-client';

export type Row = [(string | Buffer)[], Value | ((v: Value) => boolean)];

export const between = (lo: number, hi: number) => (v: Value) => typeof v === 'number' && v >= lo && v <= hi;

/** `reset` runs first on the same connection (e.g. flush the databases the table uses). */
export async function runTable(port: number, rows: Row[], pipelined: boolean, reset: (c: RawClient) => Promise<unknown>): Promise<void> {
  const c = await RawClient.connect(port);
  try {
    await reset(c);
    let got: Value[];
    if (pipelined) {
      c.send(Buffer.concat(rows.map(([cmd]) => encode(...cmd))));
      got = await c.read(rows.length);
    } else {
      got = [];
      for (const [cmd] of rows) got.push(await c.call(...cmd));
    }
    rows.forEach(([cmd, want], i) => {
      const label = `#${i} ${cmd.map(String).join(' ')} → ${JSON.stringify(got[i])}`;
      if (typeof want === 'function') assert.ok(want(got[i]), label);
      else assert.deepEqual(got[i], want, label);
    });
  } finally {
    c.close();
  }
}
