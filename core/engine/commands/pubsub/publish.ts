/**
 * PUBLISH channel message · SPUBLISH shardchannel message — the receivers in this instance, as a
 * Redis Cluster node counts its own: subscribers on other PostRESP instances get the message too
 * but are not counted (the reply cannot wait for them; README, docs/messaging.md).
 * https://redis.io/commands/publish/
 */
import { defineCommand } from '../define';
import { kNoKeys, kOneKey, type CommandSpec } from '../spec';

function publishCommand(name: string, shard: boolean, summary: string, since: string): CommandSpec {
  return defineCommand({
    name, arity: 3, flags: ['pubsub', 'loading', 'stale', 'fast'], acl: ['pubsub', 'fast'],
    keys: shard ? kOneKey : kNoKeys, group: 'pubsub', since, summary,
    complexity: 'O(N+M) where N is the number of clients subscribed to the receiving channel and M is the total number of subscribed patterns (by any client).',
    run(s, argv) {
      // behind commands still in flight while their events are wanted (keyspace notifications,
      // tracking): published once they completed and the client's later commands wait, so a
      // subscriber sees the events and the message in command order, as from Redis
      if (s.server.writeHook.active) {
        const prior = s.priorSettled?.();
        if (prior !== undefined) {
          const published = prior.then(() => s.server.bus.publishCounted(argv[1], argv[2], shard));
          s.holdWhile?.(published);
          return published;
        }
      }
      return s.server.bus.publishCounted(argv[1], argv[2], shard);
    },
  });
}

export const publish = publishCommand('publish', false, 'Post a message to a channel', '2.0.0');
export const spublish = publishCommand('spublish', true, 'Post a message to a shard channel', '7.0.0');
