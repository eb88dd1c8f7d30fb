/**
 * Byte-exact reply framing for differential tests: splits what a server sent into one Buffer per
 * top-level reply, without decoding, so replies can be compared byte for byte (RawClient decodes
 * into values, which would hide e.g. `+OK` vs `$2 OK`, or RESP3 `_` vs `$-1`).
 */
import net from 'node:net';

const CR = 13; // \r

function lineEnd(buf: Buffer, at: number): number {
  const i = buf.indexOf(CR, at);
  return i < 0 || i + 1 >= buf.length ? -1 : i + 2;
}

/** End offset of the reply starting at `at`, or -1 when more bytes are needed. */
export function frameEnd(buf: Buffer, at: number): number {
  if (at >= buf.length) return -1;
  const type = buf[at];
  const next = lineEnd(buf, at);
  if (next < 0) return -1;
  const n = Number(buf.toString('latin1', at + 1, next - 2));
  switch (type) {
    case 0x24: case 0x3d: case 0x21: // $ = !  bulk, verbatim, blob error
      if (n < 0) return next;
      return buf.length < next + n + 2 ? -1 : next + n + 2;
    case 0x2a: case 0x7e: case 0x3e: case 0x25: case 0x7c: { // * ~ > % |  aggregates
      if (n < 0) return next;
      let pos = next;
      const count = type === 0x25 || type === 0x7c ? 2 * n : n;
      for (let i = 0; i < count; i++) {
        pos = frameEnd(buf, pos);
        if (pos < 0) return -1;
      }
      // an attribute (|) precedes the reply it annotates: both are one frame
      return type === 0x7c ? frameEnd(buf, pos) : pos;
    }
    default: // + - : _ # , (  one line
      return next;
  }
}

/** Printable form of bytes: \r \n \xNN escaped, long runs elided. */
export function show(b: Buffer | string, max = 160): string {
  const buf = typeof b === 'string' ? Buffer.from(b, 'latin1') : b;
  let out = '';
  for (let i = 0; i < buf.length && out.length < max; i++) {
    const c = buf[i];
    if (c === 13) out += '\\r';
    else if (c === 10) out += '\\n';
    else if (c === 92) out += '\\\\';
    else if (c < 32 || c > 126) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else out += String.fromCharCode(c);
  }
  return out.length >= max ? `${out.slice(0, max)}…(${buf.length} bytes)` : out;
}

export interface ReadResult {
  frames: Buffer[];
  /** why fewer frames than asked came back */
  stopped?: 'closed' | 'timeout';
}

/** A connection that hands out raw reply frames. */
export class FrameConn {
  private buf: Buffer = Buffer.alloc(0);
  private pos = 0;
  private closed = false;
  private wake: (() => void) | undefined;
  private constructor(readonly socket: net.Socket) {
    socket.setNoDelay(true);
    socket.on('data', (d: Buffer) => {
      this.buf = this.pos === this.buf.length ? d : Buffer.concat([this.buf.subarray(this.pos), d]);
      this.pos = 0;
      this.wake?.();
    });
    socket.on('close', () => { this.closed = true; this.wake?.(); });
    socket.on('error', () => undefined);
  }
  static connect(port: number, host = '127.0.0.1'): Promise<FrameConn> {
    return new Promise((resolve, reject) => {
      const s = net.connect({ port, host }, () => { s.off('error', reject); resolve(new FrameConn(s)); });
      s.once('error', reject);
    });
  }
  write(data: Buffer): void {
    this.socket.write(data);
  }
  /** Reads n frames; gives up after idleMs without a new byte (a hang is a finding, not a crash). */
  async read(n: number, idleMs = 15000): Promise<ReadResult> {
    const frames: Buffer[] = [];
    while (frames.length < n) {
      const end = frameEnd(this.buf, this.pos);
      if (end >= 0) {
        frames.push(Buffer.from(this.buf.subarray(this.pos, end)));
        this.pos = end;
        continue;
      }
      if (this.closed) return { frames, stopped: 'closed' };
      const got = await new Promise<boolean>((resolve) => {
        const t = setTimeout(() => { this.wake = undefined; resolve(false); }, idleMs);
        this.wake = () => { clearTimeout(t); this.wake = undefined; resolve(true); };
      });
      if (!got) return { frames, stopped: 'timeout' };
    }
    return { frames };
  }
  close(): void {
    this.socket.destroy();
  }
}
