/**
 * A subscriber's push frames as bytes, for a worker that writes another worker's subscriber
 * itself (socket-slots.ts): `message` / `smessage` pushes, RESP2 (`*3`) or RESP3 (`>3`), the same
 * bytes Subscriptions.deliver encodes on the subscriber's own worker.
 *
 * One scratch buffer, reused: send(2) copies into the kernel before it returns, so the bytes are
 * free again once the send is done (the rest of a short send is copied out by the caller).
 */
const kMessageBulk = Buffer.from('$7\r\nmessage\r\n');
const kSmessageBulk = Buffer.from('$8\r\nsmessage\r\n');
/** the scratch is not kept past this: a larger batch gets a buffer of its own */
const kKeepMax = 256 * 1024;

/** n in decimal at s[p…], digit by digit (no string); returns the end */
function digits(s: Buffer, p: number, n: number): number {
  let len = 1;
  for (let x = n; x >= 10; x = Math.floor(x / 10)) len++;
  for (let i = p + len - 1; i >= p; i--) {
    s[i] = 0x30 + (n % 10);
    n = Math.floor(n / 10);
  }
  return p + len;
}

export class PushBytes {
  private scratch = Buffer.allocUnsafeSlow(16 * 1024);
  private at = 0;

  /** Starts a new batch (the previous one's bytes may be overwritten). */
  reset(): void {
    this.at = 0;
  }

  /** Appends one push of (kind, channel, message) in proto. */
  add(kind: 'm' | 's', channel: Buffer, message: Buffer, proto: 2 | 3): void {
    const need = 4 + 14 + 2 * 14 + channel.length + message.length;
    if (this.at + need > this.scratch.length) this.grow(need);
    const s = this.scratch;
    let p = this.at;
    s[p++] = proto === 3 ? 0x3e : 0x2a; // > or *
    s[p++] = 0x33; // 3
    s[p++] = 0x0d;
    s[p++] = 0x0a;
    const head = kind === 's' ? kSmessageBulk : kMessageBulk;
    p += head.copy(s, p);
    p = this.bulk(channel, p);
    this.at = this.bulk(message, p);
  }

  /** The batch so far (a view into the scratch: valid until the next reset or add). */
  bytes(): Buffer {
    return this.scratch.subarray(0, this.at);
  }

  private bulk(v: Buffer, p: number): number {
    const s = this.scratch;
    s[p++] = 0x24; // $
    p = digits(s, p, v.length);
    s[p++] = 0x0d;
    s[p++] = 0x0a;
    p += v.copy(s, p);
    s[p++] = 0x0d;
    s[p++] = 0x0a;
    return p;
  }

  private grow(need: number): void {
    const next = Buffer.allocUnsafeSlow(Math.max(2 * this.scratch.length, this.at + need));
    this.scratch.copy(next, 0, 0, this.at);
    this.scratch = next;
  }

  /** After a batch: a scratch grown past kKeepMax for one large message is let go. */
  trim(): void {
    if (this.scratch.length > kKeepMax) this.scratch = Buffer.allocUnsafeSlow(16 * 1024);
  }
}
