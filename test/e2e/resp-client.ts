/**
 * A raw RESP client for tests: sends exact bytes, decodes replies (RESP2 and RESP3) into plain
 * values so tests can compare them with what redis-server answers.
 */
import net from 'node:net';

export type Value = string | number | bigint | null | boolean | Value[] | { error: string } | { map: [Value, Value][] }
  | { set: Value[] } | { double: string } | { verbatim: string } | { push: Value[] } | { big: string };

export class ReplyDecoder {
  private buf: Buffer = Buffer.alloc(0);
  feed(chunk: Buffer): void {
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
  }
  /** One decoded reply, or undefined when more bytes are needed. */
  next(): Value | undefined {
    const r = this.parse(0);
    if (r === undefined) return undefined;
    this.buf = this.buf.subarray(r[1]);
    return r[0];
  }
  private line(at: number): [string, number] | undefined {
    const end = this.buf.indexOf('\r\n', at);
    return end < 0 ? undefined : [this.buf.toString('latin1', at + 1, end), end + 2];
  }
  private parse(at: number): [Value, number] | undefined {
    if (at >= this.buf.length) return undefined;
    const type = String.fromCharCode(this.buf[at]);
    const l = this.line(at);
    if (l === undefined) return undefined;
    const [text, next] = l;
    switch (type) {
      case '+': return [text, next];
      case '-': return [{ error: text }, next];
      case ':': return [Number(text), next];
      case '_': return [null, next];
      case '#': return [text === 't', next];
      case ',': return [{ double: text }, next];
      case '(': return [{ big: text }, next];
      case '$': case '=': case '!': {
        const n = Number(text);
        if (n < 0) return [null, next];
        if (this.buf.length < next + n + 2) return undefined;
        const s = this.buf.toString('latin1', next, next + n);
        if (type === '=') return [{ verbatim: s }, next + n + 2];
        if (type === '!') return [{ error: s }, next + n + 2];
        return [s, next + n + 2];
      }
      case '*': case '~': case '>': case '%': {
        const n = Number(text);
        if (n < 0) return [null, next];
        const count = type === '%' ? n * 2 : n;
        const items: Value[] = [];
        let pos = next;
        for (let i = 0; i < count; i++) {
          const r = this.parse(pos);
          if (r === undefined) return undefined;
          items.push(r[0]);
          pos = r[1];
        }
        if (type === '~') return [{ set: items }, pos];
        if (type === '>') return [{ push: items }, pos];
        if (type === '%') {
          const map: [Value, Value][] = [];
          for (let i = 0; i < items.length; i += 2) map.push([items[i], items[i + 1]]);
          return [{ map }, pos];
        }
        return [items, pos];
      }
      default:
        throw new Error(`bad reply type byte ${JSON.stringify(type)} in ${JSON.stringify(this.buf.toString('latin1', at, at + 40))}`);
    }
  }
}

export function encode(...args: (string | Buffer)[]): Buffer {
  const parts: Buffer[] = [Buffer.from(`*${args.length}\r\n`)];
  for (const a of args) {
    const b = typeof a === 'string' ? Buffer.from(a) : a;
    parts.push(Buffer.from(`$${b.length}\r\n`), b, Buffer.from('\r\n'));
  }
  return Buffer.concat(parts);
}

export class RawClient {
  private readonly decoder = new ReplyDecoder();
  private readonly waiters: (() => void)[] = [];
  raw: Buffer = Buffer.alloc(0);
  closed = false;
  private constructor(readonly socket: net.Socket) {
    socket.on('data', (d: Buffer) => {
      this.raw = Buffer.concat([this.raw, d]);
      this.decoder.feed(d);
      this.wake();
    });
    socket.on('close', () => { this.closed = true; this.wake(); });
    socket.on('error', () => undefined);
  }
  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }
  static connect(port: number, host = '127.0.0.1'): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const s = net.connect({ port, host }, () => resolve(new RawClient(s)));
      s.once('error', reject);
    });
  }
  static connectPath(path: string): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const s = net.connect({ path }, () => resolve(new RawClient(s)));
      s.once('error', reject);
    });
  }
  send(data: Buffer | string): void {
    this.socket.write(data);
  }
  async call(...args: (string | Buffer)[]): Promise<Value> {
    this.send(encode(...args));
    return (await this.read(1))[0];
  }
  /** Reads n replies; rejects on timeout or when the server closes first. */
  async read(n: number, timeoutMs = 10000): Promise<Value[]> {
    const out: Value[] = [];
    const deadline = Date.now() + timeoutMs;
    while (out.length < n) {
      const v = this.decoder.next();
      if (v !== undefined) { out.push(v); continue; }
      if (this.closed) throw new Error(`connection closed after ${out.length}/${n} replies`);
      if (Date.now() > deadline) throw new Error(`timeout after ${out.length}/${n} replies`);
      await new Promise<void>((r) => {
        const t = setTimeout(r, Math.max(1, deadline - Date.now()));
        this.waiters.push(() => { clearTimeout(t); r(); });
      });
    }
    return out;
  }
  /** Resolves when the server closed the connection. */
  async waitClosed(timeoutMs = 10000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.closed) {
      if (Date.now() > deadline) throw new Error('connection still open');
      await new Promise<void>((r) => { const t = setTimeout(r, 50); this.waiters.push(() => { clearTimeout(t); r(); }); });
    }
  }
  close(): void {
    this.socket.destroy();
  }
}
