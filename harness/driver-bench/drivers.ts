// The drivers compared by the driver benchmark, behind one small interface. Every driver runs the
// same two statements and touches every returned value (sums its length), so no driver wins by
// not decoding what it received.
import { NativePgConnection } from '../../core/engine/pg-driver/native-conn';
import { startupOptions } from '../../core/primary/postgres/schema';
import { kSql } from '../../workers/storage/statements';
import { encodeBufferArray, int2Array, int8 } from '../../core/engine/pg-driver/binary-array';
import { writeArrays } from '../../workers/storage/write-run';
import { WriteOp } from '../../core/engine/ops';

/** Schema of the `lane` driver: the real keyspace tables (migrations), unlogged. */
export const kLaneSchema = 'driver_bench_kv';

export const kSelectSql = 'SELECT key, value FROM driver_bench WHERE key = ANY($1::bytea[])';
export const kUpsertSql = 'INSERT INTO driver_bench SELECT * FROM unnest($1::bytea[], $2::bytea[]) ' +
  'ON CONFLICT (key) DO UPDATE SET value = excluded.value';

/** done(rows, bytes) after each statement; err aborts the run. */
export type Done = (err: Error | null, rows: number, bytes: number) => void;

export interface BenchDriver {
  /** Statements it keeps in flight on its one connection (pg-native: 1, it cannot pipeline). */
  readonly maxInFlight: number;
  select(keys: Buffer[], done: Done): void;
  upsert(keys: Buffer[], values: Buffer[], done: Done): void;
  close(): Promise<void>;
}

export const kDriverNames = ['native', 'native-rows', 'native-jsarray', 'pg', 'pg-textarray', 'pg-native', 'lane'] as const;
export type DriverName = (typeof kDriverNames)[number];

export async function openDriver(name: DriverName, url: string, inFlight: number, connections = 1): Promise<BenchDriver> {
  switch (name) {
    case 'lane':
      return laneDriver(url, inFlight, connections);
    case 'native':
      return nativeDriver(url, inFlight, false, false);
    case 'native-rows':
      return nativeDriver(url, inFlight, false, true);
    case 'native-jsarray':
      return nativeDriver(url, inFlight, true, false);
    case 'pg':
      return pgDriver(url, inFlight, true);
    case 'pg-textarray':
      return pgDriver(url, inFlight, false);
    case 'pg-native':
      return pgNativeDriver(url);
  }
}

/** Ours: each statement is its own sync group (own transaction), like node-postgres's pipeline
 * mode, which sends Sync after every query. Arrays go as JS arrays or, with preEncoded, as one
 * binary-array Buffer built beforehand. rowArrays: read rows through PgResult.rows() (a Buffer
 * per value) instead of offsets/lengths. */
async function nativeDriver(url: string, inFlight: number, preEncoded: boolean, rowArrays: boolean): Promise<BenchDriver> {
  const conn = await NativePgConnection.connect(url);
  return {
    maxInFlight: inFlight,
    select(keys, done) {
      conn.send(kSelectSql, [preEncoded ? encodeBufferArray(keys) : keys], (err, res) => {
        if (err || !res) return done(err, 0, 0);
        let bytes = 0;
        if (rowArrays) for (const row of res.rows()) bytes += row[0]!.length + row[1]!.length;
        else for (let r = 0; r < res.rowCount; r++) bytes += res.length(r, 0) + res.length(r, 1);
        done(null, res.rowCount, bytes);
      });
      conn.sync();
    },
    upsert(keys, values, done) {
      const params = preEncoded ? [encodeBufferArray(keys), encodeBufferArray(values)] : [keys, values];
      conn.send(kUpsertSql, params, (err, res) => (err || !res ? done(err, 0, 0) : done(null, res.affected, 0)));
      conn.sync();
    },
    close: () => conn.close(),
  };
}

/** The workers' own statements (workers/storage/statements.ts: GET/MGET run, SET/MSET run) on the
 * keyspace tables, parameters encoded as a lane encodes them, spread over `connections`
 * connections like PostRESP's lanes: the ceiling a PostRESP batch of this size can reach. */
