/**
 * Installs the server-side functions every family declares in its functions.ts, at start, after
 * the migrations (core/primary/provision.ts). This file holds no SQL of its own: a new family's
 * functions are one import and one entry in kFamilies. The primary imports the families'
 * functions.ts files, not their command index (which it never runs).
 *
 * Order matters only where Postgres checks a body at creation: LANGUAGE sql functions and
 * aggregates (zset's f8add before z_agg_step before z_agg). PL/pgSQL bodies are resolved at
 * their first call, so families may call each other's functions (HINCRBYFLOAT calls ld_parse).
 */
import type pg from 'pg';
import { quoteIdent } from '../../primary/postgres/schema';
import { blockingFunctions } from './blocking/functions';
import { bitmapFunctions } from './bitmap/functions';
import { dumpFunctions } from './dump/functions';
import { geoFunctions } from './geo/functions';
import { hashFunctions } from './hash/functions';
import { hyperloglogFunctions } from './hyperloglog/functions';
import { keyFunctions } from './keys/functions';
import { listFunctions } from './list/functions';
import { scriptingFunctions } from './scripting/functions';
import { setFunctions } from './set/functions';
import { sortFunctions } from './sort/functions';
import { stringFunctions } from './string/functions';
import { transactionFunctions } from './transactions/functions';
import { zsetFunctions } from './zset/functions';
import { streamFunctions } from './stream/functions';

/** Each family's CREATE statements, given the quoted schema name */
const kFamilies: ((s: string) => string[])[] = [
  stringFunctions, transactionFunctions, keyFunctions, hashFunctions, setFunctions, listFunctions, zsetFunctions,
  scriptingFunctions, streamFunctions, blockingFunctions, hyperloglogFunctions, geoFunctions, sortFunctions, bitmapFunctions, dumpFunctions,
];

export function functionStatements(schema: string): string[] {
  const s = quoteIdent(schema);
  return kFamilies.flatMap((family) => family(s));
}

/**
 * CREATE OR REPLACE cannot change a function's result type (42P13): a newer PostRESP whose
 * function returns other columns drops the old one first. Running instances of the old version
 * would then fail their calls: upgrade instances together.
 */
async function createOrReplace(client: pg.Client, sql: string): Promise<void> {
  await client.query('SAVEPOINT fn');
  try {
    await client.query(sql);
  } catch (e) {
    const m = /FUNCTION\s+("?[\w]+"?)\.(\w+)\s*\(/i.exec(sql);
    if ((e as { code?: string }).code !== '42P13' || m === null) throw e;
    await client.query('ROLLBACK TO SAVEPOINT fn');
    const drop = await client.query(
      `SELECT format('DROP FUNCTION %s', p.oid::regprocedure) AS stmt FROM pg_proc p
       JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = $1 AND p.proname = $2`,
      [m[1].replace(/"/g, ''), m[2]]);
    for (const r of drop.rows as { stmt: string }[]) await client.query(r.stmt);
    await client.query(sql);
  }
}

export async function installFunctions(client: pg.Client, schema: string): Promise<void> {
  await client.query('BEGIN');
  try {
    // two instances starting together must not replace the same function concurrently
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`postresp.functions:${schema}`]);
    for (const sql of functionStatements(schema)) await createOrReplace(client, sql);
    await client.query('COMMIT');
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw e;
  }
}
