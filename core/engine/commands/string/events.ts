/**
 * The string family's keyspace events where they depend on options or the reply (the others
 * declare one name: 'incrby', 'append'…). Redis 7.0's t_string.c rules.
 */
import { lower } from '../args';
import { done } from '../events';
import type { EventsOf } from '../../write-hook';

const kTtlOptions = new Set(['ex', 'px', 'exat', 'pxat']);

/**
 * SET: `set` when it set — with GET the reply is the old value, so NX set on nil and XX on a
 * value; without, OK — then `expire` when it carries a TTL (even one already past).
 */
export const setEvents: EventsOf = (emit, db, argv, reply) => {
  let cond = '';
  let get = false;
  let ttl = false;
  for (let i = 3; i < argv.length; i++) {
    const o = lower(argv[i]);
    if (o === 'nx' || o === 'xx') cond = o;
    else if (o === 'get') get = true;
    else if (kTtlOptions.has(o)) { ttl = true; i++; }
  }
  const didSet = get ? (cond === 'nx' ? reply === null : cond === 'xx' ? reply !== null : true) : reply !== null;
  if (!didSet) return;
  emit(db, 'set', argv[1], false);
  if (ttl) emit(db, 'expire', argv[1], false);
};

/** SETEX, PSETEX */
export const setWithTtlEvents: EventsOf = (emit, db, argv) => {
  emit(db, 'set', argv[1], false);
  emit(db, 'expire', argv[1], false);
};

/** MSETNX: `set` on every key, when it set them (1) */
export const msetnxEvents: EventsOf = (emit, db, argv, reply) => {
  if (done(reply)) for (let i = 1; i < argv.length; i += 2) emit(db, 'set', argv[i], false);
};

/** SETRANGE with an empty value changes nothing and fires nothing, whatever the key */
export const setrangeEvents: EventsOf = (emit, db, argv) => {
  if (argv[3].length > 0) emit(db, 'setrange', argv[1], false);
};

/**
 * GETEX on an existing key: EX/PX/EXAT/PXAT fire `expire`, or `del` for a time already past;
 * PERSIST fires `persist` only if the key had a TTL, which the reply (the value) does not show:
 * the note (1: it had one; maybe without a note).
 */
export const getexEvents: EventsOf = (emit, db, argv, reply, note) => {
  if (reply === null || argv.length < 3) return;
  // the last of repeated options counts (EX 1 EX 100)
  const o = lower(argv[argv.length - 2]);
  if (lower(argv[argv.length - 1]) === 'persist') {
    if (note !== 0) emit(db, 'persist', argv[1], note === undefined);
    return;
  }
  // EX and PX must be positive (else the reply was an error): never past
  const n = Number(argv[argv.length - 1]);
  const at = o === 'exat' ? n * 1000 : o === 'pxat' ? n : Infinity;
  emit(db, at <= Date.now() ? 'del' : 'expire', argv[1], false);
};
