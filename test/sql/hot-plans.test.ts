/**
 * Every hot statement reaches its rows through the primary key (or a ctid the key's index gave),
 * whatever the statistics say. A plan is chosen from pg_class's row count and page density; after
 * a storage-mode conversion kv was "one row" for a while and the lanes' cached plan for GET read
 * every key of the database through kv_scan per batch (issue 12). Here each statement and each
 * PL/pgSQL statement inside the functions is planned on tables whose statistics say empty, one
 * row, large, and one row while the table is large (stale), in generic plans (what the lanes use)
 * and custom ones, from a session with the lanes' start-up options; auto_explain hands back every
 * plan, nested ones included, and each scan of a keyspace table is checked.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { kSql } from '../../workers/storage/statements';
import { kCardSql } from '../../core/engine/commands/collection/sql';
import { kKeySql } from '../../core/engine/commands/keys/sql';
import { kStringSql } from '../../core/engine/commands/string/sql';
import { kTransactionSql } from '../../core/engine/commands/transactions/sql';
import { kHashSql } from '../../core/engine/commands/hash/sql';
import { kListSql } from '../../core/engine/commands/list/sql';
import { kSetSql } from '../../core/engine/commands/set/sql';
import { kZsetSql } from '../../core/engine/commands/zset/sql';
import { startupOptions } from '../../core/primary/postgres/schema';
import { migrate } from '../../core/primary/postgres/migrations';
import type { Statement } from '../../core/engine/key-store';
import { freshSchema, testPgUrl, withPg } from '../support/pg';
import { installFunctions } from '../../core/engine/commands/install-functions';

const kTables = ['kv', 'hashes', 'lists', 'sets', 'zsets'];
/** Statements meant to read or write a whole database (no key to look up) */
const kWholeDb = new Set(['keys.dbsize', 'keys.flushdb', 'keys.flushall', 'keys.swapdb']);
/** SCAN pages walk kv in kv_hash order: the kv_scan index is their key (keys/sql.ts scanPage) */
const kHashOrder = new Set(['keys.scanPage']);
/** LREM compares every element (value is not indexed) and orders the matches by count's sign: a sort is its plan */
const kSortsMatches = new Set(['list.rem']);
/**
 * Random picks read a key whole when it holds at most 256 × count elements, or when sampling
 * found a window too dense (collection/random-sql.ts): a sort bounded by the reply's size, by
 * design. Only that query (ORDER BY random()) is let through.
 */
const kSmallKeyRandomSort = /ORDER BY random\(\)/;
/** Each family's statements (named family.member in reports) and the key they get as $2; other bytea parameters get 'm1' */
const kFamilies: [string, string, Record<string, Statement>][] = [
  ['lane', 'K', kSql], ['string', 'K', kStringSql], ['keys', 'K', kKeySql], ['transactions', 'K', kTransactionSql],
  ['hash', 'H', { ...kHashSql, card: kCardSql }], ['list', 'L', kListSql], ['set', 'S', kSetSql], ['zset', 'Z', kZsetSql],
];

type Stats = 'empty' | 'one row' | 'large' | 'stale';
const kLarge = 20_000;

/** SQL filling every keyspace table with n rows: n strings and, per family, one key of n elements */
function fill(s: string, n: number, tag: string): string[] {
  if (n === 0) return [];
  const key = (f: string) => `'\\x${Buffer.from(`${tag}:${f}`).toString('hex')}'::bytea`;
  const el = `convert_to('e' || i, 'UTF8')`;
  return [
    `INSERT INTO ${s}.kv (db, key, type, value) SELECT 0, convert_to('${tag}:s' || i, 'UTF8'), 0, '\\x00' FROM generate_series(1, ${n}) i`,
    `INSERT INTO ${s}.kv (db, key, type, card, head) VALUES (0, ${key('h')}, 1, ${n}, NULL), (0, ${key('l')}, 2, ${n}, 0),
       (0, ${key('s')}, 3, ${n}, NULL), (0, ${key('z')}, 4, ${n}, NULL)`,
    `INSERT INTO ${s}.hashes (db, key, field, value) SELECT 0, ${key('h')}, ${el}, '\\x00' FROM generate_series(1, ${n}) i`,
    `INSERT INTO ${s}.lists (db, key, pos, value) SELECT 0, ${key('l')}, i - 1, '\\x00' FROM generate_series(1, ${n}) i`,
    `INSERT INTO ${s}.sets (db, key, member) SELECT 0, ${key('s')}, ${el} FROM generate_series(1, ${n}) i`,
    `INSERT INTO ${s}.zsets (db, key, member, score) SELECT 0, ${key('z')}, ${el}, i FROM generate_series(1, ${n}) i`,
  ];
}

