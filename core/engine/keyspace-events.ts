/**
 * Keyspace notifications (notify-keyspace-events): a listener on the committed-write hook that
 * publishes each event, as Redis's notifyKeyspaceEvent does, on the message bus:
 *
 *   K: __keyspace@<db>__:<key>    message = the event name
 *   E: __keyevent@<db>__:<event>  message = the key
 *
 * when the event's class is on (kEventClass: Redis 7.0's class of each event name). The bus takes
 * it to subscribers on every worker and instance, and nowhere when nobody listens. Off (no K or E,
 * or no class) the hook has no listener and writes pay nothing.
 *
 * Who publishes: the worker whose client wrote, once the write committed; `expired` comes from
 * the primary's sweeper to every listening worker, so only worker 0 publishes it. Reports marked
 * maybe (docs/write-hook.md) are not published: a notification must not announce what did not
 * happen. FLUSHDB/FLUSHALL/SWAPDB (key null) fire nothing, as in Redis.
 */
import type { MessageBus } from '../bus/bus';
import { kNotify } from '../config/notify-flags';
import type { WriteHook } from './write-hook';

const g = kNotify.generic;
const str = kNotify.string;
const l = kNotify.list;
const s = kNotify.set;
const h = kNotify.hash;
const z = kNotify.zset;
const t = kNotify.stream;

/** Redis 7.0's class of each event the write hook reports (t.c files' notifyKeyspaceEvent calls). */
export const kEventClass: ReadonlyMap<string, number> = new Map([
  ['del', g], ['expire', g], ['persist', g], ['rename_from', g], ['rename_to', g], ['copy_to', g],
  ['move_from', g], ['move_to', g], ['restore', g],
  ['set', str], ['setrange', str], ['incrby', str], ['incrbyfloat', str], ['append', str], ['setbit', str], ['pfadd', str],
  ['lpush', l], ['rpush', l], ['lpop', l], ['rpop', l], ['linsert', l], ['lset', l], ['lrem', l], ['ltrim', l],
  ['sortstore', l],
  ['sadd', s], ['srem', s], ['spop', s], ['sinterstore', s], ['sunionstore', s], ['sdiffstore', s],
  ['hset', h], ['hdel', h], ['hincrby', h], ['hincrbyfloat', h],
  ['zadd', z], ['zincr', z], ['zrem', z], ['zremrangebyrank', z], ['zremrangebyscore', z], ['zremrangebylex', z],
  ['zunionstore', z], ['zinterstore', z], ['zdiffstore', z], ['zrangestore', z], ['zpopmin', z], ['zpopmax', z],
  ['georadiusstore', z], ['geosearchstore', z],
  ['xadd', t], ['xtrim', t], ['xdel', t], ['xsetid', t], ['xgroup-create', t], ['xgroup-createconsumer', t],
  ['xgroup-delconsumer', t], ['xgroup-destroy', t], ['xgroup-setid', t],
  ['expired', kNotify.expired], ['evicted', kNotify.evicted], ['new', kNotify.new], ['keymiss', kNotify.keyMiss],
]);

export class KeyspaceNotifier {
  private flags = 0;
  private unlisten: (() => void) | undefined = undefined;
  /** `__keyspace@<db>__:` and `__keyevent@<db>__:<event>` by db (and event), made once */
  private readonly spacePrefix = new Map<number, Buffer>();
  private readonly eventChannel = new Map<string, Buffer>();
  private readonly eventName = new Map<string, Buffer>();

  constructor(private readonly hook: WriteHook, private readonly bus: MessageBus, private readonly workerIndex: number) {}

  /** notify-keyspace-events changed (config/notify-flags.ts flags). */
  configure(flags: number): void {
    this.flags = flags;
    const on = (flags & (kNotify.keyspace | kNotify.keyevent)) !== 0 && (flags & ~(kNotify.keyspace | kNotify.keyevent)) !== 0;
    // new, keymiss and lazy expired need each keyed command's keys probed (key-presence.ts)
    this.hook.presence = on && (flags & (kNotify.new | kNotify.keyMiss | kNotify.expired)) !== 0;
    if (on && this.unlisten === undefined) this.unlisten = this.hook.listen({ committed: this.onEvent });
    else if (!on && this.unlisten !== undefined) {
      this.unlisten();
      this.unlisten = undefined;
    }
  }

  private readonly onEvent = (db: number, event: string, key: Buffer | null, maybe: boolean): void => {
    if (key === null || maybe) return;
    const cls = kEventClass.get(event);
    if (cls === undefined || (this.flags & cls) === 0) return;
    // the sweeper's keys reach every listening worker: worker 0 publishes them; a lazy expiry, its finder
    if (cls === kNotify.expired && this.workerIndex !== 0 && this.hook.sweeping) return;
    this.publish(db, event, key);
  };

  private publish(db: number, event: string, key: Buffer): void {
    let name = this.eventName.get(event);
    if (name === undefined) this.eventName.set(event, name = Buffer.from(event));
    if (this.flags & kNotify.keyspace) {
      let prefix = this.spacePrefix.get(db);
      if (prefix === undefined) this.spacePrefix.set(db, prefix = Buffer.from(`__keyspace@${db}__:`));
      this.bus.publish(Buffer.concat([prefix, key]), name);
    }
    if (this.flags & kNotify.keyevent) {
      const k = `${db}:${event}`;
      let channel = this.eventChannel.get(k);
      if (channel === undefined) this.eventChannel.set(k, channel = Buffer.from(`__keyevent@${db}__:${event}`));
      this.bus.publish(channel, key);
    }
  }
}
