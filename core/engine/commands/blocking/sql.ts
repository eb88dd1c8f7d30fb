/** The blocking commands' shared statements (the pops themselves are their families': list/sql.ts, zset/sql.ts). */
import { call } from '../function-call';
import { nowArg } from '../exec';

const withdraw = call('b_withdraw', 'db, key', 'int8', 'int8');

export const kBlockingSql = {
  /** a blocked call ends unserved: its waiter rows go; rows (db, key) of the keys to wake */
  withdraw: (seq: string) => ({ stmt: withdraw, values: [seq, nowArg()] }),
};
