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
    run: (s, argv) => s.server.bus.publishCounted(argv[1], argv[2], shard),
  });
}

export const publish = publishCommand('publish', false, 'Post a message to a channel', '2.0.0');
export const spublish = publishCommand('spublish', true, 'Post a message to a shard channel', '7.0.0');
