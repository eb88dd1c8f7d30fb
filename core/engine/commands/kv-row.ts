/**
 * What a kv row is to every statement and server-side function: one definition of "live", so
 * that lazy expiry and WATCH marks mean the same in each of them.
 *
 *   expires_at NULL               live, without TTL
 *   expires_at > now              live until then
 *   0 < expires_at ≤ now          expired: readers see no key; a writer creating the key deletes
 *                                 or replaces the row first; the sweeper deletes it
 *   expires_at ≤ 0, type -1       a WATCH mark (transactions/functions.ts): expired to every
 *                                 reader, kept by every writer that does not create the key
 *
 * `now` is the client's clock in Unix ms, as an SQL expression: a parameter ('$3::int8') or, in
 * PL/pgSQL, the p_now argument every function takes.
 */

/** kv.type of a WATCH mark */
export const kWatchMark = -1;

/** The row alias `row` (bare columns when omitted) is a live key at `now`. */
export function live(now: string, row?: string): string {
  const at = row === undefined ? 'expires_at' : `${row}.expires_at`;
  return `(${at} IS NULL OR ${at} > ${now})`;
}

/** live() inside a PL/pgSQL function, against its p_now */
export const liveNow = (row: string): string => live('p_now', row);
