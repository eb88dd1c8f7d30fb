/**
 * `logged` mode acknowledges a write only once its commit is on disk: for every +OK, the WAL
 * flush position read right after the reply arrived is already past the end of that write's
 * COMMIT record (found with pg_walinspect by the row's xmin). Clients write concurrently, so
 * their SETs share lane batches and commits (and, with commit_delay, WAL flushes).
 * `logged-async` runs the same probe as a control: there replies come
 * before the WAL writer's flush (up to wal_writer_delay, 20 ms, later), which the probe sees
 * unless other sessions' synchronous commits flushed it first; reported, not asserted.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { RawClient, encode } from '../e2e/resp-client';
import { startServer, uniqueSchema, type RunningServer } from '../e2e/start-server';
import { testPgUrl, withPg } from '../support/pg';

const kClients = 4;
const kSetsPerClient = 40;

/** an LSN 'X/Y' as a number that orders like it */
const lsn = (text: string): bigint => {
  const [hi, lo] = text.split('/');
  return (BigInt(`0x${hi}`) << 32n) | BigInt(`0x${lo}`);
};

interface Ack { key: string; flushed: string }

/** kClients clients, each SET after SET (one in flight, as redis-benchmark -P 1); after each +OK its own probe reads the flush LSN */
async function writeAndProbe(port: number, prefix: string): Promise<Ack[]> {
  const acks: Ack[] = [];
  await Promise.all(Array.from({ length: kClients }, async (_, c) => {
    const client = await RawClient.connect(port);
    const probe = new pg.Client({ connectionString: testPgUrl() });
    await probe.connect();
    try {
      for (let i = 0; i < kSetsPerClient; i++) {
        const key = `${prefix}:${c}:${i}`;
        client.send(encode('SET', key, 'v'));
        const [reply] = await client.read(1);
        // asked at once: the flush position can only grow, so a later answer is weaker, never wrong
        const { rows } = await probe.query('SELECT pg_current_wal_flush_lsn()::text AS f');
        assert.equal(reply, 'OK');
        acks.push({ key, flushed: rows[0].f });
      }
    } finally {
      client.close();
      await probe.end();
    }
  }));
  return acks;
}

/** acknowledged writes whose COMMIT record ends past the flush position read right after the +OK */
async function unflushedAcks(schema: string, since: string, acks: Ack[]): Promise<string[]> {
  return withPg(async (c) => {
    const xids = await c.query(`SELECT convert_from(key, 'UTF8') AS key, xmin::text AS xid FROM "${schema}".kv WHERE db = 0 AND key = ANY($1)`,
      [acks.map((a) => Buffer.from(a.key))]);
    assert.equal(xids.rows.length, acks.length, 'every acknowledged key is stored');
    // pg_walinspect reads only flushed WAL: in logged-async the last commits may still sit in WAL
    // buffers (the WAL writer flushes them within wal_writer_delay), so wait until all is flushed
    const insertEnd = (await c.query('SELECT pg_current_wal_insert_lsn()::text AS l')).rows[0].l as string;
    for (let i = 0; lsn((await c.query('SELECT pg_current_wal_flush_lsn()::text AS f')).rows[0].f) < lsn(insertEnd); i++) {
      assert.ok(i < 500, `WAL never flushed up to ${insertEnd}`);
      await new Promise((r) => setTimeout(r, 10));
    }
    const commits = await c.query(`SELECT xid::text AS xid, end_lsn::text AS e FROM pg_get_wal_records_info($1::pg_lsn, $2::pg_lsn)
      WHERE resource_manager = 'Transaction' AND record_type LIKE 'COMMIT%'`, [since, insertEnd]);
    const commitEnd = new Map<string, bigint>(commits.rows.map((r) => [r.xid, lsn(r.e)]));
    const xidOf = new Map<string, string>(xids.rows.map((r) => [r.key, r.xid]));
    const late: string[] = [];
    for (const a of acks) {
      const end = commitEnd.get(xidOf.get(a.key)!);
      assert.ok(end !== undefined, `no COMMIT record found for ${a.key}`);
      if (end > lsn(a.flushed)) late.push(`${a.key}: commit ends at ${end.toString(16)}, flushed ${a.flushed}`);
    }
    return late;
  });
}

describe('a logged write is acknowledged only after its commit is flushed', () => {
  const servers: RunningServer[] = [];
  before(async () => {
    await withPg((c) => c.query('CREATE EXTENSION IF NOT EXISTS pg_walinspect'));
  });
  after(async () => {
    for (const s of servers) await s.stop();
  });

  async function run(mode: string): Promise<{ acks: number; late: string[] }> {
    const schema = uniqueSchema(`ackflush_${mode.replace('-', '_')}`);
    const server = await startServer(['--storage-mode', mode, '--workers', '2'], { schema });
    servers.push(server);
    const since = await withPg(async (c) => (await c.query('SELECT pg_current_wal_insert_lsn()::text AS l')).rows[0].l as string);
    const acks = await writeAndProbe(server.port, 'ack');
    return { acks: acks.length, late: await unflushedAcks(schema, since, acks) };
  }

  it('logged: every +OK comes after its COMMIT record is on disk', async (t) => {
    const { acks, late } = await run('logged');
    t.diagnostic(`${acks} acknowledged SETs from ${kClients} concurrent clients, ${late.length} ahead of their flush`);
    assert.deepEqual(late.slice(0, 5), []);
  });

  it('logged-async (control): the same probe finds acknowledgements ahead of the flush, or says why not', async (t) => {
    const { acks, late } = await run('logged-async');
    t.diagnostic(`logged-async: ${late.length} of ${acks} acknowledged SETs were ahead of their WAL flush when probed ` +
      '(0 is possible when other sessions\' synchronous commits flushed the WAL first)');
  });
});
