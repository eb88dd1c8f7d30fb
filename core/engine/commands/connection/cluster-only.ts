/**
 * READONLY, READWRITE, ASKING — cluster replica and slot-migration commands; with cluster mode
 * off, as here, Redis 7.0 refuses them. They are in the table for the count of @connection that
 * ACL rule printing weighs (core/acl/describe.ts), which must equal Redis's.
 * https://redis.io/commands/readonly/
 */
import { RespError } from '../../reply';
import { defineCommand } from '../define';

const kNoCluster = new RespError('ERR This instance has cluster support disabled');

export const readonlyCommand = defineCommand({
  name: 'readonly', arity: 1, flags: ['loading', 'stale', 'fast'], acl: ['fast', 'connection'], group: 'cluster',
  since: '3.0.0', summary: 'Enables read queries for a connection to a Redis Cluster replica node.', run: () => kNoCluster,
});

export const readwrite = defineCommand({
  name: 'readwrite', arity: 1, flags: ['loading', 'stale', 'fast'], acl: ['fast', 'connection'], group: 'cluster',
  since: '3.0.0', summary: 'Enables read-write queries for a connection to a Redis Cluster replica node.', run: () => kNoCluster,
});

export const asking = defineCommand({
  name: 'asking', arity: 1, flags: ['fast'], acl: ['fast', 'connection'], group: 'cluster',
  since: '3.0.0', summary: 'Signals that a cluster client is following an -ASK redirect.', run: () => kNoCluster,
});
