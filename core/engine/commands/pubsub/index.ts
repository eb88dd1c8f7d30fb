/** The pub/sub family: commands over the message bus (core/bus, docs/messaging.md). */
import type { CommandSpec } from '../spec';
import { publish, spublish } from './publish';
import { pubsub } from './pubsub';
import { psubscribe, ssubscribe, subscribe } from './subscribe';
import { punsubscribe, sunsubscribe, unsubscribe } from './unsubscribe';

export const kPubsubCommands: CommandSpec[] = [
  subscribe, psubscribe, ssubscribe, unsubscribe, punsubscribe, sunsubscribe, publish, spublish, pubsub,
];
