/**
 * Reply values: what a command handler returns. The client encodes them with the connection's
 * ReplyWriter when their slot reaches the head of the reply queue, so one value model serves
 * RESP2 and RESP3, immediate and Postgres-backed commands, and EXEC's array of results.
 *
 *   Buffer | string  → bulk string         number | bigint → integer
 *   null             → null bulk (RESP3 _)  Reply[]         → array
 *   RespError, Raw   → pre-encoded bytes    Simple          → +status
 *   RespMap/RespSet/RespDouble/RespBool/RespVerbatim/RespPush → RESP3 types, downgraded for RESP2
 */
import type { ReplyWriter } from '../../protocol/writer';

export class RespError {
  readonly bytes: Buffer;
  constructor(readonly text: string) {
    // Redis turns each CR and LF of an error text into a space so no error can break the framing
    // latin1: texts quoting client bytes (unknown command, protocol errors) go back byte for byte
    this.bytes = Buffer.from(`-${text.replace(/[\r\n]/g, ' ')}\r\n`, 'latin1');
  }
}
export class Raw {
  constructor(readonly bytes: Buffer) {}
}
export class Simple {
  constructor(readonly text: string) {}
}
export class RespMap {
  /** flat key, value, key, value… so building one costs a single array */
  constructor(readonly flat: Reply[]) {}
}
export class RespSet {
  constructor(readonly items: Reply[]) {}
}
export class RespPush {
  constructor(readonly items: Reply[]) {}
}
/**
 * Pub/sub's frames: a message, or a (P|S)(UN)SUBSCRIBE reply, which is one frame per channel
 * (`SUBSCRIBE a b` answers two). They go out even under CLIENT REPLY OFF|SKIP, as Redis 7's
 * CLIENT_PUSHING makes them (unit/pubsub "PubSub messages with CLIENT REPLY OFF").
 */
export class Pushes {
  constructor(readonly frames: RespPush[]) {}
}
export class RespDouble {
  constructor(readonly value: number) {}
}
export class RespBool {
  constructor(readonly value: boolean) {}
}
export class RespVerbatim {
  constructor(readonly format: string, readonly text: string) {}
}
export class NullArray {}

export type Reply =
  | Buffer | string | number | bigint | null
  | RespError | Raw | Simple | RespMap | RespSet | RespPush | Pushes | RespDouble | RespBool | RespVerbatim | NullArray
  | Reply[];

export const kNullArray = new NullArray();

export function writeReply(w: ReplyWriter, r: Reply): void {
  // pre-encoded replies (+OK, +PONG, errors) first: the commonest reply of immediate commands
  if (r instanceof Raw) return w.raw(r.bytes);
  if (r === null) return w.bulk(null);
  switch (typeof r) {
    case 'number':
    case 'bigint':
      return w.integer(r);
    case 'string':
      return w.bulk(r);
  }
  if (Buffer.isBuffer(r)) return r.length >= 16384 ? w.bulkView(r) : w.bulk(r);
  if (r instanceof RespError) return w.raw(r.bytes);
  if (Array.isArray(r)) {
    w.array(r.length);
    for (let i = 0; i < r.length; i++) writeReply(w, r[i]);
    return;
  }
  if (r instanceof Simple) return w.simple(r.text);
  if (r instanceof RespMap) {
    w.map(r.flat.length / 2);
    for (let i = 0; i < r.flat.length; i++) writeReply(w, r.flat[i]);
    return;
  }
  if (r instanceof RespSet || r instanceof RespPush) {
    if (r instanceof RespSet) w.set(r.items.length);
    else w.push(r.items.length);
    for (let i = 0; i < r.items.length; i++) writeReply(w, r.items[i]);
    return;
  }
  if (r instanceof RespDouble) return w.double(r.value);
  if (r instanceof RespBool) return w.boolean(r.value);
  if (r instanceof RespVerbatim) return w.verbatim(r.format, r.text);
  if (r instanceof NullArray) return w.nullArray();
  if (r instanceof Pushes) {
    for (const f of r.frames) writeReply(w, f);
    return;
  }
  throw new TypeError('unknown reply value');
}

export function isPromise<T>(v: unknown): v is Promise<T> {
  return typeof v === 'object' && v !== null && typeof (v as Promise<T>).then === 'function';
}

/** The command sends nothing (CLIENT REPLY OFF/SKIP). */
export const kNoReply = new Raw(Buffer.alloc(0));
