/**
 * l_pop_run (list/functions.ts), the statement of every LPOP/RPOP batch, on a live list that keeps
 * elements: one UPDATE of the kv row locks, checks and moves head/card, then the DELETE of the
 * range. Checked against the real Postgres: the key's row is read once (main's function read it
 * twice: SELECT … FOR NO KEY UPDATE, then UPDATE), the popped elements and offsets, and a pop that
 * waited on another session's push takes what that push committed (the DELETE's snapshot is
 * taken after the lock: a one-statement pop would have missed them and lost count).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { startupOptions } from '../../core/primary/postgres/schema';
import { migrate } from '../../core/primary/postgres/migrations';
import { freshSchema, testPgUrl, withPg } from '../support/pg';
import { installFunctions } from '../../core/engine/commands/install-functions';

let schema: string;
let drop: () => Promise<void>;

before(async () => {
  ({ schema, drop } = await freshSchema('list_pop_run'));
  await migrate(testPgUrl(), { schema, storageMode: 'unlogged', convertStorageMode: false });
  await withPg((c) => installFunctions(c, schema));
});
after(async () => drop());

async function session<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: testPgUrl(), options: startupOptions('unlogged', schema) });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** key k := the list a…(n letters), through l_push as RPUSH */
async function fill(c: pg.Client, k: string, n: number): Promise<void> {
  await c.query(`DELETE FROM kv WHERE db = 0 AND key = $1`, [Buffer.from(k)]);
  const els = Array.from({ length: n }, (_, i) => Buffer.from(String.fromCharCode(97 + i)));
  await c.query(`SELECT * FROM l_push(0::int2, $1, $2, false, false, 1)`, [Buffer.from(k), els]);
}

interface PopRow { status: number; off: number | null; value: Buffer | null; gone: boolean | null }

async function popRun(c: pg.Client, k: string, count: number, left: boolean): Promise<PopRow[]> {
  return (await c.query(`SELECT * FROM l_pop_run(0::int2, $1, $2, $3, 1)`, [Buffer.from(k), count, left])).rows as PopRow[];
}

/** the elements in pop order (rows come unordered, placed by offset as list/pop-batch.ts does) */
function inOrder(rows: PopRow[], left: boolean): string {
  const out: string[] = [];
  for (const r of rows) out[left ? r.off! : rows.length - 1 - r.off!] = r.value!.toString();
  return out.join('');
}

async function range(c: pg.Client, k: string): Promise<string> {
  const r = await c.query(`SELECT l.value FROM kv k JOIN lists l ON l.db = k.db AND l.key = k.key
    AND l.pos BETWEEN k.head AND k.head + k.card - 1 WHERE k.db = 0 AND k.key = $1 ORDER BY l.pos`, [Buffer.from(k)]);
  const rows = await c.query(`SELECT count(*)::int AS n FROM lists WHERE db = 0 AND key = $1`, [Buffer.from(k)]);
  assert.equal(rows.rows[0].n, r.rowCount, 'no row outside head…head+card-1');
  return r.rows.map((x: { value: Buffer }) => x.value.toString()).join('');
}

describe('l_pop_run on a live list that keeps elements', () => {
  it('reads the key\'s kv row once (one scan of kv per pop)', () => {
    return session(async (c) => {
      await fill(c, 'once', 10);
      await popRun(c, 'once', 1, true); // plans cached
      // the session's counts not yet reported (they add up over transactions, and are reported
      // only between them): the pop's own is the difference, inside one transaction
      const scans = async () => (await c.query(`SELECT (coalesce(idx_scan, 0) + seq_scan)::int AS n
        FROM pg_stat_xact_user_tables WHERE relid = 'kv'::regclass`)).rows[0].n as number;
      for (const left of [true, false]) {
        await c.query('BEGIN');
        const before = await scans();
        await popRun(c, 'once', 2, left);
        const n = await scans() - before;
        await c.query('COMMIT');
        assert.equal(n, 1, `${left ? 'LPOP' : 'RPOP'}: scans of kv in one pop`);
      }
    });
  });

  it('pops from either end, with offsets from the low end of the range, and moves head and card', () => {
    return session(async (c) => {
      await fill(c, 'ends', 8);
      const l = await popRun(c, 'ends', 3, true);
      assert.deepEqual(l.map((r) => [r.status, r.gone]), [[1, false], [1, false], [1, false]]);
      assert.equal(inOrder(l, true), 'abc');
      const r = await popRun(c, 'ends', 2, false);
      assert.equal(inOrder(r, false), 'hg');
      assert.equal(await range(c, 'ends'), 'def');
      const kv = await c.query(`SELECT card::int, head::int FROM kv WHERE db = 0 AND key = 'ends'`);
      assert.deepEqual(kv.rows[0], { card: 3, head: 3 });
      // the last elements, and more than there are: the key goes (gone), then nothing
      const last = await popRun(c, 'ends', 5, false);
      assert.equal(inOrder(last, false), 'fed');
      assert.ok(last.every((x) => x.gone === true));
      assert.deepEqual(await popRun(c, 'ends', 1, true), []);
    });
  });

  it('an expired list, another type and a count of 0 answer as before', () => {
    return session(async (c) => {
      await fill(c, 'exp', 4);
      await c.query(`UPDATE kv SET expires_at = 1 WHERE db = 0 AND key = 'exp'`);
      assert.deepEqual(await popRun(c, 'exp', 1, true), []);
      assert.equal((await c.query(`SELECT count(*)::int AS n FROM lists WHERE db = 0 AND key = 'exp'`)).rows[0].n, 0);
      await c.query(`INSERT INTO kv (db, key, type, value) VALUES (0, 'str', 0, 'x') ON CONFLICT DO NOTHING`);
      assert.deepEqual((await popRun(c, 'str', 1, true)).map((r) => r.status), [2]);
      await fill(c, 'zero', 2);
      assert.deepEqual(await popRun(c, 'zero', 0, true), [{ status: 1, off: null, value: null, gone: false }]);
      assert.equal(await range(c, 'zero'), 'ab');
    });
  });

  it('a pop that waited on another session\'s push takes what the push committed', () => {
    return session((a) => session(async (b) => {
      await fill(a, 'race', 3); // a b c
      await a.query('BEGIN');
      // LPUSH x y: the list is y x a b c once committed; the kv row stays locked until then
      await a.query(`SELECT * FROM l_push(0::int2, 'race', ARRAY['x'::bytea, 'y'::bytea], true, false, 1)`);
      const pid = (await b.query('SELECT pg_backend_pid() AS p')).rows[0].p as number;
      const popped = popRun(b, 'race', 3, true);
      // b waits for a's row lock
      for (let i = 0; i < 200; i++) {
        const w = await a.query(`SELECT wait_event_type FROM pg_stat_activity WHERE pid = $1`, [pid]);
        if (w.rows[0]?.wait_event_type === 'Lock') break;
        await new Promise((r) => setTimeout(r, 10));
      }
      await a.query('COMMIT');
      assert.equal(inOrder(await popped, true), 'yxa');
      assert.equal(await range(a, 'race'), 'bc');
      const kv = await a.query(`SELECT card::int FROM kv WHERE db = 0 AND key = 'race'`);
      assert.equal(kv.rows[0].card, 2);
    }));
  });
});
