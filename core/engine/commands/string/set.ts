/**
 * SET key value [NX | XX] [GET] [EX s | PX ms | EXAT ts | PXAT ms-ts | KEEPTTL]
 * Plain SET and SET with a TTL are batched into one multi-row upsert; NX/XX/GET/KEEPTTL need the
 * key's previous state and run as one exact statement each.
 * https://redis.io/commands/set/
 */
import { Err } from '../../resp-errors';
import { RespError, type Reply } from '../../reply';
import { SetCond, type Rows, type SetRequest } from '../../key-store';
import { WriteOp } from '../../ops';
import { kOk } from '../../shared-replies';
import { lower } from '../args';
import { defineCommand } from '../define';
import { setEvents } from './events';
import { expireAt, type ExpireUnit } from '../expiry';
import { kOneKey } from '../spec';

/**
 * Parses SET's options (argv[3…]); returns the request or the error to reply with. Like Redis,
 * every option is checked for syntax first; only then is the (last) expire value validated.
 */
export function parseSet(argv: Buffer[]): SetRequest | RespError {
  const req: SetRequest = { value: argv[2], expiresAt: null, cond: SetCond.None, keepTtl: false, get: false };
  let expiry: ExpireUnit | undefined;
  let expiryArg: Buffer | undefined;
  for (let i = 3; i < argv.length; i++) {
    const o = lower(argv[i]);
    const hasNext = i + 1 < argv.length;
    if (o === 'nx' && req.cond !== SetCond.Xx) req.cond = SetCond.Nx;
    else if (o === 'xx' && req.cond !== SetCond.Nx) req.cond = SetCond.Xx;
    else if (o === 'get') req.get = true;
    else if (o === 'keepttl' && expiry === undefined) req.keepTtl = true;
    else if ((o === 'ex' || o === 'px' || o === 'exat' || o === 'pxat') && !req.keepTtl &&
      (expiry === undefined || expiry === o) && hasNext) {
      expiry = o;
      expiryArg = argv[++i];
    } else return Err.syntax;
  }
  if (expiry !== undefined) {
    const at = expireAt(expiry, expiryArg!, 'set');
    if (at instanceof RespError) return at;
    req.expiresAt = at;
  }
  return req;
}

/** set_cond's row (status, old) for SET [NX|XX] [KEEPTTL]: OK when set, nil when the condition failed. */
function setReply(rows: Rows): Reply {
  const status = rows[0][0] as number;
  return status === 2 ? Err.wrongType : status === 1 ? kOk : null;
}

/** … and with GET: the previous string (nil when there was none), whether or not it was set. */
export function setGetReply(rows: Rows): Reply {
  return rows[0][0] === 2 ? Err.wrongType : (rows[0][1] as Buffer | null) ?? null;
}

export const set = defineCommand({
  name: 'set', arity: -3, flags: ['write', 'denyoom'], keys: kOneKey, acl: ['write', 'string', 'slow'],
  events: setEvents,
  group: 'string', summary: 'Sets the string value of a key, ignoring its type. The key is created if it doesn\'t exist.',
  complexity: 'O(1)',
  run(s, argv) {
    const req = parseSet(argv);
    if (req instanceof RespError) return req;
    if (req.cond === SetCond.None && !req.keepTtl && !req.get) {
      return s.server.store.submit(s, new WriteOp(s.db, argv[1], req.value, null, req.expiresAt));
    }
    return s.server.store.setCond(s, argv[1], req, req.get ? setGetReply : setReply);
  },
});
