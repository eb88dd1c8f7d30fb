/**
 * `node dist/harness/blocking-wakeup.js [--rounds N] [--postresp-a PORT --postresp-b PORT] [--redis PORT]`
 * BLPOP wake-up latency (docs/BENCHMARKS.md "Blocking commands"): a client blocks in BLPOP; once
 * INFO shows it blocked (and 20 ms more, for its registration to reach every worker and
 * instance), another client sends RPUSH; the time from that write to the arrival of the BLPOP's
 * reply is one sample. Closed loop, one sample at a time, for each target:
 *
 *   redis        BLPOP and RPUSH on redis-server
 *   same         BLPOP and RPUSH on one PostRESP (two connections: two workers)
 *   across       BLPOP on PostRESP A, RPUSH on PostRESP B (same database and schema)
 *
 * The servers must already run; a target whose port is not given is skipped.
 */
import net from 'node:net';
import * as hdr from 'hdr-histogram-js';

const argv = process.argv.slice(2);
const arg = (name: string): string | undefined => { const i = argv.indexOf(`--${name}`); return i >= 0 ? argv[i + 1] : undefined; };
const rounds = Number(arg('rounds') ?? '300');

class Conn {
  private buf = '';
  private waiting: ((s: string) => void) | undefined;
  private constructor(readonly socket: net.Socket) {
    socket.setNoDelay(true);
    socket.on('data', (d) => {
      this.buf += d.toString('latin1');
      const w = this.waiting;
      if (w !== undefined && complete(this.buf)) {
        this.waiting = undefined;
        const out = this.buf;
        this.buf = '';
        w(out);
      }
    });
  }
  static open(port: number): Promise<Conn> {
    return new Promise((resolve, reject) => {
      const s = net.connect({ port, host: '127.0.0.1' }, () => resolve(new Conn(s)));
      s.once('error', reject);
    });
  }
  send(...args: string[]): void {
    this.socket.write(`*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`);
  }
  reply(): Promise<string> {
    if (complete(this.buf)) {
      const out = this.buf;
      this.buf = '';
      return Promise.resolve(out);
    }
    return new Promise((r) => (this.waiting = r));
  }
  close(): void {
    this.socket.destroy();
  }
}

/** one whole reply: a simple line, or a bulk string / array of bulks (INFO, BLPOP, RPUSH) */
function complete(s: string): boolean {
  if (s.length === 0) return false;
  if (s[0] === '*') {
    const n = Number(s.slice(1, s.indexOf('\r\n')));
    return n <= 0 ? s.endsWith('\r\n') : (s.match(/\$\d+\r\n/g)?.length ?? 0) >= n && s.endsWith('\r\n');
  }
  if (s[0] === '$') {
    const eol = s.indexOf('\r\n');
    return eol > 0 && s.length >= eol + 2 + Number(s.slice(1, eol)) + 2;
  }
  return s.endsWith('\r\n');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function measure(name: string, blockPort: number, pushPort: number): Promise<void> {
  const [waiter, pusher, ctl] = await Promise.all([Conn.open(blockPort), Conn.open(pushPort), Conn.open(blockPort)]);
  const h = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 10_000_000, numberOfSignificantValueDigits: 3 });
  const key = `wakeup:${process.pid}`;
  const blockedNow = async () => {
    ctl.send('INFO', 'clients');
    return Number(/blocked_clients:(\d+)/.exec(await ctl.reply())?.[1] ?? -1);
  };
  // other clients may be blocked on the server already: wait for one more than them
  const others = await blockedNow();
  for (let i = 0; i < rounds; i++) {
    waiter.send('BLPOP', key, '0');
    const served = waiter.reply();
    while (await blockedNow() <= others) await sleep(1);
    await sleep(20);
    const t0 = process.hrtime.bigint();
    pusher.send('RPUSH', key, 'x');
    await served;
    if (i >= 10) h.recordValue(Number(process.hrtime.bigint() - t0) / 1000); // 10 warm-up rounds
    await pusher.reply();
  }
  const p = (q: number) => Math.round(h.getValueAtPercentile(q));
  console.log(`${name.padEnd(8)} ${String(h.totalCount).padStart(6)} ${String(p(50)).padStart(8)} ${String(p(99)).padStart(8)} ` +
    `${String(p(99.9)).padStart(9)} ${String(Math.round(h.maxValue)).padStart(8)}  µs`);
  for (const c of [waiter, pusher, ctl]) c.close();
}

async function main(): Promise<void> {
  console.log('target   samples   p50 µs   p99 µs  p99.9 µs   max µs');
  const redis = arg('redis');
  const a = arg('postresp-a');
  const b = arg('postresp-b');
  if (redis) await measure('redis', Number(redis), Number(redis));
  if (a) await measure('same', Number(a), Number(a));
  if (a && b) await measure('across', Number(a), Number(b));
}

void main();