/** The keys the statements run against: K a string, H L S Z collections holding m1, m2, m3 */
function testKeys(s: string): string[] {
  const m = `(VALUES ('\\x6d31'::bytea, 1), ('\\x6d32', 2), ('\\x6d33', 3)) AS t(m, i)`;
  return [
    `INSERT INTO ${s}.kv (db, key, type, value, card, head) VALUES (0, 'K', 0, '1', NULL, NULL), (0, 'H', 1, NULL, 3, NULL),
       (0, 'L', 2, NULL, 3, 0), (0, 'S', 3, NULL, 3, NULL), (0, 'Z', 4, NULL, 3, NULL)`,
    `INSERT INTO ${s}.hashes (db, key, field, value) SELECT 0, 'H', m, '1' FROM ${m}`,
    `INSERT INTO ${s}.lists (db, key, pos, value) SELECT 0, 'L', i - 1, m FROM ${m}`,
    `INSERT INTO ${s}.sets (db, key, member) SELECT 0, 'S', m FROM ${m}`,
    `INSERT INTO ${s}.zsets (db, key, member, score) SELECT 0, 'Z', m, i FROM ${m}`,
  ];
}

async function prepareTables(schema: string, stats: Stats): Promise<void> {
  const s = `"${schema}"`;
  await migrate(testPgUrl(), { schema, storageMode: 'unlogged', convertStorageMode: false });
  await withPg(async (c) => {
    await installFunctions(c, schema);
    for (const t of kTables) await c.query(`ALTER TABLE ${s}.${t} SET (autovacuum_enabled = off)`);
    const before = stats === 'large' ? kLarge : stats === 'empty' ? 0 : 1;
    for (const sql of fill(s, before, 'a')) await c.query(sql);
    for (const t of kTables) await c.query(`ANALYZE ${s}.${t}`);
    // stale: the statistics say one row while the table has grown (no ANALYZE since)
    for (const sql of fill(s, stats === 'stale' ? kLarge : 0, 'b')) await c.query(sql);
    for (const sql of testKeys(s)) await c.query(sql);
  });
}

/** A value of each parameter type, from the `$n::type` casts of the statement */
function params(name: string, st: Statement, key: string): unknown[] {
  const types: string[] = [];
  for (const m of st.text.matchAll(/\$(\d+)::([a-z0-9]+(\[\])?)/g)) types[Number(m[1]) - 1] ??= m[2]!;
  return Array.from(types, (t, i) => {
    switch (t) {
      case undefined: throw new Error(`${name}: $${i + 1} has no ::type cast`);
      case 'bytea': return Buffer.from(i === 1 ? key : 'm1');
      case 'bytea[]': return [Buffer.from(key), Buffer.from('m2')];
      case 'int2': case 'int4': case 'int8': case 'float8': return i === 0 && t === 'int2' ? 0 : 1;
      case 'int2[]': return [0, 0];
      case 'int4[]': case 'int8[]': case 'float8[]': return [1, 2];
      case 'bool': return false;
      case 'text': return '1';
      default: throw new Error(`${name}: no test value for type ${t}`);
    }
  });
}

interface PlanNode { 'Node Type': string; 'Relation Name'?: string; 'Index Name'?: string; 'Index Cond'?: string;
  'Filter'?: string; 'Recheck Cond'?: string; Plans?: PlanNode[] }

