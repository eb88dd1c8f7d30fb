/**
 * Differential: CLIENT TRACKING against redis-server 7.0.15, byte for byte. Each transcript runs
 * on named connections of both servers; a step sends commands on one connection (one write: a
 * pipelined step runs as a merged run here), reads their replies, then fences every
 * connection (PING fence: a RESP2 subscriber answers it too), so each connection's frames of the
 * step — replies, invalidation pushes, __redis__:invalidate messages — are compared in order.
 * PostRESP runs one worker, where an invalidation is queued before the writer's reply as in Redis
 * (other workers and instances: test/e2e/tracking.test.ts). Client ids differ between the
 * servers: `@R` in a command stands for connection R's id, and the id is masked in frames.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { encode } from '../e2e/resp-client';
import { Oracle } from './oracle';
import { FrameConn, show } from './resp-frames';

type Step = { on: string; run: string[][] } | { sleep: number };

let oracle: Oracle;
before(async () => { oracle = await Oracle.start(['--workers', '1', '--storage-mode', 'unlogged']); });
after(async () => { await oracle?.stop(); });

const s = (on: string, ...run: string[][]): Step => ({ on, run });

async function transcript(port: number, names: string[], steps: Step[]): Promise<string[]> {
  const conns = new Map<string, FrameConn>();
  const ids = new Map<string, string>();
  const out: string[] = [];
  let getredir = false;
  try {
    for (const n of names) {
      const c = await FrameConn.connect(port);
      conns.set(n, c);
      c.write(encode('CLIENT', 'ID'));
      const [id] = (await c.read(1)).frames;
      ids.set(n, id.toString().slice(1, -2));
    }
    const mask = (b: Buffer): string => {
      // HELLO names the server's version: compared by its type
      if (b.includes('$6\r\nserver\r\n')) return `${String.fromCharCode(b[0])}<hello>`;
      let t = show(b, 400);
      // a client id: CLIENT GETREDIR's reply (a frame of its own), TRACKINGINFO's redirect, tracking-redir-broken's
      for (const [n, id] of ids) {
        if (t === `:${id}\\r\\n` && getredir) t = `:<${n}>\\r\\n`;
        t = t.replaceAll(`redirect\\r\\n:${id}\\r\\n`, `redirect\\r\\n:<${n}>\\r\\n`).replaceAll(`broken\\r\\n:${id}\\r\\n`, `broken\\r\\n:<${n}>\\r\\n`);
      }
      return t;
    };
    const fence = async (name: string, c: FrameConn, i: number): Promise<void> => {
      c.write(encode('PING', `fence${i}`));
      for (;;) {
        const r = await c.read(1, 5000);
        if (r.stopped) { out.push(`${i} ${name}: <${r.stopped}>`); return; }
        const f = r.frames[0];
        if (f.includes(`fence${i}`) && (f[0] === 36 /* $ */ || f[0] === 42 /* * */)) return;
        out.push(`${i} ${name}: ${mask(f)}`);
      }
    };
    for (let i = 0; i < steps.length; i++) {
      const step = steps[i];
      if ('sleep' in step) { await new Promise((r) => setTimeout(r, step.sleep)); continue; }
      const c = conns.get(step.on)!;
      getredir = step.run.some((cmd) => cmd[1]?.toUpperCase() === 'GETREDIR');
      c.write(Buffer.concat(step.run.map((cmd) => encode(...cmd.map((a) => (a.startsWith('@') ? ids.get(a.slice(1))! : a))))));
      // its replies first (pushes, '>', may come between), then every connection's fence: a BCAST
      // message goes out after the turn that ran the write, on both servers
      for (let got = 0; got < step.run.length;) {
        const r = await c.read(1, 5000);
        if (r.stopped) { out.push(`${i} ${step.on}: <${r.stopped}>`); break; }
        out.push(`${i} ${step.on}: ${mask(r.frames[0])}`);
        if (r.frames[0][0] !== 62 /* > */) got++;
      }
      for (const [n, other] of conns) await fence(n, other, i);
    }
    return out;
  } finally {
    for (const c of conns.values()) c.close();
  }
}

