/**
 * Request/response over a MessagePort, both directions: CLIENT LIST/KILL and INFO gather from
 * every worker through the primary; SHUTDOWN travels the other way.
 */
import type { MessagePort } from 'node:worker_threads';
import type { RequestMessage, ResponseMessage } from './messages';

export type RpcHandler = (op: string, args: unknown) => unknown | Promise<unknown>;

export class Rpc {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();

  constructor(private readonly port: MessagePort | import('node:worker_threads').Worker, private readonly handler: RpcHandler) {}

  call<T>(op: string, args?: unknown): Promise<T> {
    const rid = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(rid, { resolve: resolve as (v: unknown) => void, reject });
      this.port.postMessage({ type: 'request', rid, op, args } satisfies RequestMessage);
    });
  }

  /** Feed a message; returns true when it was an RPC message. */
  handle(msg: { type: string }): boolean {
    if (msg.type === 'response') {
      const m = msg as ResponseMessage;
      const p = this.pending.get(m.rid);
      if (p) {
        this.pending.delete(m.rid);
        if (m.error !== undefined) p.reject(new Error(m.error));
        else p.resolve(m.result);
      }
      return true;
    }
    if (msg.type !== 'request') return false;
    const m = msg as RequestMessage;
    const reply = (r: ResponseMessage) => {
      try { this.port.postMessage(r); } catch { /* port closed: the peer is gone */ }
    };
    Promise.resolve()
      .then(() => this.handler(m.op, m.args))
      .then((result) => reply({ type: 'response', rid: m.rid, result }),
        (e: Error) => reply({ type: 'response', rid: m.rid, error: e.message }));
    return true;
  }

  /** The peer is gone: fail whatever waits for it. */
  failAll(reason: string): void {
    for (const p of this.pending.values()) p.reject(new Error(reason));
    this.pending.clear();
  }
}