/** An equality on a column of a primary key past (db, key): field, member, pos */
const kElementEquality = /(^|[\s(.])(field|member|pos)\s*=\s|=\s*(ANY\s*\()?\(?(\w+\.)?(field|member|pos)\)/;
const kKeyEquality = /(^|[\s(.])key\s*=\s|=\s*\(?(\w+\.)?key\)/;

/**
 * What is wrong with a plan: a sequential scan of a keyspace table, or an index scan without an
 * index condition; kv read through another index than its primary key; a key or element looked
 * up anywhere but in the primary key (an index sharing the (db, key) prefix reads the whole
 * collection, filtering).
 */
function problems(node: PlanNode, out: string[], statement: string, walks: boolean, table?: string): string[] {
  const rel = node['Relation Name'] ?? table;
  const index = node['Index Name'];
  const what = `${node['Node Type']}${rel ? ` on ${rel}` : ''}${index ? ` using ${index}` : ''}`;
  if (rel !== undefined && kTables.includes(rel)) {
    if (/Seq Scan|Sample Scan/.test(node['Node Type'])) out.push(what);
    // an index walked end to end, on a table the planner knows to be large (enable_sort = off
    // made it the way to order even two rows); on empty and one-row statistics the table is
    // that small and autovacuum's ANALYZE replaces the plan as it grows (stale covers the rest)
    if (walks && /Index (Only )?Scan/.test(node['Node Type']) && node['Index Cond'] === undefined) out.push(`${what} without an index condition`);
    if (index !== undefined && rel === 'kv' && index !== 'kv_pkey' && !(index === 'kv_scan' && kHashOrder.has(statement))) out.push(what);
    const conds = [node['Index Cond'], node.Filter, node['Recheck Cond']].filter((x) => x !== undefined).join(' AND ');
    if (kElementEquality.test(conds) && index !== undefined && index !== `${rel}_pkey`) out.push(`${what}: ${conds}`);
    if (node.Filter !== undefined && (kKeyEquality.test(node.Filter) || kElementEquality.test(node.Filter))) {
      out.push(`${what} filtering ${node.Filter}`);
    }
  }
  // an ordered pick (ZPOPMIN, a random pick) sorting the whole collection instead of reading its index in order
  const input = node['Node Type'] === 'Sort' ? node.Plans?.[0] : undefined;
  if (input?.['Relation Name'] !== undefined && !kSortsMatches.has(statement) && kTables.includes(input['Relation Name']) && input['Relation Name'] !== 'kv' &&
    input['Node Type'] !== 'ModifyTable') {
    out.push(`Sort of ${input['Node Type']} on ${input['Relation Name']}${input['Index Name'] ? ` using ${input['Index Name']}` : ''}`);
  }
  // a Bitmap Heap Scan names the table, its Bitmap Index Scan child the index
  for (const child of node.Plans ?? []) problems(child, out, statement, walks, node['Node Type'] === 'Bitmap Heap Scan' ? rel : undefined);
  return out;
}

async function plansOf(schema: string, generic: boolean, large: boolean): Promise<Map<string, string[]>> {
  const options = startupOptions('unlogged', schema).replace('force_generic_plan', generic ? 'force_generic_plan' : 'force_custom_plan');
  const c = new pg.Client({ connectionString: testPgUrl(), options });
  await c.connect();
  const found = new Map<string, string[]>();
  let current = '';
  c.on('notice', (msg) => {
    const at = msg.message?.indexOf('plan:\n') ?? -1;
    if (at < 0) return;
    const plan = JSON.parse(msg.message!.slice(at + 6)) as { 'Query Text': string; Plan: PlanNode };
    const bad = problems(plan.Plan, [], current, large)
      .filter((p) => !(p.startsWith('Sort of') && kSmallKeyRandomSort.test(plan['Query Text'])));
    if (bad.length > 0) found.set(`${current}: ${plan['Query Text'].replace(/\s+/g, ' ').slice(0, 160)}`, bad);
  });
  try {
    await c.query(`LOAD 'auto_explain'`);
    for (const set of ['log_min_duration = 0', 'log_nested_statements = on', 'log_format = json']) await c.query(`SET auto_explain.${set}`);
    await c.query('SET client_min_messages = log');
    for (const [family, key, statements] of kFamilies) {
      for (const [member, st] of Object.entries(statements)) {
        const name = `${family}.${member}`;
        if (kWholeDb.has(name)) continue;
        current = name;
        // twice: a plan cache entry chooses its plan kind at the second execution at the latest
        for (let i = 0; i < 2; i++) {
          await c.query('BEGIN');
          // WATCH's check raises when a version moved; its lookups were planned (and logged) before
          await c.query({ name, text: st.text, values: params(name, st, key) })
            .catch((err: { code?: string }) => assert.equal(err.code, 'PRW01', `${name}: ${String(err)}`));
          await c.query('ROLLBACK');
        }
      }
    }
    await c.query('SET client_min_messages = warning');
  } finally {
    await c.end();
  }
  return found;
}

describe('hot statements use the primary key whatever the statistics say', () => {
  for (const stats of ['empty', 'one row', 'large', 'stale'] as Stats[]) {
    for (const generic of [true, false]) {
      it(`${stats} tables, ${generic ? 'generic' : 'custom'} plans`, async () => {
        const { schema, drop } = await freshSchema(`plans_${stats}`);
        try {
          await prepareTables(schema, stats);
          const found = await plansOf(schema, generic, stats === 'large' || stats === 'stale');
          assert.deepEqual(Object.fromEntries(found), {});
        } finally {
          await drop();
        }
      });
    }
  }
});
