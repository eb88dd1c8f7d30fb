/*
 * Reply encoder: one per connection. Replies are appended into a slab; take() hands out the
 * written part of the slab (plus any values passed by reference) for one corked socket write and
 * keeps writing after it, so bytes handed to the socket are never overwritten and nothing is
 * copied twice.
 *
 *   slab: [ handed out by take() | written, pending | free ]
 *          0                     start             pos    slab.length
 *
 * Slabs start at initialSize and grow to twice what is pending since the last take() (at most
 * 64 KiB, or exactly the size of one larger reply), so memory stays within ~2x what was written.
 * Up to 32 KiB pending when a slab fills is copied into the new slab, so that a flush of that
 * size is one Buffer (one send(2)); past that it becomes a chunk of its own.
 * Values of 16 KiB or more are not copied: they go out as their own chunk of the writev.
 */

import {
  COLON, COMMA, CR, DOLLAR, EQUALS, GREATER, HASH, LF, LPAREN, MINUS, PERCENT, PLUS, SPACE,
  STAR, TILDE, UNDERSCORE, kReplyByReference,
} from './constants';
import { formatDouble } from './format-double';

export { encodeCommand } from './encode-command';

const kDefaultSlab = 4096;
const kMaxSlab = 64 * 1024;
/** pending bytes up to this are copied into a grown slab rather than sent as a chunk of their own */
const kCarryMax = 32 * 1024;
/** room for a type byte, a sign, 16 digits and CRLF */
const kHeaderRoom = 24;
/** short strings are scanned for ASCII and copied in one JS loop; longer ones go through utf8Write */
const kShortString = 256;
const kEmpty = Buffer.alloc(0);

function digitCount(v: number): number {
  let n = 1;
  for (let p = 10; v >= p && n < 16; p *= 10) n++;
  return n;
}

export class ReplyWriter {
  proto: 2 | 3 = 2;
  private slab: Buffer = kEmpty;
  private start = 0;
  private pos = 0;
  private chunks: Buffer[] = [];
  private chunkBytes = 0;
  private readonly initialSize: number;

  constructor(initialSize = kDefaultSlab) {
    if (!(initialSize >= 64 && initialSize <= kMaxSlab)) throw new RangeError(`ReplyWriter initialSize must be 64..${kMaxSlab}, got ${initialSize}`);
    this.initialSize = initialSize;
  }

  /** bytes written and not yet taken */
  get length(): number {
    return this.chunkBytes + this.pos - this.start;
  }

  /** Everything written so far, as chunks for one socket write (cork + write each + uncork). */
  take(): Buffer[] {
    this.seal();
    const out = this.chunks;
    this.chunks = [];
    this.chunkBytes = 0;
    return out;
  }

  /**
   * The bytes of the last take() were copied out before it returned (a complete send(2), nothing
   * else holds them): the slab is written from its start again instead of filling up and being
   * replaced. A subscriber's 1 KB pushes otherwise left a 4 KiB slab to the GC every four
   * messages: 1 KB of garbage per delivery, 200 MB/s in a 1 → 100 fan-out at 2k msgs/s.
   */
  rewind(): void {
    if (this.chunks.length === 0 && this.start === this.pos) this.start = this.pos = 0;
  }

  simple(text: string): void {
    this.line(PLUS, text);
  }

  /** text includes its prefix ('ERR ', 'WRONGTYPE '); CR and LF become spaces, as Redis does. */
  error(text: string): void {
    this.line(MINUS, text);
  }

  /** Pre-encoded reply (core's shared replies, RespError bytes); 16 KiB or more is sent by reference. */
  raw(bytes: Buffer): void {
    if (bytes.length >= kReplyByReference) return this.reference(bytes);
    const n = bytes.length;
    this.ensure(n);
    const slab = this.slab;
    const at = this.pos;
    // most pre-encoded replies are a few bytes (+OK, +PONG, :1): a loop beats the set() builtin call
    if (n <= 16) for (let i = 0; i < n; i++) slab[at + i] = bytes[i];
    else slab.set(bytes, at);
    this.pos = at + n;
  }

  integer(n: number | bigint): void {
    if (typeof n === 'number' && Number.isSafeInteger(n)) return this.header(COLON, n);
    if (typeof n === 'number' && !Number.isInteger(n)) throw new TypeError(`integer reply needs an integer, got ${n}`);
    this.ascii(COLON, BigInt(n).toString());
  }