async function laneDriver(url: string, inFlight: number, connections: number): Promise<BenchDriver> {
  const options = startupOptions('unlogged', kLaneSchema);
  const conns = await Promise.all(Array.from({ length: connections }, () =>
    NativePgConnection.connect(url, { libpq: { options } })));
  let next = 0;
  const pick = () => conns[next++ % conns.length];
  return {
    maxInFlight: inFlight,
    select(keys, done) {
      const conn = pick();
      conn.send(kSql.read.text, [int2Array(keys.map(() => 0)), encodeBufferArray(keys), int8(Date.now())], (err, res) => {
        if (err || !res) return done(err, 0, 0);
        let bytes = 0;
        for (let r = 0; r < res.rowCount; r++) bytes += res.length(r, 2);
        done(null, res.rowCount, bytes);
      });
      conn.sync();
    },
    upsert(keys, values, done) {
      const conn = pick();
      // exactly the lane's parameters: de-duplicated, sorted by key (lock order), binary arrays
      const kv: Buffer[] = [];
      for (let i = 0; i < keys.length; i++) kv.push(keys[i], values[i]);
      const params = writeArrays([new WriteOp(0, null, null, kv, null)]);
      conn.send(kSql.write.text, params as Buffer[], (err, res) => (err || !res ? done(err, 0, 0) : done(null, res.affected, 0)));
      conn.sync();
    },
    close: async () => {
      await Promise.all(conns.map((c) => c.close()));
    },
  };
}

/** node-postgres 8.23 pipeline mode with binary results. binaryArrays: bytea[] parameters are
 * pre-encoded in binary (its fastest path); otherwise it serialises the JS array itself (text
 * literal, hex per element). */
async function pgDriver(url: string, inFlight: number, binaryArrays: boolean): Promise<BenchDriver> {
  // eslint-disable-next-line @typescript-eslint/no-var-requires
  const pg = require('pg');
  const client = new pg.Client({ connectionString: url, pipeline: true, binary: true });
  await client.connect();
  const arr = (v: Buffer[]) => (binaryArrays ? encodeBufferArray(v) : v);
  return {
    maxInFlight: inFlight,
    select(keys, done) {
      client.query({ name: 'sel', text: kSelectSql, values: [arr(keys)], binary: true }, (err: Error | null, res: any) => {
        if (err) return done(err, 0, 0);
        let bytes = 0;
        for (const row of res.rows) bytes += row.key.length + row.value.length;
        done(null, res.rows.length, bytes);
      });
    },
    upsert(keys, values, done) {
      client.query({ name: 'ups', text: kUpsertSql, values: [arr(keys), arr(values)], binary: true },
        (err: Error | null, res: any) => (err ? done(err, 0, 0) : done(null, res.rowCount, 0)));
    },
    close: () => client.end(),
  };
}

/** pg-native (libpq npm binding): text parameters and results, one statement at a time. */
async function pgNativeDriver(url: string): Promise<BenchDriver> {
  // eslint-disable-next-line @typescript-eslint/no-var-requires
  const Client = require('pg-native');
  const client = new Client();
  await new Promise<void>((resolve, reject) => client.connect(url, (err: Error) => (err ? reject(err) : resolve())));
  const prepare = (name: string, sql: string, n: number) =>
    new Promise<void>((resolve, reject) => client.prepare(name, sql, n, (err: Error) => (err ? reject(err) : resolve())));
  await prepare('sel', kSelectSql, 1);
  await prepare('ups', kUpsertSql, 2);
  // bytea[] as a text literal: {"\\x6b6579…",…}
  const literal = (v: Buffer[]) => '{' + v.map((b) => `"\\\\x${b.toString('hex')}"`).join(',') + '}';
  return {
    maxInFlight: 1,
    select(keys, done) {
      client.execute('sel', [literal(keys)], (err: Error | null, rows: any[]) => {
        if (err) return done(err, 0, 0);
        let bytes = 0;
        for (const row of rows) bytes += row.key.length + row.value.length;
        done(null, rows.length, bytes);
      });
    },
    upsert(keys, values, done) {
      client.execute('ups', [literal(keys), literal(values)], (err: Error | null) => done(err, keys.length, 0));
    },
    close: () => new Promise<void>((resolve) => client.end(() => resolve())),
  };
}
