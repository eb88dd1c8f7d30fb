/**
 * A ScriptHost whose redis.call forwards argv to a real redis-server over a plain socket, so the
 * engine's conversions and error handling can be compared byte for byte with redis-server's own
 * EVAL on the same server. It does what the command layer must do for scripts: answer in the
 * script's RESP version and use the script-context texts for unknown commands and arity.
 */
import { FrameConn } from '../differential/resp-frames';
import { encode } from '../e2e/resp-client';
import { ScriptHost } from '../../core/engine/scripting/engine';
import { kScriptCallErrors } from '../../core/engine/scripting/errors';

const kUnknown = Buffer.from(`-ERR ${kScriptCallErrors.unknownCommand}\r\n`);
const kArity = Buffer.from(`-ERR ${kScriptCallErrors.arity}\r\n`);

export class RedisForwardHost implements ScriptHost {
  private chain: Promise<unknown> = Promise.resolve();
  calls = 0;
  logs: [number, string][] = [];
  private constructor(private readonly conns: Record<2 | 3, FrameConn>) {}

  static async connect(port: number): Promise<RedisForwardHost> {
    const c2 = await FrameConn.connect(port);
    const c3 = await FrameConn.connect(port);
    c3.write(encode('HELLO', '3'));
    await c3.read(1);
    return new RedisForwardHost({ 2: c2, 3: c3 });
  }

  call(argv: Buffer[], resp: 2 | 3): Promise<Buffer> {
    this.calls++;
    const next = this.chain.then(async () => {
      const conn = this.conns[resp];
      conn.write(encode(...argv));
      const r = await conn.read(1);
      const reply = r.frames[0] ?? Buffer.from('-ERR no reply from redis-server\r\n');
      const head = reply.subarray(0, 40).toString('latin1');
      if (head.startsWith('-ERR unknown command')) return kUnknown;
      if (head.startsWith('-ERR wrong number of arguments for')) return kArity;
      return reply;
    });
    this.chain = next.catch(() => undefined);
    return next;
  }

  log(level: number, message: Buffer): void {
    this.logs.push([level, message.toString()]);
  }

  close(): void {
    this.conns[2].close();
    this.conns[3].close();
  }
}
