/*
 * Incremental, zero-copy RESP request parser.
 *
 * HOT PATH: this is the one file in protocol/ that trades readability for speed (STYLE.md).
 * It has two layers that must agree byte for byte:
 *
 *  - fastFrame(): a well-formed multibulk frame (the pipelined case: many GETs per 64 KiB read)
 *    is parsed by one tight loop over the bytes, ~1.7x redis-parser (docs/bench-parser.md).
 *    When the chunk ends inside a payload it hands the arguments parsed so far to the state
 *    machine; anything else unusual (a cut header, leading zeros, a limit reached) makes it give
 *    up without consuming anything, so it needs no error handling of its own;
 *  - step(): the state machine below, one frame at a time, across chunks, with every Redis 7.0
 *    processInputBuffer rule and error text. It alone decides what is an error.
 *
 *   Idle ──'*'──▶ CountLine ──n>0──▶ ArgLine ──▶ ArgData ──▶ ArgSkip ──more args──▶ ArgLine
 *    │  ▲            │ n<=0: no command                             │ last arg
 *    │  └────────────┴──────────────────── sink(argv) ◀─────────────┘
 *    └──other byte──▶ Inline ──'\n'──▶ sink(args) ──▶ Idle
 *   a line with NUL before its terminator ──▶ Stalled ──more than 64 KiB──▶ Dead
 *   any error ──▶ Dead (push keeps returning the same message)
 *
 * Redis quirks reproduced (each checked against redis-server 7.0.15 with the same bytes):
 *  - a header line ends at '\r' and needs one more byte, which is skipped unchecked:
 *    `*1\rX$4\rXPING\r\n` is PING;
 *  - the two bytes after a bulk payload are skipped unchecked: `$4\r\nPINGxx` is accepted;
 *  - Redis finds line ends with strchr, which stops at NUL: a NUL before the terminator means
 *    the line never ends, and the client is refused once 64 KiB are buffered ('too big ...').
 * One deliberate difference: Redis checks the 64 KiB line limit after each 16 KiB read, so a
 * line of up to ~80 KiB may pass depending on timing; here a line longer than 64 KiB before its
 * terminator is always refused, so the outcome never depends on how the bytes were split.
 */

import {
  CR, DIGIT_0, DIGIT_1, DIGIT_9, DOLLAR, LF, NUL, STAR,
  kClientQueryBufferLimit, kMaxInlineLen, kMaxMultibulkLen, kProtoMaxBulkLen,
  kUnauthMaxBulkLen, kUnauthMaxMultibulkLen,
} from './constants';
import { splitInlineArgs } from './inline';
import { string2ll } from './string2ll';
import { ArgSlab, FastBuffer, copyInto, join, view } from './views';

export interface ParserLimits { protoMaxBulkLen: number; clientQueryBufferLimit: number }
export type CommandSink = (argv: Buffer[]) => void;

export const kDefaultParserLimits: Readonly<ParserLimits> = {
  protoMaxBulkLen: kProtoMaxBulkLen,
  clientQueryBufferLimit: kClientQueryBufferLimit,
};

/** Returned when the incomplete frame outgrows clientQueryBufferLimit: close without a reply, as Redis does. */
export const kQueryBufferExceeded = 'query buffer limit';

const kInvalidMultibulk = 'Protocol error: invalid multibulk length';
const kInvalidBulk = 'Protocol error: invalid bulk length';
const kUnauthMultibulk = 'Protocol error: unauthenticated multibulk length';
const kUnauthBulk = 'Protocol error: unauthenticated bulk length';
const kTooBigInline = 'Protocol error: too big inline request';
const kTooBigMbulk = 'Protocol error: too big mbulk count string';
const kTooBigBulk = 'Protocol error: too big bulk count string';
const kUnbalanced = 'Protocol error: unbalanced quotes in request';

const kIdle = 0;
const kCountLine = 1;
const kArgLine = 2;
const kArgData = 3;
const kArgSkip = 4;
const kInline = 5;
const kStalled = 6;
const kDead = 7;

