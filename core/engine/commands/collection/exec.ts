/**
 * How collection commands talk to the keyspace: one named statement per command through
 * KeyStore.exec (in order with the client's other commands), parameters in Postgres's binary
 * format where it saves a text round trip (bytea, bytea[], int8).
 *
 * Read statements return kv.type in their first column (no row = missing or expired key), so
 * one statement answers WRONGTYPE, "empty" and the data.
 */
import { RespError, type Reply } from '../../reply';
import { Err } from '../../resp-errors';
import type { Session } from '../../session';
import type { Rows, Statement } from '../../key-store';
import type { PendingReply } from '../../pending-reply';
import { encodeBufferArray, int8 } from '../../pg-driver/binary-array';

export { encodeBufferArray, int8 };

/** $now: the client's clock in Unix ms, the same clock SET EX uses for expires_at */
export const nowArg = (): Buffer => int8(Date.now());
export const dbArg = (s: Session): string => String(s.db);

export function exec(s: Session, stmt: Statement, values: unknown[], map: (rows: Rows) => Reply): PendingReply {
  return s.server.store.exec(s, stmt, values, map);
}

/**
 * The reply of a read whose rows start with kv.type: `empty` when the key is missing, WRONGTYPE
 * when it holds another type, else map(rows).
 */
export function typedRead(type: number, empty: Reply, map: (rows: Rows) => Reply): (rows: Rows) => Reply {
  return (rows) => {
    if (rows.length === 0) return empty;
    if (rows[0][0] !== type) return Err.wrongType;
    return map(rows);
  };
}

/** A function's status column (first) mapped to its error; status ≥ 0 and not an error → map(rows). */
export function statusReply(errors: Record<number, RespError>, map: (rows: Rows) => Reply): (rows: Rows) => Reply {
  return (rows) => {
    const status = rows[0][0] as number;
    if (status === 2) return Err.wrongType;
    const e = errors[status];
    return e ?? map(rows);
  };
}

/** A family function's (status, count) as the reply: WRONGTYPE for status 2, else the count (SADD, LPUSH, HSET). */
export function countReply(status: number, n: number): Reply {
  return status === 2 ? Err.wrongType : n;
}

/** Postgres int8 and numeric come back as text: numbers below 2^53 as numbers, else bigint. */
export function int(v: unknown): number | bigint {
  if (typeof v === 'number') return v;
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : BigInt(v as string);
}

/** Removes repeated buffers, keeping the first occurrence (SADD a a: one member). */
export function distinct(items: Buffer[]): Buffer[] {
  if (items.length < 2) return items;
  const seen = new Set<string>();
  const out: Buffer[] = [];
  for (const b of items) {
    const k = b.toString('latin1');
    if (!seen.has(k)) { seen.add(k); out.push(b); }
  }
  return out;
}