  /** null → RESP2 $-1 / RESP3 _. Buffers of 16 KiB or more are sent by reference: do not modify them afterwards. */
  bulk(value: Buffer | string | null): void {
    if (value === null) return this.nullValue();
    if (typeof value === 'string') return this.bulkString(value);
    const len = value.length;
    if (len >= kReplyByReference) return this.bulkView(value);
    this.ensure(len + kHeaderRoom);
    this.header(DOLLAR, len);
    this.slab.set(value, this.pos);
    this.pos += len;
    this.crlf();
  }

  /**
   * A bulk reply of the n bytes src[from, from + n), copied once into the slab, no Buffer made: a
   * read-cache hit straight from the shared arena (core/engine/cache/near-cache.ts). Returns where
   * the reply starts; unwrite(mark) takes it back while nothing was written after it (the arena's
   * check after the copy found the bytes reused: the hit is a miss). n < kReplyByReference.
   */
  bulkFrom(src: Buffer, from: number, n: number): number {
    // room for all of it first: the slab cannot be replaced (or sealed) between mark and unwrite
    this.ensure(n + kHeaderRoom);
    const mark = this.pos;
    this.header(DOLLAR, n);
    const slab = this.slab;
    const at = this.pos;
    // up to 64 bytes a loop beats Buffer#copy's call into C++ (as keepRead and raw do)
    if (n <= 64) for (let i = 0; i < n; i++) slab[at + i] = src[from + i];
    else src.copy(slab, at, from, from + n);
    this.pos = at + n;
    this.crlf();
    return mark;
  }

  /** Drops what was written since mark (bulkFrom's), if nothing else was written after it. */
  unwrite(mark: number): void {
    if (mark >= this.start && mark <= this.pos) this.pos = mark;
  }

  /** The value goes to the socket by reference, never copied: do not modify it afterwards. */
  bulkView(value: Buffer): void {
    this.header(DOLLAR, value.length);
    this.reference(value);
    this.ensure(2);
    this.crlf();
  }

  array(n: number): void {
    this.header(STAR, n);
  }

  nullArray(): void {
    if (this.proto === 3) this.null3();
    else this.header(STAR, -1);
  }

  map(n: number): void {
    if (this.proto === 3) this.header(PERCENT, n);
    else this.header(STAR, 2 * n);
  }

  set(n: number): void {
    this.header(this.proto === 3 ? TILDE : STAR, n);
  }

  push(n: number): void {
    this.header(this.proto === 3 ? GREATER : STAR, n);
  }

  /** RESP3 ,x ; RESP2 bulk string. Both formatted like Redis 7.0 (%.17g, inf, -inf). */
  double(x: number): void {
    const s = formatDouble(x);
    if (this.proto === 3) this.ascii(COMMA, s);
    else this.bulkString(s);
  }

  boolean(b: boolean): void {
    if (this.proto === 3) {
      this.ensure(4);
      const s = this.slab;
      s[this.pos] = HASH;
      s[this.pos + 1] = b ? 116 : 102; // t f
      this.pos += 2;
      this.crlf();
    } else {
      this.header(COLON, b ? 1 : 0);
    }
  }

  /** RESP3 =len\r\nfmt:text ; RESP2 plain bulk of the text (Redis addReplyVerbatim). format is 3 bytes ('txt', 'mkd'). */
  verbatim(format: string, text: Buffer | string): void {
    if (this.proto === 2) return this.bulk(text);
    if (format.length !== 3) throw new TypeError(`verbatim format must be 3 characters, got '${format}'`);
    const body = typeof text === 'string' ? Buffer.from(text) : text;
    this.header(EQUALS, body.length + 4);
    this.ensure(4);
    this.pos += this.slab.write(format, this.pos, 'latin1');
    this.slab[this.pos++] = COLON;
    if (body.length >= kReplyByReference) {
      this.reference(body);
    } else {
      this.ensure(body.length);
      this.slab.set(body, this.pos);
      this.pos += body.length;
    }
    this.ensure(2);
    this.crlf();
  }

  /** RESP3 (digits ; RESP2 bulk string */
  bigNumber(digits: string): void {
    if (this.proto === 3) this.ascii(LPAREN, digits);
    else this.bulkString(digits);
  }

  /** RESP3 _ ; RESP2 $-1 */
  nullValue(): void {
    if (this.proto === 3) this.null3();
    else this.header(DOLLAR, -1);
  }