/**
 * Pieces held for one line or payload are joined once they are more than 64 and average under
 * 1 KiB: a client dribbling 1-byte packets would otherwise make us hold a ~150-byte Buffer
 * object per byte (150x the bytes clientQueryBufferLimit counts). Socket reads are KiBs, so
 * ordinary traffic never compacts; the worst case copies each byte about 1024 times in total.
 */
const kMaxParts = 64;
const kMinAvgPart = 1024;
/** The shortest argument, "$0\r\n\r\n", is 6 bytes: a count the rest of the chunk cannot hold is a partial frame. */
const kMinArgBytes = 6;

function expectedDollar(c: number): string {
  // addReplyErrorFormat maps '\r' and '\n' to spaces; other bytes are sent raw (latin1 here).
  const ch = c === CR || c === LF ? ' ' : String.fromCharCode(c);
  return `Protocol error: expected '$', got '${ch}'`;
}

/** longest command name the parser keeps for reuse (the longest Redis command name has 20 bytes) */
const kMaxKeptName = 32;

export class RequestParser {
  limits: ParserLimits;
  /**
   * false while the client must authenticate first (Redis's authRequired()): at most 10 arguments
   * of at most 16384 bytes. Read before each frame, so a sink that sets it (AUTH) lifts the limits
   * from the next frame of the same chunk on, as Redis judges each request after the previous ran.
   */
  authenticated = true;

  private state = kIdle;
  private error: string | undefined;
  /** bytes consumed before the current chunk, and the stream offset where the current frame began */
  private base = 0;
  private frameStart = 0;
  private held = 0;
  /** the header or inline line being collected across chunks (views, at most 64 KiB) */
  private lineParts: Buffer[] = [];
  private lineLen = 0;
  /** a header line's '\r' was the last byte of the previous chunk */
  private crSeen = false;
  /** a complete header line: lineBuf[lineStart, lineEnd), usually the chunk itself (no view made) */
  private lineBuf: Buffer | undefined;
  private lineStart = 0;
  private lineEnd = 0;
  /** the multibulk frame being collected */
  private argv: Buffer[] = [];
  /** the last command name seen by fastFrame: one copy shared by every frame repeating it (never written to) */
  private lastName: Buffer | undefined = undefined;
  private need = 0;
  private bulkLen = 0;
  private bulkGot = 0;
  /** a payload spanning chunks: each piece runs from its start offset to the end of its chunk */
  private bulkParts: Buffer[] = [];
  private bulkStarts: number[] = [];
  private skip = 0;
  private stallLen = 0;
  /** memory for arguments that span chunks */
  private readonly slab = new ArgSlab();
  private stallError = '';

  constructor(limits: ParserLimits) {
    this.limits = limits;
  }

  /** bytes currently held for an incomplete frame (CLIENT LIST qbuf) */
  get pending(): number {
    return this.held;
  }

  /**
   * Parses every complete command in (pending partial frame + chunk), calling sink(argv) in order.
   * Arguments are views into the chunks: the caller must not reuse a chunk's memory afterwards
   * (net.Socket 'data' chunks are fresh allocations; do not use the `onread` static buffer).
   * sink must not throw. Returns undefined, a 'Protocol error: ...' message, or kQueryBufferExceeded.
   */
  push(chunk: Buffer, sink: CommandSink): string | undefined {
    if (this.error !== undefined) return this.error;
    const end = chunk.length;
    let pos = 0;
    if (this.state !== kIdle) pos = this.step(chunk, 0, end, sink);
    // read once per chunk: the .buffer getter per frame cost 30% of a 16-GET pipeline
    const ab = chunk.buffer;
    const offset = chunk.byteOffset;
    while (pos < end && this.state === kIdle) {
      const start = pos;
      if (chunk[pos] === STAR) {
        pos = this.fastFrame(chunk, ab, offset, pos, end, sink);
        if (pos !== start && this.state === kIdle) continue;
      }
      this.frameStart = this.base + start;
      pos = this.step(chunk, pos, end, sink);
    }
    this.base += end;
    if (this.state === kIdle) {
      this.held = 0;
      return undefined;
    }
    if (this.state === kDead) return this.error;
    this.held = this.base - this.frameStart;
    if (this.held > this.limits.clientQueryBufferLimit) return this.die(kQueryBufferExceeded);
    return undefined;
  }

