/**
 * PFDEBUG GETREG|DECODE|ENCODING|TODENSE key — Redis's internal view of a HyperLogLog: its
 * 16384 registers (converting a sparse value to dense, as Redis does), its sparse opcodes, its
 * encoding, or a conversion to dense (1 if it converted).
 * https://redis.io/commands/pfdebug/
 */
import { RespError, Simple, type Reply } from '../../reply';
import { dbArg, exec, nowArg } from '../exec';
import { defineCommand } from '../define';
import { kHllErrors } from './errors';
import { kNoEvents } from './events';
import { kRegisters } from './murmur';
import { decodeSparse, denseRegister, isSparse } from './registers';
import { kHllSql } from './sql';

const kNoKey = new RespError('ERR The specified key does not exist');
const kNotSparse = new RespError('ERR HLL encoding is not sparse');

type Show = (value: Buffer, converted: boolean) => Reply;

const kSubcommands: Record<string, { dense: boolean; show: Show }> = {
  getreg: { dense: true, show: (v) => Array.from({ length: kRegisters }, (_, i) => denseRegister(v, i)) },
  decode: { dense: false, show: (v) => (isSparse(v) ? Buffer.from(decodeSparse(v)) : kNotSparse) },
  encoding: { dense: false, show: (v) => new Simple(isSparse(v) ? 'sparse' : 'dense') },
  todense: { dense: true, show: (_v, converted) => (converted ? 1 : 0) },
};

export const pfdebug = defineCommand({
  name: 'pfdebug', arity: 3, flags: ['write', 'denyoom', 'admin'], events: kNoEvents, keys: { first: 2, last: 2, step: 1 },
  acl: ['hyperloglog'], group: 'hyperloglog', since: '2.8.9', summary: 'Internal commands for debugging HyperLogLog values.',
  complexity: 'N/A',
  run(s, argv) {
    const name = argv[1].toString('latin1');
    const sub = kSubcommands[name.toLowerCase()];
    // Redis looks the key up first: a missing or bad key answers before an unknown subcommand
    return exec(s, kHllSql.debug, [dbArg(s), argv[2], sub?.dense ? 'true' : 'false', nowArg()], (rows) => {
      const status = rows[0][0] as number;
      if (status === 0) return kNoKey;
      const e = kHllErrors[status];
      if (e !== undefined) return e;
      if (sub === undefined) return new RespError(`ERR Unknown PFDEBUG subcommand '${name.split('\0')[0]}'`);
      return sub.show(rows[0][2] as Buffer, rows[0][1] as boolean);
    });
  },
});