async function compare(names: string[], steps: Step[]): Promise<void> {
  await Promise.all([oracle.redis.port, oracle.postresp.port].map(async (p) => {
    const c = await FrameConn.connect(p);
    c.write(encode('FLUSHALL'));
    await c.read(1);
    c.close();
  }));
  const theirs = await transcript(oracle.redis.port, names, steps);
  const ours = await transcript(oracle.postresp.port, names, steps);
  const diff: string[] = [];
  for (let i = 0; i < Math.max(ours.length, theirs.length); i++) {
    if (ours[i] !== theirs[i]) diff.push(`#${i}\n  postresp     ${ours[i]}\n  redis-server ${theirs[i]}`);
  }
  assert.deepEqual(diff, [], `first differences:\n${diff.slice(0, 4).join('\n')}`);
  assert.ok(theirs.some((l) => l.includes('invalidate')) || theirs.some((l) => l.includes('ERR')), 'the transcript shows something');
}

describe('CLIENT TRACKING vs redis-server', () => {
  it('RESP3 default mode: read keys are invalidated once by every kind of write, after the writer\'s reply', async () => {
    await compare(['A', 'B'], [
      s('A', ['HELLO', '3'], ['CLIENT', 'TRACKING', 'on']),
      s('B', ['MSET', 'k1', '1', 'k2', '2', 'k3', '3', 'h', 'x', 'n', '5']),
      s('A', ['GET', 'k1'], ['MGET', 'k2', 'k3'], ['STRLEN', 'n'], ['EXISTS', 'nope']),
      s('B', ['SET', 'k1', 'x']),
      s('B', ['SET', 'k1', 'y']), // not read again: nothing
      s('B', ['INCR', 'n'], ['INCR', 'n'], ['APPEND', 'k2', 'z'], ['DEL', 'k3', 'nope']),
      s('A', ['GET', 'k1'], ['GET', 'k2'], ['TYPE', 'n']),
      s('B', ['RENAME', 'k1', 'k9'], ['EXPIRE', 'k2', '100']),
      s('A', ['GET', 'k9'], ['TTL', 'n']),
      s('B', ['MOVE', 'k9', '1'], ['COPY', 'n', 'k9']),
      s('A', ['HGET', 'hh', 'f'], ['LRANGE', 'll', '0', '-1'], ['SMEMBERS', 'ss'], ['ZRANGE', 'zz', '0', '-1'], ['XLEN', 'xx']),
      s('B', ['HSET', 'hh', 'f', '1'], ['LPUSH', 'll', 'a'], ['SADD', 'ss', 'm'], ['ZADD', 'zz', '1', 'm'], ['XADD', 'xx', '1-1', 'f', 'v']),
      s('A', ['GET', 'own']),
      s('A', ['SET', 'own', '1']), // its own write: invalidated after its reply
      s('A', ['GET', 'own'], ['MULTI'], ['INCR', 'own'], ['GET', 'k2'], ['EXEC']),
      s('B', ['EVAL', "return redis.call('set', KEYS[1], 'e')", '1', 'k2']),
      s('A', ['EVAL', "redis.call('set', 'k3x', 'bar')", '2', 'd1', 'd2'], ['EVAL', "return redis.call('get', 'zz9')", '2', 'd3', 'd4'],
        ['EVAL_RO', "return redis.call('ping')", '2', 'd5', 'd6']),
      s('B', ['MSET', 'd2', '1', 'd1', '1', 'd4', '1', 'd3', '1', 'zz9', '1', 'd5', '1', 'd6', '1']),
      s('A', ['GET', 'k2'], ['CLIENT', 'TRACKING', 'off']),
      s('B', ['SET', 'k2', 'after-off']),
    ]);
  });

  it('PFCOUNT that rewrites the cached cardinality invalidates, a PFCOUNT that finds it valid does not (signalModifiedKey)', async () => {
    await compare(['A', 'B'], [
      s('A', ['HELLO', '3'], ['CLIENT', 'TRACKING', 'on']),
      s('B', ['PFADD', 'hll', 'a', 'b', 'c']),
      s('A', ['GET', 'hll']),
      s('B', ['PFCOUNT', 'hll']), // the cache was stale after PFADD: rewritten, invalidated
      s('A', ['GET', 'hll']),
      s('B', ['PFCOUNT', 'hll']), // valid now: nothing
      s('B', ['PFADD', 'hll', 'd']),
      s('A', ['PFCOUNT', 'hll']), // its own read rewrites it: invalidated after its reply
      s('A', ['GET', 'hll']),
      s('B', ['PFADD', 'hll', 'a']), // no register changed: nothing
      s('B', ['PFCOUNT', 'hll', 'other']), // several keys: nothing is rewritten
      s('B', ['PFADD', 'hll', 'e'], ['PFCOUNT', 'hll']),
      s('A', ['GET', 'hll']),
      s('B', ['PFADD', 'hll', 'f']),
      s('A', ['GET', 'hll']),
      s('B', ['EVAL', "return redis.call('pfcount', KEYS[1])", '1', 'hll']), // a script's PFCOUNT rewrites too
      s('A', ['GET', 'hll']),
      s('B', ['PFADD', 'hll', 'g']),
      s('A', ['GET', 'hll']),
      s('B', ['MULTI'], ['PFCOUNT', 'hll'], ['EXEC']), // and one in a transaction
    ]);
  });

  it('RESP2 with REDIRECT to a connection subscribed to __redis__:invalidate; a redirect to one that closed is broken', async () => {
    await compare(['A', 'R', 'B', 'R3'], [
      s('R', ['SUBSCRIBE', '__redis__:invalidate']),
      s('A', ['CLIENT', 'TRACKING', 'on', 'REDIRECT', '@R'], ['CLIENT', 'GETREDIR'], ['CLIENT', 'TRACKINGINFO']),
      s('B', ['SET', 'a', '1'], ['SET', 'b', '1']),
      s('A', ['GET', 'a'], ['INCR', 'b']),
      s('B', ['INCR', 'a'], ['INCR', 'b']),
      s('A', ['MGET', 'a', 'b', 'c']),
      s('B', ['FLUSHDB']),
      s('A', ['GET', 'a']),
      s('B', ['FLUSHALL']),
      s('R3', ['HELLO', '3']),
      s('A', ['CLIENT', 'TRACKING', 'on', 'REDIRECT', '@R3']),
      s('A', ['GET', 'a']),
      s('B', ['SET', 'a', '2']),
      s('B', ['FLUSHALL']),
      s('A', ['HELLO', '3'], ['CLIENT', 'TRACKING', 'on', 'REDIRECT', '@R']),
      s('A', ['GET', 'a']),
      s('R', ['QUIT']),
      { sleep: 50 },
      s('B', ['SET', 'a', '3']),
      s('A', ['CLIENT', 'TRACKINGINFO'], ['CLIENT', 'TRACKING', 'off'], ['CLIENT', 'TRACKINGINFO'], ['CLIENT', 'GETREDIR']),
    ]);
  });

  it('BCAST with prefixes, NOLOOP, OPTIN with CLIENT CACHING yes, OPTOUT with CLIENT CACHING no', async () => {
    await compare(['A', 'B'], [
      s('A', ['HELLO', '3'], ['CLIENT', 'TRACKING', 'on', 'BCAST', 'PREFIX', 'a:', 'PREFIX', 'b:']),
      s('B', ['MULTI'], ['INCR', 'a:1'], ['INCR', 'a:2'], ['INCR', 'b:1'], ['INCR', 'c:1'], ['EXEC']),
      s('B', ['MSET', 'a:3', '1', 'a:1', '2', 'c:2', '1']),
      s('A', ['SET', 'a:9', 'mine']),
      s('A', ['CLIENT', 'TRACKING', 'on', 'BCAST', 'PREFIX', 'c:'], ['CLIENT', 'TRACKINGINFO']),
      s('B', ['SET', 'c:5', '1'], ['DEL', 'a:3']),
      s('A', ['CLIENT', 'TRACKING', 'off'], ['CLIENT', 'TRACKING', 'on', 'BCAST', 'NOLOOP']),
      s('A', ['SET', 'x', '1']),
      s('B', ['SET', 'y', '1']),
      s('A', ['CLIENT', 'TRACKING', 'off'], ['CLIENT', 'TRACKING', 'on', 'NOLOOP']),
      s('A', ['GET', 'x'], ['GET', 'y']),
      s('A', ['SET', 'x', '2']),
      s('B', ['SET', 'y', '2']),
      s('A', ['CLIENT', 'TRACKING', 'off'], ['CLIENT', 'TRACKING', 'on', 'OPTIN']),
      s('A', ['GET', 'x'], ['CLIENT', 'CACHING', 'yes'], ['GET', 'y'], ['CLIENT', 'TRACKINGINFO'], ['GET', 'x']),
      s('B', ['SET', 'x', '3'], ['SET', 'y', '3']),
      s('A', ['CLIENT', 'CACHING', 'yes'], ['MULTI'], ['GET', 'x'], ['EXEC']),
      s('B', ['SET', 'x', '4']),
      s('A', ['CLIENT', 'TRACKING', 'off'], ['CLIENT', 'TRACKING', 'on', 'OPTOUT']),
      s('A', ['CLIENT', 'CACHING', 'no'], ['GET', 'x'], ['GET', 'y']),
      s('B', ['SET', 'x', '5'], ['SET', 'y', '5']),
    ]);
  });

  it('errors: option syntax, mode switches, prefix overlaps, redirect targets, CLIENT CACHING', async () => {
    await compare(['A'], [
      s('A', ['CLIENT', 'TRACKING', 'maybe'], ['CLIENT', 'TRACKING', 'on', 'BOGUS'], ['CLIENT', 'TRACKING', 'on', 'REDIRECT'],
        ['CLIENT', 'TRACKING', 'on', 'PREFIX'], ['CLIENT', 'TRACKING', 'on', 'PREFIX', 'x'], ['CLIENT', 'TRACKING', 'on', 'REDIRECT', 'abc'],
        ['CLIENT', 'TRACKING', 'on', 'REDIRECT', '999999'], ['CLIENT', 'TRACKING', 'on', 'REDIRECT', '@A', 'REDIRECT', '@A'],
        ['CLIENT', 'TRACKING', 'on', 'BCAST', 'OPTIN'], ['CLIENT', 'TRACKING', 'on', 'OPTIN', 'OPTOUT'],
        ['CLIENT', 'TRACKING', 'on', 'BCAST', 'PREFIX', 'FOOBAR', 'PREFIX', 'FOO'], ['CLIENT', 'TRACKING'],
        ['CLIENT', 'CACHING', 'yes'], ['CLIENT', 'GETREDIR'], ['CLIENT', 'TRACKINGINFO']),
      s('A', ['CLIENT', 'TRACKING', 'on', 'OPTIN'], ['CLIENT', 'TRACKING', 'on', 'OPTOUT'], ['CLIENT', 'CACHING', 'no'],
        ['CLIENT', 'CACHING', 'maybe'], ['CLIENT', 'TRACKING', 'on', 'BCAST'], ['CLIENT', 'TRACKING', 'off', 'BOGUS'],
        ['CLIENT', 'TRACKING', 'off']),
      s('A', ['CLIENT', 'TRACKING', 'on', 'BCAST', 'PREFIX', 'FOO', 'PREFIX', 'BAR'], ['CLIENT', 'TRACKING', 'on', 'BCAST', 'PREFIX', 'FO'],
        ['CLIENT', 'TRACKING', 'on', 'BCAST', 'PREFIX', 'BARB'], ['CLIENT', 'TRACKING', 'on'], ['CLIENT', 'CACHING', 'yes'],
        ['CLIENT', 'TRACKINGINFO'], ['CLIENT', 'TRACKING', 'off'], ['CLIENT', 'TRACKING', 'on', 'BCAST'], ['CLIENT', 'TRACKINGINFO']),
    ]);
  });

  it('expiry invalidates a tracked key (Redis\'s active expiry, our sweeper)', async () => {
    await compare(['A', 'B'], [
      s('A', ['HELLO', '3'], ['CLIENT', 'TRACKING', 'on']),
      s('B', ['SET', 'e', '1', 'PX', '100'], ['SET', 'f', '1']),
      s('A', ['GET', 'e'], ['GET', 'f']),
      { sleep: 600 },
      s('B', ['SET', 'f', '2']),
    ]);
  });
});