  /**
   * A well-formed multibulk frame at pos. Complete: sink it, return the position after it.
   * Cut inside a payload by the chunk end: hand the arguments parsed so far to the state machine
   * (state ArgData) and return where the payload starts. Anything else: return pos untouched,
   * and step() parses the frame from its start.
   */
  private fastFrame(buf: Buffer, ab: ArrayBufferLike, offset: number, pos: number, end: number, sink: CommandSink): number {
    let p = pos + 1;
    if (p >= end) return pos;
    let c = buf[p];
    if (c < DIGIT_1 || c > DIGIT_9) return pos;
    let n = c - DIGIT_0;
    while (++p < end && (c = buf[p]) >= DIGIT_0 && c <= DIGIT_9) n = n * 10 + c - DIGIT_0;
    if (c !== CR || n * kMinArgBytes > end - p - 2) return pos;
    const auth = this.authenticated;
    if (n > kUnauthMaxMultibulkLen && !auth) return pos;
    const max = this.limits.protoMaxBulkLen;
    const maxLen = auth || max < kUnauthMaxBulkLen ? max : kUnauthMaxBulkLen;
    p += 2;
    const argv: Buffer[] = new Array(n);
    for (let k = 0; k < n; k++) {
      if (p + 4 > end || buf[p] !== DOLLAR) return pos;
      c = buf[++p];
      let len: number;
      if (c === DIGIT_0) {
        len = 0;
        c = buf[++p];
      } else if (c >= DIGIT_1 && c <= DIGIT_9) {
        len = c - DIGIT_0;
        while (++p < end && (c = buf[p]) >= DIGIT_0 && c <= DIGIT_9) len = len * 10 + c - DIGIT_0;
      } else {
        return pos;
      }
      if (c !== CR || len > maxLen) return pos;
      const from = p + 2;
      p = from + len;
      if (p + 2 > end) {
        if (from > end) return pos;
        argv.length = k;
        this.argv = argv;
        this.need = n - k;
        this.bulkLen = len;
        this.bulkGot = 0;
        this.state = kArgData;
        return from;
      }
      argv[k] = k === 0 ? this.name(buf, ab, offset, from, len) : new FastBuffer(ab, offset + from, len);
      p += 2;
    }
    sink(argv);
    return p;
  }

  /**
   * The command name at buf[from, from + len): the previous frame's name when the bytes are the
   * same (a pipeline repeats its command), else a new one. A view per command was a typed-array
   * allocation (~6% of PING's server CPU at -P 16 in a perf profile), and the command table
   * resolves a name it saw last time by identity instead of hashing it again. The kept name is a
   * copy, so an idle client does not pin the read buffer it came in (up to 64 KiB); names over
   * 32 bytes (no command is that long) are plain views and are not kept.
   */
  private name(buf: Buffer, ab: ArrayBufferLike, offset: number, from: number, len: number): Buffer {
    const last = this.lastName;
    if (last !== undefined && last.length === len) {
      let i = 0;
      while (i < len && last[i] === buf[from + i]) i++;
      if (i === len) return last;
    }
    if (len > kMaxKeptName) return new FastBuffer(ab, offset + from, len);
    const copy = Buffer.allocUnsafe(len);
    for (let i = 0; i < len; i++) copy[i] = buf[from + i];
    return (this.lastName = copy);
  }

