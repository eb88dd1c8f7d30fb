/**
 * A reply that a Postgres lane fills in later. The GET/SET path made a Promise per command plus
 * its executor, resolve functions, a `.then` with two closures and a microtask hop to the reply
 * slot: ~8% of a worker's CPU under `-P 16` GET in perf. A PendingReply is one object whose
 * `settle` the lane calls, and it calls the client's listener at once.
 *
 * It is also a thenable, so code that awaits a store call (collection commands, WATCH, EXEC's
 * Promise.all) keeps working; a Promise is made only when somebody calls then().
 */
import type { Reply } from './reply';

/**
 * What a write's statement returned beside its reply that the reply does not show (the key was
 * emptied, which keys existed…): the command's events function reads it (write-hook.ts). A map
 * function returns Noted(reply, note); settle() keeps the note on the op and passes the reply on,
 * so nothing else ever sees a Noted.
 */
export type Outcome = number | readonly boolean[];

export class Noted {
  constructor(readonly reply: Reply, readonly note: Outcome) {}
}

export class PendingReply implements PromiseLike<Reply> {
  value: Reply = null;
  done = false;
  /** Noted's note, for the write hook */
  note: Outcome | undefined = undefined;
  /** the client's reply slot; called once, synchronously, from settle() */
  listener: ((value: Reply) => void) | undefined = undefined;
  private promise: Promise<Reply> | undefined = undefined;
  private resolvePromise: ((value: Reply) => void) | undefined = undefined;

  /**
   * Called by the lane with the reply; later calls are ignored (an op is answered once). A method,
   * not a bound arrow: the ops (ops.ts) are PendingReplies, and a closure per command was one
   * more allocation on the GET/SET path.
   */
  settle(value: Reply | Noted): void {
    if (this.done) return;
    if (value instanceof Noted) {
      this.note = value.note;
      value = value.reply;
    }
    this.value = value;
    this.done = true;
    const listener = this.listener;
    if (listener !== undefined) {
      this.listener = undefined;
      try {
        listener(value);
      } catch (e) {
        // the lane is resolving a whole batch: surface the bug as an uncaught error (the worker
        // is replaced, as an unhandled rejection did) without leaving the batch half answered
        queueMicrotask(() => { throw e; });
      }
    }
    this.resolvePromise?.(value);
  }

  then<A = Reply, B = never>(onFulfilled?: ((value: Reply) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<A | B> {
    if (this.promise === undefined) {
      this.promise = this.done ? Promise.resolve(this.value) : new Promise<Reply>((r) => (this.resolvePromise = r));
    }
    return this.promise.then(onFulfilled, onRejected);
  }
}
