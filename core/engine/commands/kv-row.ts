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
 * `row` is the kv row's alias (or a record variable) in the SQL around; `now` the client's clock
 * in Unix ms as an SQL expression: in statements a parameter ('$3::int8'), in PL/pgSQL the p_now
 * argument every function takes (the default).
 */

/** kv.type of a WATCH mark */
export const kWatchMark = -1;

/** The row is a key at `now` (NULL expires_at: no TTL). */
export const live = (row: string, now = 'p_now'): string =>
  `(${row}.expires_at IS NULL OR ${row}.expires_at > ${now})`;

/** The row's TTL has passed: not a key any more, or a WATCH mark. False for a row without TTL. */
export const expired = (row: string, now = 'p_now'): string => `${row}.expires_at <= ${now}`;

/** The row is a WATCH mark, in the form the kv_expires_at index finds (the range, then the type). */
export const watchMark = (row: string): string => `${row}.expires_at <= 0 AND ${row}.type = ${kWatchMark}`;