  /** Advances the current frame through buf[pos, end); returns where it stopped (end unless a frame completed). */
  private step(buf: Buffer, pos: number, end: number, sink: CommandSink): number {
    while (pos < end) {
      switch (this.state) {
        case kIdle:
          this.state = buf[pos] === STAR ? kCountLine : kInline;
          break;
        case kCountLine:
        case kArgLine: {
          pos = this.headerLine(buf, pos, end);
          const line = this.lineBuf;
          if (line === undefined) break;
          this.lineBuf = undefined;
          const done = this.state === kCountLine
            ? this.countLine(line, this.lineStart, this.lineEnd)
            : this.argLine(line, this.lineStart, this.lineEnd);
          if (done) return pos;
          break;
        }
        case kArgData:
          pos = this.argData(buf, pos, end);
          break;
        case kArgSkip: {
          const k = Math.min(this.skip, end - pos);
          pos += k;
          this.skip -= k;
          if (this.skip > 0) break;
          if (--this.need > 0) {
            this.state = kArgLine;
            break;
          }
          const argv = this.argv;
          this.argv = [];
          this.state = kIdle;
          sink(argv);
          return pos;
        }
        case kInline:
          pos = this.inlineLine(buf, pos, end, sink);
          if ((this.state as number) === kIdle) return pos;
          break;
        case kStalled:
          this.stallLen += end - pos;
          pos = end;
          if (this.stallLen > kMaxInlineLen) this.die(this.stallError);
          break;
        default:
          return end;
      }
    }
    return pos;
  }

  /** '*<count>': true when the frame is over (no command, or an error). */
  private countLine(line: Buffer, start: number, end: number): boolean {
    const n = string2ll(line, start + 1, end);
    if (!(n <= kMaxMultibulkLen)) return this.die(kInvalidMultibulk) !== undefined;
    if (n > kUnauthMaxMultibulkLen && !this.authenticated) return this.die(kUnauthMultibulk) !== undefined;
    if (n <= 0) {
      this.state = kIdle;
      return true;
    }
    this.need = n;
    this.state = kArgLine;
    return false;
  }

  /** '$<len>': true on error. */
  private argLine(line: Buffer, start: number, end: number): boolean {
    const first = end > start ? line[start] : CR;
    if (first !== DOLLAR) return this.die(expectedDollar(first)) !== undefined;
    const n = string2ll(line, start + 1, end);
    if (!(n >= 0 && n <= this.limits.protoMaxBulkLen)) return this.die(kInvalidBulk) !== undefined;
    if (n > kUnauthMaxBulkLen && !this.authenticated) return this.die(kUnauthBulk) !== undefined;
    this.bulkLen = n;
    this.bulkGot = 0;
    this.state = kArgData;
    return false;
  }

  /**
   * Bulk payload. Pieces spanning chunks are kept as (chunk, offset) and copied once into one
   * buffer of exactly bulkLen when the last one arrives, so a `$536870912` header followed by
   * 10 bytes holds 10 bytes, not 512 MB. No view per piece: on 1 KiB chunks of 1 KiB SETs,
   * where every value spans two chunks, views cost ~15% of the parse.
   */
  private argData(buf: Buffer, pos: number, end: number): number {
    const want = this.bulkLen - this.bulkGot;
    if (end - pos < want) {
      this.bulkParts.push(buf);
      this.bulkStarts.push(pos);
      this.bulkGot += end - pos;
      if (this.bulkParts.length > kMaxParts && this.bulkParts.length * kMinAvgPart > this.bulkGot) this.compactBulk();
      return end;
    }
    let arg: Buffer;
    if (this.bulkParts.length === 0) {
      arg = view(buf, pos, pos + want);
    } else {
      arg = this.slab.alloc(this.bulkLen);
      let p = 0;
      const parts = this.bulkParts;
      for (let i = 0; i < parts.length; i++) p += copyInto(arg, p, parts[i], this.bulkStarts[i], parts[i].length);
      copyInto(arg, p, buf, pos, pos + want);
      this.bulkParts = [];
      this.bulkStarts = [];
    }
    this.argv.push(arg);
    this.skip = 2;
    this.state = kArgSkip;
    return pos + want;
  }

