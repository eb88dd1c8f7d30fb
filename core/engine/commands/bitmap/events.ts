/**
 * The bitmap family's keyspace events (Redis 7.0's bitops.c): SETBIT and BITFIELD fire 'setbit'
 * only when a bit changed or the value was created or grown for the write. Their statements say
 * which (the note: 1 written); without a note what the reply cannot show is reported as maybe.
 */
import type { EventsOf } from '../../write-hook';
import { Op, parse } from './bitfield-args';

const kWrap = 0;

/** SETBIT: without a note, a changed bit is certain; 0 over 0 may have created or grown the value (maybe); 1 over 1 did nothing */
export const setbitEvents: EventsOf = (emit, db, argv, reply, note) => {
  if (note !== undefined) {
    if (note === 1) emit(db, 'setbit', argv[1], false);
    return;
  }
  const on = argv[3][0] === 0x31 ? 1 : 0; // the argument is exactly "0" or "1" once the command ran
  if (reply !== on) emit(db, 'setbit', argv[1], false);
  else if (on === 0) emit(db, 'setbit', argv[1], true);
};

/**
 * BITFIELD: 'setbit' when the note says a SET or INCRBY changed a field or grew the value.
 * Without a note: when one was applied (not refused by FAIL: nil) — certain when its reply shows
 * the field changed (SET's old value is not the in-range value set; INCRBY by less than the
 * field's span and not 0, under WRAP), else maybe (the same value written, or a value grown).
 */
export const bitfieldEvents: EventsOf = (emit, db, argv, reply, note) => {
  if (note !== undefined) {
    if (note === 1) emit(db, 'setbit', argv[1], false);
    return;
  }
  const o = parse(argv, Number.MAX_SAFE_INTEGER); // the line ran: its offsets were in range
  if (!Array.isArray(reply) || !('op' in o)) return;
  let applied = false;
  let certain = false;
  for (let i = 0; i < o.op.length; i++) {
    if (o.op[i] === Op.Get || reply[i] === null) continue;
    applied = true;
    const span = 1n << BigInt(o.bits[i]);
    const lo = o.signed[i] ? -(span >> 1n) : 0n;
    const v = o.val[i];
    if (o.op[i] === Op.Set) certain ||= v >= lo && v < lo + span && BigInt(reply[i] as number | bigint) !== v;
    else certain ||= o.ow[i] === kWrap && v !== 0n && v > -span && v < span; // SAT may stay at its limit
  }
  if (applied) emit(db, 'setbit', argv[1], !certain);
};
