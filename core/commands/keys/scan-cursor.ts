/**
 * SCAN cursors. Iteration is keyset pagination over the (db, key) primary key, so the cursor is
 * the last key returned — no server-side state, no long transaction, valid on any connection and
 * any PostRESP instance, and a key present for the whole iteration is returned exactly once.
 *
 * Clients treat cursors as opaque, but many check them with an integer parser, so the cursor is
 * all digits: "1" then three decimal digits per byte of the key ("ab" → "1097098"), linear in the
 * key's length. "0" starts and ends an iteration, as in Redis. An integer that is not a cursor of
 * ours (a client inventing one) starts from the beginning: every key is still returned.
 * Limitation: clients that hold the cursor in a 64-bit integer (redis-cli --scan, node-redis 4)
 * cannot continue past the first page once keys are longer than a few bytes.
 */
import { RespError } from '../../reply';

const kInvalid = new RespError('ERR invalid cursor');

export function encodeCursor(lastKey: Buffer): string {
  let out = '1';
  for (const b of lastKey) out += b < 10 ? `00${b}` : b < 100 ? `0${b}` : String(b);
  return out;
}

/** The last key returned (the iteration continues after it), null to start, or Redis's error. */
export function decodeCursor(arg: Buffer): Buffer | null | RespError {
  const text = arg.toString('latin1');
  // Redis's rule (strtoul): an optional sign, then digits and nothing else
  if (!/^[+-]?[0-9]+$/.test(text)) return kInvalid;
  const digits = text.replace(/^[+-]/, '');
  if (digits[0] !== '1' || (digits.length - 1) % 3 !== 0) return null;
  const key = Buffer.allocUnsafe((digits.length - 1) / 3);
  for (let i = 0; i < key.length; i++) {
    const b = Number(digits.slice(1 + 3 * i, 4 + 3 * i));
    if (b > 255) return null;
    key[i] = b;
  }
  return key;
}
