/**
 * BITCOUNT's and BITPOS's optional range, parsed after the key was found (Redis looks the key up
 * first: a missing key answers before a bad range). A range that decides the reply alone (an
 * error, or BITCOUNT's reversed negative range) is answered after the type check (STRLEN's
 * statement): missing → `missing`, another type → WRONGTYPE, else that reply.
 */
import { KeyType } from '../../key-store';
import { RespError, type Reply } from '../../reply';
import { Err } from '../../resp-errors';
import type { Session } from '../../session';
import { eqIgnoreCase } from '../args';
import { dbArg, exec, nowArg } from '../exec';
import { kStringSql } from '../string/sql';

/** BYTE or BIT (case-insensitive): true for BIT */
export function unitIsBit(b: Buffer): boolean | RespError {
  if (eqIgnoreCase(b, 'bit')) return true;
  return eqIgnoreCase(b, 'byte') ? false : Err.syntax;
}

/** the reply of a command decided by its arguments after the lookup: the key's state decides first */
export function afterLookup(s: Session, key: Buffer, missing: Reply, reply: Reply) {
  return exec(s, kStringSql.strlen, [dbArg(s), key, nowArg()], (rows) => {
    if (rows.length === 0) return missing;
    return rows[0][0] === KeyType.String ? reply : Err.wrongType;
  });
}
