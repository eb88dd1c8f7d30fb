/**
 * A worker's side of the blocking commands (ServerContext.blocking): blocked calls wait on keys
 * through the message bus, and committed writes wake them through the write hook.
 *
 *   write commits here ─▶ hook (only while a client waits on a key anywhere) ─▶ bus.wakeServed(db, key)
 *        ─▶ this worker's waiters, other workers' (BroadcastChannel), other instances' (NOTIFY)
 *   the writer's reply waits (hook.holdReply) until the woken clients tried again, and its
 *   later commands wait for that reply when a key it writes is waited on (hook.holdsLater)
 *
 * The hook listener is registered only while the bus says some client of some worker or
 * instance waits on a key: with nobody blocked a write pays nothing (the hook stays inactive).
 */
import type { KeyWaiter, MessageBus } from '../../../bus/bus';
import type { WriteHook } from '../../write-hook';
import type { BlockingHost } from './blocked-call';
import type { Session } from '../../session';
import type { CommandSpec } from '../spec';
import { mayWake, type Waited } from './push-gate';

/**
 * Events that may make a key hold a list, a sorted set or new stream entries (Redis calls
 * signalKeyAsReady on every key creation; the woken call looks at the type itself), and those
 * that remove or overwrite a key or a stream's group: Redis 7.0 answers a blocked XREADGROUP then
 * (UNBLOCKED / NOGROUP, stream/xread.ts); a woken pop or XREAD finds nothing and waits again.
 * XGROUP SETID wakes nobody in 7.0.
 */
const kWakeEvents: ReadonlySet<string> = new Set([
  'lpush', 'rpush', 'linsert', 'zadd', 'zincr', 'zunionstore', 'zinterstore', 'zdiffstore', 'zrangestore',
  'rename_to', 'move_to', 'copy_to', 'restore', 'sortstore', 'xadd',
  'del', 'expired', 'evicted', 'set', 'rename_from', 'move_from', 'xgroup-destroy',
]);

export class BlockingWaits implements BlockingHost {
  /** calls blocked in this worker (INFO blocked_clients) */
  blocked = 0;
  private unlisten: (() => void) | undefined = undefined;

  constructor(private readonly bus: MessageBus, private readonly hook: WriteHook, private readonly onCount: (n: number) => void) {
    bus.onKeysWanted = (wanted) => {
      if (wanted && this.unlisten === undefined) {
        this.unlisten = hook.listen({ committed: this.committed });
        hook.holdsLater = this.holdsLater;
      } else if (!wanted && this.unlisten !== undefined) {
        this.unlisten();
        this.unlisten = undefined;
        hook.holdsLater = undefined;
      }
    };
  }

  private readonly committed = (db: number, event: string, key: Buffer | null): void => {
    // SWAPDB: every waiter of both dbs looks again; FLUSHDB / FLUSHALL (db -1: every db) too,
    // for the XREADGROUPs whose key went
    if (key === null) {
      if (event === 'swapdb' || event === 'flushdb' || event === 'flushall') this.hold(this.bus.wakeDb(db));
    } else if (kWakeEvents.has(event)) {
      this.hold(this.bus.wakeServed(db, key));
    }
  };

  /** the writer's reply leaves once the clients its write woke were served (as Redis serves them
   * before it answers anyone); the sweeper (writer 0) holds nothing */
  private hold(served: Promise<unknown> | undefined): void {
    if (served === undefined) return;
    this.hook.holdReply(this.hook.writer, served);
    this.caught?.push(served);
  }

  private readonly waited: Waited = {
    key: (db, key) => this.bus.waited(db, key),
    db: (db) => this.bus.waitedDb(db),
  };

  /** a write to a key somebody blocks on holds its client's later commands (push-gate.ts) */
  private readonly holdsLater = (s: Session, db: number, spec: CommandSpec, argv: Buffer[]): boolean =>
    mayWake(this.waited, s, db, spec, argv);

  /** the wake-ups' promises while woken() runs its function */
  private caught: PromiseLike<unknown>[] | undefined = undefined;

  woken(fn: () => void): PromiseLike<unknown>[] {
    const outer = this.caught;
    const mine: PromiseLike<unknown>[] = [];
    this.caught = mine;
    try {
      fn();
    } finally {
      this.caught = outer;
    }
    return mine;
  }

  waitKey(db: number, key: Buffer, waiter: KeyWaiter): Promise<void> {
    return this.bus.waitKey(db, key, waiter);
  }

  unwaitKey(db: number, key: Buffer, waiter: KeyWaiter): void {
    this.bus.unwaitKey(db, key, waiter);
  }

  wake(db: number, key: Buffer): Promise<unknown> | undefined {
    return this.bus.wakeServed(db, key);
  }


  countBlocked(delta: number): void {
    this.blocked += delta;
    this.onCount(this.blocked);
  }
}