  private null3(): void {
    this.ensure(3);
    this.slab[this.pos++] = UNDERSCORE;
    this.crlf();
  }

  private ensure(n: number): void {
    if (this.pos + n > this.slab.length) this.grow(n);
  }

  private grow(n: number): void {
    const pending = this.pos - this.start;
    if (pending > 0 && pending <= kCarryMax && pending + n <= kMaxSlab) {
      // Carry what is pending into the new slab instead of sealing it as a chunk: the next take()
      // is then one Buffer, which Client.send() hands to one send(2), where two or more went
      // through cork/write/uncork and writev (Writable machinery ~7% of a worker's CPU in
      // -P 16 -d 1024 GET, where every 16-reply flush of ~16.6 KB crossed a slab end).
      const size = Math.min(kMaxSlab, Math.max(this.initialSize, 2 * (pending + n + this.chunkBytes)));
      const next = Buffer.allocUnsafe(size);
      this.slab.copy(next, 0, this.start, this.pos);
      this.slab = next;
      this.start = 0;
      this.pos = pending;
      return;
    }
    this.seal();
    const want = Math.min(kMaxSlab, Math.max(this.initialSize, 2 * this.chunkBytes));
    this.slab = Buffer.allocUnsafe(Math.max(n, want));
    this.start = this.pos = 0;
  }

  /** moves the pending part of the slab to chunks */
  private seal(): void {
    if (this.pos > this.start) {
      this.chunks.push(this.slab.subarray(this.start, this.pos));
      this.chunkBytes += this.pos - this.start;
      this.start = this.pos;
    }
  }

  private reference(bytes: Buffer): void {
    this.seal();
    this.chunks.push(bytes);
    this.chunkBytes += bytes.length;
  }

  private crlf(): void {
    this.slab[this.pos++] = CR;
    this.slab[this.pos++] = LF;
  }

  /** type byte, decimal integer (digit by digit, no toString), CRLF */
  private header(type: number, n: number): void {
    this.ensure(kHeaderRoom);
    const s = this.slab;
    let p = this.pos;
    s[p++] = type;
    if (n < 0) {
      s[p++] = MINUS;
      n = -n;
    }
    if (n < 10) {
      s[p++] = 48 + n; // 0
    } else {
      p += digitCount(n);
      let q = p;
      while (n >= 10) {
        const next = Math.floor(n / 10);
        s[--q] = 48 + (n - next * 10);
        n = next;
      }
      s[--q] = 48 + n;
    }
    s[p] = CR;
    s[p + 1] = LF;
    this.pos = p + 2;
  }

  /** type byte, an ASCII text (digits, formatted doubles), CRLF */
  private ascii(type: number, text: string): void {
    this.ensure(text.length + 3);
    this.slab[this.pos++] = type;
    this.pos += this.slab.write(text, this.pos, 'latin1');
    this.crlf();
  }

  /** +text or -text on one line: CR and LF become spaces so a reply can never break the framing */
  private line(type: number, text: string): void {
    const n = text.length;
    if (n <= kShortString) {
      this.ensure(n + 3);
      const s = this.slab;
      let p = this.pos;
      s[p++] = type;
      let i = 0;
      for (; i < n; i++) {
        const c = text.charCodeAt(i);
        if (c >= 128) break;
        s[p++] = c === CR || c === LF ? SPACE : c;
      }
      if (i === n) {
        s[p] = CR;
        s[p + 1] = LF;
        this.pos = p + 2;
        return;
      }
    }
    const bytes = Buffer.from(text.replace(/[\r\n]/g, ' '));
    this.ensure(bytes.length + 3);
    this.slab[this.pos++] = type;
    this.slab.set(bytes, this.pos);
    this.pos += bytes.length;
    this.crlf();
  }

  private bulkString(text: string): void {
    const n = text.length;
    if (n <= kShortString) {
      this.ensure(n + kHeaderRoom);
      const mark = this.pos;
      this.header(DOLLAR, n);
      const s = this.slab;
      let p = this.pos;
      let i = 0;
      for (; i < n; i++) {
        const c = text.charCodeAt(i);
        if (c >= 128) break;
        s[p++] = c;
      }
      if (i === n) {
        this.pos = p;
        this.crlf();
        return;
      }
      this.pos = mark;
    }
    const len = Buffer.byteLength(text);
    this.ensure(len + kHeaderRoom);
    this.header(DOLLAR, len);
    this.pos += this.slab.write(text, this.pos, len, 'utf8');
    this.crlf();
  }
}
