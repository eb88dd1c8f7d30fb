/**
 * EVAL/FCALL calls that wait answer BUSY (Redis's text) while a call of their worker runs its Lua
 * code past busy-reply-threshold (or every Lua thread of the process is taken and one does), as
 * Redis answers BUSY to what arrives during a timed-out script. Before, runaway scripts (`while
 * true do end`) holding every script connection made each later call wait, with no reply, until a
 * KILL. Two waits are cut short:
 *
 *   queue (every connection held) ──▶ [batch: call 1 running │ call 2 │ call 3 …] ──▶ COMMIT
 *    └ waiting(): BUSY                          └ behind(): BUSY until its Lua code starts
 *
 * Asked when a call has to wait, then every 100 ms while calls wait, so a wait ends by the
 * threshold + ~100 ms. A call refused inside its batch still goes through the transaction with a
 * body that does nothing (its key locks and EVAL body were already sent with the batch's first
 * statement). Requests without a `busy` check (not EVAL/FCALL) keep waiting. Not reached: a call
 * alone waiting for a row lock held by a runaway (it waits for the KILL, as before).
 *
 * Cost: nothing while no call waits; while some do, one addon call (a walk of ≤ 8 running calls
 * under the pool's mutex) per wait that starts and per 100 ms.
 */
import type { QueuedCall } from './script-batch';

const kCheckMs = 100;

export class BusyRefusal {
  private timer: NodeJS.Timeout | undefined;
  /** calls of running batches whose Lua code has not started */
  private readonly waiters = new Set<QueuedCall>();

  /** queue: the pool's waiting calls (changed in place); blocked: no connection can take one now */
  constructor(private readonly queue: QueuedCall[], private readonly blocked: () => boolean) {}

  /** Calls wait in the queue: refuse them now if busy, else check again in 100 ms (once a check
   * is armed, a new waiter waits for it). */
  waiting(): void {
    if (this.timer === undefined) this.check();
  }

  /** A batch's calls after the first wait behind it until each one's body starts; call the
   * result when the batch is over. */
  behind(calls: QueuedCall[]): () => void {
    for (let i = 1; i < calls.length; i++) {
      const c = calls[i];
      const body = c.body;
      c.body = (run) => {
        this.waiters.delete(c);
        return body(run);
      };
      this.waiters.add(c);
    }
    if (this.timer === undefined) this.timer = setTimeout(this.check, kCheckMs).unref();
    return () => {
      for (const c of calls) this.waiters.delete(c);
    };
  }

  private readonly check = (): void => {
    this.timer = undefined;
    const q = this.queue;
    const queued = q.length > 0 && this.blocked();
    if (!queued && this.waiters.size === 0) return;
    let asker = queued ? q.find((c) => c.req.busy !== undefined) : undefined;
    if (asker === undefined) for (const c of this.waiters) if (c.req.busy !== undefined) { asker = c; break; }
    const busy = asker?.req.busy?.();
    if (busy !== undefined) {
      if (queued) {
        let kept = 0;
        for (const c of q) {
          if (c.req.busy === undefined) q[kept++] = c;
          else c.resolve(busy);
        }
        q.length = kept;
      }
      for (const c of this.waiters) {
        if (c.req.busy === undefined) continue;
        c.resolve(busy); // the batch's later resolve of this call is ignored
        c.body = () => Promise.resolve(busy);
        this.waiters.delete(c);
      }
    }
    if (q.length > 0 || this.waiters.size > 0) this.timer = setTimeout(this.check, kCheckMs).unref();
  };

  close(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