  /** Collects a '*' or '$' line up to '\r' plus the byte after it; sets lineBuf when complete. */
  private headerLine(buf: Buffer, pos: number, end: number): number {
    if (this.crSeen) {
      this.crSeen = false;
      this.setLine(join(this.lineParts, this.lineLen), 0, this.lineLen);
      return pos + 1;
    }
    const i = this.scanLine(buf, pos, end, CR, this.state === kCountLine ? kTooBigMbulk : kTooBigBulk);
    if (i < 0) return end;
    if (i + 1 < end) {
      if (this.lineParts.length === 0) {
        this.setLine(buf, pos, i);
      } else {
        this.lineParts.push(view(buf, pos, i));
        this.setLine(join(this.lineParts, this.lineLen + i - pos), 0, this.lineLen + i - pos);
      }
      return i + 2;
    }
    this.lineParts.push(view(buf, pos, i));
    this.lineLen += i - pos;
    this.crSeen = true;
    return end;
  }

  /** An inline line up to '\n' (a '\r' before it is dropped), split like sdssplitargs. */
  private inlineLine(buf: Buffer, pos: number, end: number, sink: CommandSink): number {
    const i = this.scanLine(buf, pos, end, LF, kTooBigInline);
    if (i < 0) return end;
    this.lineParts.push(view(buf, pos, i));
    let line = join(this.lineParts, this.lineLen + i - pos);
    this.lineParts = [];
    this.lineLen = 0;
    if (line.length > 0 && line[line.length - 1] === CR) line = line.subarray(0, line.length - 1);
    const args = splitInlineArgs(line);
    if (args === null) {
      this.die(kUnbalanced);
      return end;
    }
    this.state = kIdle;
    if (args.length > 0) sink(args);
    return i + 1;
  }

  /**
   * Finds `term` in buf[pos, end) for a line that already holds lineLen bytes. Returns its index,
   * or -1 when the chunk ends first (bytes kept), the line holds NUL (Stalled) or exceeds 64 KiB (Dead).
   */
  private scanLine(buf: Buffer, pos: number, end: number, term: number, tooBig: string): number {
    const room = kMaxInlineLen - this.lineLen;
    const stop = end - pos > room ? pos + room + 1 : end;
    let i = pos;
    let c = -1;
    for (; i < stop; i++) {
      c = buf[i];
      if (c === term || c === NUL) break;
    }
    if (i < stop && c === term) return i;
    if (i < stop) {
      this.state = kStalled;
      this.stallError = tooBig;
      this.stallLen = this.lineLen + end - pos;
      this.lineParts = [];
      this.lineLen = 0;
      if (this.stallLen > kMaxInlineLen) this.die(tooBig);
      return -1;
    }
    if (this.lineLen + stop - pos > kMaxInlineLen) {
      this.die(tooBig);
      return -1;
    }
    this.lineParts.push(view(buf, pos, end));
    this.lineLen += end - pos;
    if (this.lineParts.length > kMaxParts && this.lineParts.length * kMinAvgPart > this.lineLen) {
      this.lineParts = [join(this.lineParts, this.lineLen)];
    }
    return -1;
  }

  private compactBulk(): void {
    const out = Buffer.allocUnsafeSlow(this.bulkGot);
    let p = 0;
    for (let i = 0; i < this.bulkParts.length; i++) p += copyInto(out, p, this.bulkParts[i], this.bulkStarts[i], this.bulkParts[i].length);
    this.bulkParts = [out];
    this.bulkStarts = [0];
  }

  private setLine(line: Buffer, start: number, end: number): void {
    this.lineBuf = line;
    this.lineStart = start;
    this.lineEnd = end;
    if (this.lineParts.length > 0) {
      this.lineParts = [];
      this.lineLen = 0;
    }
  }

  private die(message: string): string {
    this.state = kDead;
    this.error = message;
    this.held = 0;
    this.argv = [];
    this.bulkParts = [];
    this.bulkStarts = [];
    this.lineParts = [];
    return message;
  }
}
