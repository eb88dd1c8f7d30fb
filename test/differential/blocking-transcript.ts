/**
 * Scenarios of several connections for the blocking differential tests (blocking.test.ts,
 * blocking-streams.test.ts): run step by step against one server, as a transcript of every
 * reply's bytes, to compare redis-server's with PostRESP's.
 */
import { encode } from '../e2e/resp-client';
import assert from 'node:assert/strict';
import type { Cmd, Oracle } from './oracle';
import { FrameConn, show } from './resp-frames';

/** words; "" is an empty argument */
export const w = (line: string): Cmd => line.split(' ').map((a) => (a === '""' ? '' : a));

/**
 * A step of a scenario: send without reading, read replies, call (send then read one), wait until
 * INFO says n clients are blocked, close a connection, or remember a client's id for UNBLOCK.
 */
export type Step =
  | { c: number; send: string }
  | { c: number; read: number }
  | { c: number; call: string }
  | { blocked: number }
  | { close: number }
  | { c: number; id: true }
  | { c: number; unblock: number; how?: string }
  | { c: number; flagsOf: number }
  /** DUMP of `from`, then RESTORE `to` 0 <payload> [REPLACE]: the payload is binary, not a word */
  | { c: number; restore: string; from: string; replace?: true };

export async function transcript(port: number, steps: Step[]): Promise<string[]> {
  const conns = new Map<number, FrameConn>();
  const ids = new Map<number, string>();
  const out: string[] = [];
  const conn = async (n: number) => {
    let c = conns.get(n);
    if (c === undefined) conns.set(n, c = await FrameConn.connect(port));
    return c;
  };
  const read = async (n: number, count: number) => {
    const r = await (await conn(n)).read(count, 5000);
    out.push(...r.frames.map((f) => `${n}: ${show(f)}`));
    if (r.stopped) out.push(`${n}: <${r.stopped}>`);
    return r.frames;
  };
  const ctl = await FrameConn.connect(port);
  try {
    for (const s of steps) {
      if ('blocked' in s) {
        for (let i = 0; ; i++) {
          ctl.write(encode('INFO', 'clients'));
          const info = (await ctl.read(1, 5000)).frames[0]?.toString() ?? '';
          if (info.includes(`blocked_clients:${s.blocked}\r\n`)) break;
          if (i > 500) throw new Error(`blocked_clients never ${s.blocked}: ${info}`);
          await new Promise((r) => setTimeout(r, 10));
        }
      } else if ('close' in s) {
        conns.get(s.close)?.close();
        conns.delete(s.close);
      } else if ('id' in s) {
        (await conn(s.c)).write(encode('CLIENT', 'ID'));
        ids.set(s.c, (await (await conn(s.c)).read(1, 5000)).frames[0].toString().slice(1, -2));
      } else if ('unblock' in s) {
        (await conn(s.c)).write(encode('CLIENT', 'UNBLOCK', ids.get(s.unblock)!, ...(s.how ? [s.how] : [])));
        await read(s.c, 1);
      } else if ('flagsOf' in s) {
        (await conn(s.c)).write(encode('CLIENT', 'LIST', 'ID', ids.get(s.flagsOf)!));
        const line = (await (await conn(s.c)).read(1, 5000)).frames[0].toString();
        out.push(`${s.c}: flags=${/ flags=(\S+) /.exec(line)?.[1]}`);
      } else if ('restore' in s) {
        (await conn(s.c)).write(encode('DUMP', s.from));
        const dump = (await (await conn(s.c)).read(1, 5000)).frames[0];
        const payload = dump.subarray(dump.indexOf('\r\n') + 2, dump.length - 2);
        (await conn(s.c)).write(encode('RESTORE', s.restore, '0', payload, ...(s.replace ? ['REPLACE'] : [])));
        await read(s.c, 1);
      } else if ('send' in s) {
        (await conn(s.c)).write(Buffer.concat(s.send.split(' | ').map((l) => encode(...w(l)))));
      } else if ('read' in s) {
        await read(s.c, s.read);
      } else if (s.call.startsWith('~')) {
        // a reply that differs by nature (HELLO): read, not compared
        (await conn(s.c)).write(encode(...w(s.call.slice(1))));
        await (await conn(s.c)).read(1, 5000);
      } else {
        (await conn(s.c)).write(encode(...w(s.call)));
        await read(s.c, 1);
      }
    }
  } finally {
    ctl.close();
    for (const c of conns.values()) c.close();
  }
  return out;
}

export const served = (block: string, push: string, after = 'EXISTS k'): Step[] =>
  [{ c: 0, send: block }, { blocked: 1 }, { c: 1, call: push }, { c: 0, read: 1 }, { c: 1, call: after }];

/** steps with client 5 subscribed to every keyevent of db 0: then its n events and a PING (nothing more came) */
export const withEvents = (n: number, steps: Step[]): Step[] => [
  { c: 5, call: 'CONFIG SET notify-keyspace-events EA' }, { c: 5, call: 'PSUBSCRIBE __keyevent@0__:*' }, ...steps,
  { c: 5, read: n }, { c: 5, call: 'PING' }, { c: 6, call: 'CONFIG SET notify-keyspace-events ""' },
];


/** The scenario run on redis-server, then on PostRESP (each from an empty server): the same transcripts. */
export async function sameTranscripts(oracle: Oracle, steps: Step[]): Promise<void> {
  await oracle.reset();
  const want = await transcript(oracle.redis.port, steps);
  await oracle.reset();
  const got = await transcript(oracle.postresp.port, steps);
  assert.deepEqual(got, want);
}
