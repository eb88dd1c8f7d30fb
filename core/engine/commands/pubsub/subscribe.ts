/**
 * SUBSCRIBE channel [channel …] · PSUBSCRIBE pattern [pattern …] · SSUBSCRIBE shardchannel [shardchannel …]
 * One frame per name with the client's count after it; the reply waits until every worker and
 * every other instance delivers the name here, so a PUBLISH sent after the reply reaches it.
 * https://redis.io/commands/subscribe/
 */
import type { InterestKind } from '../../../bus/interest';
import { Pushes, RespPush, type Reply } from '../../reply';
import { defineCommand } from '../define';
import { kAllKeys, kNoKeys, type CommandSpec } from '../spec';
import { noSubscriptions } from './unsubscribe';

function subscribeCommand(kind: InterestKind, name: string, summary: string, since: string): CommandSpec {
  const word = Buffer.from(name);
  return defineCommand({
    name, arity: -2, flags: ['pubsub', 'noscript', 'loading', 'stale'], acl: ['pubsub', 'slow'],
    keys: kind === 's' ? kAllKeys : kNoKeys, group: 'pubsub', since, summary,
    complexity: 'O(N) where N is the number of channels to subscribe to.',
    run(s, argv): Reply | Promise<Reply> {
      const subs = s.subscriptions;
      if (subs === undefined) return noSubscriptions;
      const frames: RespPush[] = [];
      const waits: Promise<void>[] = [];
      for (let i = 1; i < argv.length; i++) {
        const w = subs.add(kind, argv[i]);
        if (w !== undefined) waits.push(w);
        frames.push(new RespPush([word, argv[i], subs.countFor(kind)]));
      }
      const reply = new Pushes(frames);
      return waits.length === 0 ? reply : Promise.all(waits).then(() => reply);
    },
  });
}

export const subscribe = subscribeCommand('c', 'subscribe', 'Listen for messages published to the given channels', '2.0.0');
export const psubscribe = subscribeCommand('p', 'psubscribe', 'Listen for messages published to channels matching the given patterns', '2.0.0');
export const ssubscribe = subscribeCommand('s', 'ssubscribe', 'Listen for messages published to the given shard channels', '7.0.0');
