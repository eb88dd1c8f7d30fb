/**
 * The statement that calls one of the families' server-side functions:
 * `SELECT cols FROM fn($1::t1, $2::t2, …)`, or `SELECT fn(…)` for a scalar result (cols '').
 * Each argument is cast to the function's parameter type, in order: the call resolves to that
 * function whatever the driver sends (binary bytea and int8, text for the rest).
 */
import type { Statement } from '../key-store';

export function call(fn: string, cols: string, ...types: string[]): Statement {
  const args = types.map((t, i) => `$${i + 1}::${t}`).join(', ');
  return { text: cols === '' ? `SELECT ${fn}(${args})` : `SELECT ${cols} FROM ${fn}(${args})` };
}
