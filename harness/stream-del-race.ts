// `node dist/harness/stream-del-race.js -p <port> [--tries 100] [--wait]`: the race of Redis 7.0's
// suite test "Blocking XREADGROUP: key deleted" (stream-cgroups.tcl), measured. One connection
// sends XREADGROUP … BLOCK 0 STREAMS k >, a second sends DEL k right after it without waiting
// for the block (the suite's deferring client); the reader's answer is counted: UNBLOCKED (the
// DEL came after the block) or NOGROUP "No such key" (the DEL came first). With --wait the DEL
// waits until INFO reports the reader blocked: then every answer must be UNBLOCKED.
// docs/streams.md "XREADGROUP BLOCK and a DEL sent right after it".

import { connect, type Socket } from 'node:net';
import { encodeCommand } from './encode';
import { decode, RespErrorValue, type RespValue } from './resp-client';

class Conn {
  private buf = Buffer.alloc(0);
  private waiting: ((v: RespValue) => void)[] = [];
  constructor(readonly sock: Socket) {
    sock.setNoDelay(true);
    sock.on('data', (d) => {
      this.buf = Buffer.concat([this.buf, d]);
      for (;;) {
        const r = decode(this.buf, 0);
        if (r === null) break;
        this.buf = this.buf.subarray(r.end);
        this.waiting.shift()?.(r.value);
      }
    });
  }
  static open(port: number): Promise<Conn> {
    return new Promise((resolve, reject) => {
      const s = connect(port, '127.0.0.1', () => resolve(new Conn(s)));
      s.once('error', reject);
    });
  }
  send(...args: string[]): Promise<RespValue> {
    const p = new Promise<RespValue>((r) => this.waiting.push(r));
    this.sock.write(encodeCommand(args));
    return p;
  }
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const port = Number(argv[argv.indexOf('-p') + 1]);
  const tries = argv.includes('--tries') ? Number(argv[argv.indexOf('--tries') + 1]) : 100;
  const wait = argv.includes('--wait');
  // two connections opened one after the other: PostRESP deals them to different workers
  const [reader, writer, ctl] = [await Conn.open(port), await Conn.open(port), await Conn.open(port)];
  const seen = new Map<string, number>();
  for (let i = 0; i < tries; i++) {
    const k = `race:${process.pid}:${i}`;
    await writer.send('XADD', k, '666', 'f', 'v');
    await writer.send('XGROUP', 'CREATE', k, 'g', '$');
    const answer = reader.send('XREADGROUP', 'GROUP', 'g', 'Alice', 'BLOCK', '0', 'STREAMS', k, '>');
    if (wait) {
      while (!String(await ctl.send('INFO', 'clients')).includes('blocked_clients:1\r\n')) await new Promise((r) => setTimeout(r, 1));
    }
    await writer.send('DEL', k);
    const v = await answer;
    const text = v instanceof RespErrorValue ? v.message.split(' ').slice(0, 4).join(' ') : JSON.stringify(v);
    seen.set(text, (seen.get(text) ?? 0) + 1);
  }
  console.log(JSON.stringify(Object.fromEntries(seen)));
  for (const c of [reader, writer, ctl]) c.sock.destroy();
}

main().catch((e) => { console.error(e); process.exit(1); });
