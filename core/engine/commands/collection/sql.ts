/**
 * Statements every collection family (hash, list, set, zset) has, generated from its table's
 * names: the same query over `hashes h … field` and `zsets z … member` is written once here.
 * Reads return kv.type first (no row = missing or expired key: ../exec.ts typedRead); $1 db,
 * $2 key, the last $n now. Random picks and scans: random-sql.ts, scan-sql.ts.
 */
import type { KeyType, Statement } from '../../key-store';
import { live } from '../kv-row';

/** A family's element table: one row per element, keyed (db, key, id) */
export interface CollectionTable {
  table: string;
  /** the table's alias in the statements (h, l, s, z) */
  alias: string;
  /** the element's identity column after (db, key): field, pos, member */
  id: string;
  /** kv.type of the family */
  type: KeyType;
}

/** WHERE for the kv row `k` of key $2 in db $1, live at $n (expired keys read as missing) */
export const liveKey = (n: number): string =>
  `k.db = $1::int2 AND k.key = $2::bytea AND ${live('k', `$${n}::int8`)}`;

/** The family's rows of the kv row k */
export const rowsOf = (t: CollectionTable): string => `${t.alias}.db = k.db AND ${t.alias}.key = k.key`;

/** Every collection's element count (HLEN, SCARD, ZCARD, LLEN): kv.card, checked against the type. */
export const kCardSql: Statement = {
  text: `SELECT k.type, k.card FROM kv k WHERE ${liveKey(3)}`,
};

/** `column` of element $3 (HGET, HSTRLEN, ZSCORE); NULL when it is not there */
export const elementSql = (t: CollectionTable, column: string): Statement => ({
  text: `SELECT k.type, ${column} FROM kv k LEFT JOIN ${t.table} ${t.alias} ON ${rowsOf(t)} AND ${t.alias}.${t.id} = $3::bytea WHERE ${liveKey(4)}`,
});

/** `column` of each element of $3, i = its position (HMGET, ZMSCORE) */
export const elementsSql = (t: CollectionTable, column: string): Statement => ({
  text: `SELECT k.type, e.i::int4, ${column} FROM kv k CROSS JOIN unnest($3::bytea[]) WITH ORDINALITY AS e(id, i)
           LEFT JOIN ${t.table} ${t.alias} ON ${rowsOf(t)} AND ${t.alias}.${t.id} = e.id WHERE ${liveKey(4)}`,
});

/** whether element $3 is there (HEXISTS, SISMEMBER) */
export const hasElementSql = (t: CollectionTable): Statement => ({
  text: `SELECT k.type, EXISTS (SELECT 1 FROM ${t.table} ${t.alias} WHERE ${rowsOf(t)} AND ${t.alias}.${t.id} = $3::bytea) FROM kv k WHERE ${liveKey(4)}`,
});

/** `columns` of every element (HKEYS, HVALS, HGETALL, SMEMBERS) */
export const everyElementSql = (t: CollectionTable, columns: string): Statement => ({
  text: `SELECT k.type, ${columns} FROM kv k LEFT JOIN ${t.table} ${t.alias} ON ${rowsOf(t)} WHERE ${liveKey(3)}`,
});
