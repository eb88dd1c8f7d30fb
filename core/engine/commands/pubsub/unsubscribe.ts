/**
 * UNSUBSCRIBE [channel …] · PUNSUBSCRIBE [pattern …] · SUNSUBSCRIBE [shardchannel …]
 * One frame per name (held or not) with the count after it; no name: every one held, or one
 * frame with a null name when none is. The reply waits until no worker or instance counts the
 * names here any more (PUBLISH's count right after it is exact).
 * https://redis.io/commands/unsubscribe/
 */
import type { InterestKind } from '../../../bus/interest';
import { Pushes, RespError, RespPush } from '../../reply';
import { defineCommand } from '../define';
import { kAllKeys, kNoKeys, type CommandSpec } from '../spec';

/** a session without a connection (a script's) holds no subscriptions */
export const noSubscriptions = new RespError('ERR pub/sub is not available in this context');

function unsubscribeCommand(kind: InterestKind, name: string, summary: string, since: string): CommandSpec {
  const word = Buffer.from(name);
  return defineCommand({
    name, arity: -1, flags: ['pubsub', 'noscript', 'loading', 'stale'], acl: ['pubsub', 'slow'],
    keys: kind === 's' ? kAllKeys : kNoKeys, group: 'pubsub', since, summary,
    complexity: 'O(N) where N is the number of clients already subscribed to a channel.',
    run(s, argv) {
      const subs = s.subscriptions;
      if (subs === undefined) return noSubscriptions;
      const names = argv.length > 1 ? argv.slice(1) : subs.names(kind);
      if (names.length === 0) return new Pushes([new RespPush([word, null, subs.countFor(kind)])]);
      const frames: RespPush[] = [];
      const waits: Promise<void>[] = [];
      for (const n of names) {
        const w = subs.remove(kind, n);
        if (w !== undefined) waits.push(w);
        frames.push(new RespPush([word, n, subs.countFor(kind)]));
      }
      // replied once no PUBLISH anywhere counts this client any more, as Redis's reply means
      const reply = new Pushes(frames);
      return waits.length === 0 ? reply : Promise.all(waits).then(() => reply);
    },
  });
}

export const unsubscribe = unsubscribeCommand('c', 'unsubscribe', 'Stop listening for messages posted to the given channels', '2.0.0');
export const punsubscribe = unsubscribeCommand('p', 'punsubscribe', 'Stop listening for messages posted to channels matching the given patterns', '2.0.0');
export const sunsubscribe = unsubscribeCommand('s', 'sunsubscribe', 'Stop listening for messages posted to the given shard channels', '7.0.0');
