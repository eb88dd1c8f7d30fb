/**
 * BITFIELD's operations parsed as Redis does (bitfieldGeneric), all before any runs: GET type
 * offset, SET type offset value, INCRBY type offset increment, OVERFLOW WRAP | SAT | FAIL (for
 * the operations after it). grow: the highest bit a SET or INCRBY writes (-1: none).
 */
import { RespError } from '../../reply';
import { Err } from '../../resp-errors';
import { eqIgnoreCase, parseI64 } from '../args';
import { bitOffset, fieldType } from './args';

const kBadOverflow = new RespError('ERR Invalid OVERFLOW type specified');
export const kReadOnly = new RespError('ERR BITFIELD_RO only supports the GET subcommand');

export const enum Op { Get = 0, Set = 1, Incrby = 2 }
const kOverflow = new Map([['wrap', 0], ['sat', 1], ['fail', 2]]);

export interface Ops { op: number[]; signed: boolean[]; bits: number[]; off: bigint[]; val: bigint[]; ow: number[]; grow: bigint }

export function parse(argv: Buffer[], maxBulk: number): Ops | RespError {
  const o: Ops = { op: [], signed: [], bits: [], off: [], val: [], ow: [], grow: -1n };
  let ow = 0;
  for (let j = 2; j < argv.length; j++) {
    const left = argv.length - j - 1;
    let op: Op;
    if (eqIgnoreCase(argv[j], 'get') && left >= 2) op = Op.Get;
    else if (eqIgnoreCase(argv[j], 'set') && left >= 3) op = Op.Set;
    else if (eqIgnoreCase(argv[j], 'incrby') && left >= 3) op = Op.Incrby;
    else if (eqIgnoreCase(argv[j], 'overflow') && left >= 1) {
      const w = kOverflow.get(argv[++j].toString('latin1').toLowerCase());
      if (w === undefined) return kBadOverflow;
      ow = w;
      continue;
    } else return Err.syntax;
    const t = fieldType(argv[j + 1]);
    if (t instanceof RespError) return t;
    const off = bitOffset(argv[j + 2], maxBulk, t.bits);
    if (off instanceof RespError) return off;
    let val = 0n;
    if (op !== Op.Get) {
      const end = off + BigInt(t.bits) - 1n;
      if (end > o.grow) o.grow = end;
      const v = parseI64(argv[j + 3]);
      if (v === undefined) return Err.notInteger;
      val = v;
    }
    o.op.push(op); o.signed.push(t.signed); o.bits.push(t.bits); o.off.push(off); o.val.push(val); o.ow.push(ow);
    j += op === Op.Get ? 2 : 3;
  }
  return o;
}
