// A tiny one-shot RESP client for the harness's side channel (CONFIG GET, INFO, PING, probes):
// sends commands on a fresh connection and decodes the replies into values. Not for load.

import { connect, type Socket } from 'node:net';
import { encodeCommand } from './encode';

export type RespValue = string | number | null | RespValue[] | RespErrorValue;

export class RespErrorValue {
  constructor(readonly message: string) {}
}

export interface Target {
  host: string;
  port: number;
  socket?: string | null;
}

/** Decodes one value at `pos`; returns null when the buffer is incomplete. */
export function decode(buf: Buffer, pos: number): { value: RespValue; end: number } | null {
  const lf = buf.indexOf(10, pos);
  if (lf < 0) return null;
  const type = String.fromCharCode(buf[pos]);
  const line = buf.toString('latin1', pos + 1, lf - 1);
  const next = lf + 1;
  switch (type) {
    case '+': case '(': case ',': return { value: line, end: next };
    case '-': return { value: new RespErrorValue(line), end: next };
    case ':': return { value: Number(line), end: next };
    case '_': return { value: null, end: next };
    case '#': return { value: line === 't' ? 1 : 0, end: next };
    case '$': case '=': case '!': {
      const n = Number(line);
      if (n < 0) return { value: null, end: next };
      if (buf.length < next + n + 2) return null;
      const s = buf.toString('utf8', next, next + n);
      return { value: type === '!' ? new RespErrorValue(s) : s, end: next + n + 2 };
    }
    case '*': case '~': case '>': case '%': case '|': {
      const n = Number(line) * (type === '%' || type === '|' ? 2 : 1);
      if (n < 0) return { value: null, end: next };
      const out: RespValue[] = [];
      let at = next;
      for (let i = 0; i < n; i++) {
        const r = decode(buf, at);
        if (r === null) return null;
        out.push(r.value);
        at = r.end;
      }
      return { value: out, end: at };
    }
    default:
      throw new Error(`Protocol error: unexpected reply type ${JSON.stringify(type)}`);
  }
}

export function openSocket(t: Target): Socket {
  return t.socket ? connect({ path: t.socket }) : connect({ host: t.host, port: t.port });
}

/** Sends the commands in one write and resolves with one decoded reply each. */
export function request(t: Target, commands: string[][], timeoutMs = 5000): Promise<RespValue[]> {
  return new Promise((resolve, reject) => {
    const sock = openSocket(t);
    let buf = Buffer.alloc(0);
    const replies: RespValue[] = [];
    const timer = setTimeout(() => {
      sock.destroy();
      reject(new Error(`no reply within ${timeoutMs} ms`));
    }, timeoutMs);
    sock.on('connect', () => sock.write(Buffer.concat(commands.map((c) => encodeCommand(c)))));
    sock.on('data', (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      let pos = 0;
      for (let r = decode(buf, pos); r !== null; r = decode(buf, pos)) {
        replies.push(r.value);
        pos = r.end;
        if (replies.length === commands.length) {
          clearTimeout(timer);
          sock.destroy();
          resolve(replies);
          return;
        }
      }
      buf = buf.subarray(pos);
    });
    sock.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

/** Whether something accepts connections at the target: false only for ECONNREFUSED / ENOENT. */
export function probe(t: Target, timeoutMs = 2000): Promise<'open' | 'refused' | 'other'> {
  return new Promise((resolve) => {
    const sock = openSocket(t);
    const timer = setTimeout(() => {
      sock.destroy();
      resolve('other');
    }, timeoutMs);
    sock.on('connect', () => {
      clearTimeout(timer);
      sock.destroy();
      resolve('open');
    });
    sock.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve(err.code === 'ECONNREFUSED' || err.code === 'ENOENT' ? 'refused' : 'other');
    });
  });
}

/** INFO text as a map of field → value. */
export function parseInfo(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i > 0 && !line.startsWith('#')) out.set(line.slice(0, i), line.slice(i + 1));
  }
  return out;
}
