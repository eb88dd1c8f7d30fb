/**
 * --cache shared, a worker's end (docs/cache.md "--cache shared"): every instance caches, and
 * what one writes reaches the others' version tables as slot hashes over the bus.
 *
 *   write's `after` point ─▶ its keys' 32-bit hashes (or "epoch"), queued for the turn
 *   end of the turn        ─▶ one message on a hidden shard channel, to other instances only
 *                             (core/bus/pg-link.ts: one NOTIFY a batch), when one listens
 *   worker 0 there         ─▶ bumps those slots (or the epoch) in its process's version table
 *
 * Hashes, not keys: 4 bytes a key on the wire, and a collision only costs a miss. A reader on
 * another instance may see a value older than a write acknowledged here by at most the
 * notification's delay; the primary's lease (core/primary/cache-lease.ts) turns its cache off
 * whenever it cannot vouch for that bound.
 */
import type { CommandSpec } from '../commands/spec';
import type { MessageBus, Subscriber } from '../../bus/bus';
import { interestKey } from '../../bus/interest';
import type { WriteListener } from '../write-hook';
import { touchWritten, type WrittenSink } from './invalidate';
import type { VersionTable } from './version-table';

/** the hidden shard channel the hashes travel on */
export const kSharedCacheChannel = Buffer.from('__postresp_cache__:invalidate');
const kInterest = interestKey('s', kSharedCacheChannel);
/** first byte of a message: 1 = every slot (the epoch), then hashes as uint32 LE */
const kEpochFlag = 1;
/** hashes a message at most: 4 KB, ~5.5 KB once base64'd into a notification (< 8000 bytes) */
const kMaxHashes = 1000;

export interface SharedCacheStats {
  /** hashes sent to other instances, and messages */
  sent: number;
  messages: number;
  /** hashes and epoch bumps received from other instances */
  received: number;
  epochs: number;
}

export class SharedInvalidations implements Subscriber, WrittenSink {
  readonly stats: SharedCacheStats = { sent: 0, messages: 0, received: 0, epochs: 0 };
  private hashes: number[] = [];
  private epoch = false;
  private flushQueued = false;

  constructor(private readonly table: VersionTable, private readonly bus: MessageBus) {}

  /** The write hook's listener: every write's keys, once its outcome is known, for the other instances. */
  listener(): WriteListener {
    return {
      after: (db: number, spec: CommandSpec, argv: Buffer[]) => {
        if (this.bus.wantsRemote(kInterest)) touchWritten(this, db, spec, argv);
      },
    };
  }

  private alive: NodeJS.Timeout | undefined;

  /**
   * Worker 0 of every shared instance listens (one bump a slot is enough for the process). Once
   * every other instance acknowledged the subscription it says so in the version table every
   * 100 ms: the primary's lease turns the cache on only while it hears that (a worker 0 that died
   * receives nothing until its successor subscribed again).
   */
  async subscribe(): Promise<void> {
    this.bus.hide(kInterest);
    await this.bus.subscribe('s', kSharedCacheChannel, this);
    this.table.markSharedAlive();
    this.alive = setInterval(() => this.table.markSharedAlive(), 100);
    this.alive.unref();
  }

  close(): void {
    clearInterval(this.alive);
  }

  bump(db: number, key: Buffer): void {
    this.hashes.push(this.table.hash(db, key));
    if (this.hashes.length >= kMaxHashes) this.flush();
    else this.queueFlush();
  }

  bumpEpoch(): void {
    this.epoch = true;
    this.queueFlush();
  }

  private queueFlush(): void {
    if (this.flushQueued) return;
    this.flushQueued = true;
    queueMicrotask(() => {
      this.flushQueued = false;
      this.flush();
    });
  }

  private flush(): void {
    if (this.hashes.length === 0 && !this.epoch) return;
    const n = this.hashes.length;
    const msg = Buffer.allocUnsafe(1 + 4 * n);
    msg[0] = this.epoch ? kEpochFlag : 0;
    for (let i = 0; i < n; i++) msg.writeUInt32LE(this.hashes[i], 1 + 4 * i);
    this.hashes.length = 0;
    this.epoch = false;
    this.stats.sent += n;
    this.stats.messages++;
    this.bus.publishRemote(kSharedCacheChannel, msg);
  }

  /** Another instance's writes: their slots (or the epoch) move here. */
  deliver(_kind: 'm' | 's', _channel: Buffer, message: Buffer): boolean {
    if (message.length === 0) return true;
    if (message[0] === kEpochFlag) {
      this.table.bumpEpoch();
      this.stats.epochs++;
    }
    for (let at = 1; at + 4 <= message.length; at += 4) this.table.bumpHash(message.readUInt32LE(at));
    this.stats.received += (message.length - 1) >> 2;
    return true;
  }
}
