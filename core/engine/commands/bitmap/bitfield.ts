/**
 * BITFIELD key [GET type offset | SET type offset value | INCRBY type offset increment |
 * OVERFLOW WRAP | SAT | FAIL …] and BITFIELD_RO key [GET type offset …] — integer fields of 1 to
 * 64 bits at any bit offset; one reply per GET, SET (the old value) and INCRBY (the new value,
 * nil when FAIL refused it). Every operation is parsed before any runs, as in Redis; the
 * statement runs them in order (./functions.ts bit_field).
 * https://redis.io/commands/bitfield/
 */
import { RespError, type Reply } from '../../reply';
import { Noted } from '../../pending-reply';
import { Err } from '../../resp-errors';
import { defineCommand } from '../define';
import { dbArg, exec, int8, int8Reply, nowArg } from '../exec';
import { kOneKey, type CommandSpec } from '../spec';
import { kReadOnly, parse } from './bitfield-args';
import { bitfieldEvents } from './events';
import { kBitmapSql } from './sql';

const list = (xs: readonly unknown[]) => `{${xs.join(',')}}`;

function bitfieldCommand(name: string, readonly: boolean, since: string, summary: string): CommandSpec {
  return defineCommand({
    name, arity: -2, flags: readonly ? ['readonly', 'fast'] : ['write', 'denyoom'], keys: kOneKey, acl: ['bitmap'],
    events: readonly ? undefined : bitfieldEvents,
    group: 'bitmap', since, summary, complexity: 'O(1) for each subcommand specified',
    run(s, argv) {
      const o = parse(argv, s.server.config.int('proto-max-bulk-len'));
      if (o instanceof RespError) return o;
      const write = o.grow >= 0n;
      if (write && readonly) return kReadOnly;
      const values = [dbArg(s), argv[1], list(o.op), list(o.signed), list(o.bits), list(o.off), list(o.val), list(o.ow),
        write ? 'true' : 'false', int8(o.grow), nowArg()];
      return exec(s, kBitmapSql.field, values, (rows) => {
        if (rows.length > 0 && rows[0][0] === 2) return Err.wrongType;
        return new Noted(rows.map((r): Reply => (r[1] === null ? null : int8Reply(r[1]))), rows.at(-1)?.[2] === true ? 1 : 0);
      });
    },
  });
}

export const bitfield = bitfieldCommand('bitfield', false, '3.2.0',
  'Performs arbitrary bitfield integer operations on strings.');
export const bitfieldRo = bitfieldCommand('bitfield_ro', true, '6.0.0',
  'Performs arbitrary read-only bitfield integer operations on strings.');
