/**
 * CLUSTER <subcommand> — as a redis-server 7.0 started without cluster-enabled: every subcommand
 * answers `ERR This instance has cluster support disabled`. The subcommands are declared with
 * Redis's arity and flags all the same, so an unknown one, a wrong arity and a script calling
 * CLUSTER RESET (noscript) get Redis's own errors, and COMMAND INFO matches.
 * https://redis.io/commands/cluster/
 */
import { RespError } from '../../reply';
import { defineCommand } from '../define';
import type { CommandFlag } from '../spec';

const kDisabled = new RespError('ERR This instance has cluster support disabled');
const adm: CommandFlag[] = ['admin', 'stale', 'no_async_loading'];
const nondet = ['nondeterministic_output'];

// name, arity, flags, since, summary, tips (Redis 7.0.15's COMMAND INFO / DOCS)
const kSubcommands: [string, number, CommandFlag[], string, string, string[]?][] = [
  ['addslots', -3, adm, '3.0.0', 'Assign new hash slots to receiving node'],
  ['addslotsrange', -4, adm, '7.0.0', 'Assign new hash slots to receiving node'],
  ['bumpepoch', 2, adm, '3.0.0', 'Advance the cluster config epoch', nondet],
  ['count-failure-reports', 3, ['admin', 'stale'], '3.0.0', 'Return the number of failure reports active for a given node', nondet],
  ['countkeysinslot', 3, ['stale'], '3.0.0', 'Return the number of local keys in the specified hash slot'],
  ['delslots', -3, adm, '3.0.0', 'Set hash slots as unbound in receiving node'],
  ['delslotsrange', -4, adm, '7.0.0', 'Set hash slots as unbound in receiving node'],
  ['failover', -2, adm, '3.0.0', 'Forces a replica to perform a manual failover of its master.'],
  ['flushslots', 2, adm, '3.0.0', "Delete a node's own slots information"],
  ['forget', 3, adm, '3.0.0', 'Remove a node from the nodes table'],
  ['getkeysinslot', 4, ['stale'], '3.0.0', 'Return local key names in the specified hash slot', nondet],
  ['help', 2, ['loading', 'stale'], '5.0.0', 'Show helpful text about the different subcommands'],
  ['info', 2, ['stale'], '3.0.0', 'Provides info about Redis Cluster node state', nondet],
  ['keyslot', 3, ['stale'], '3.0.0', 'Returns the hash slot of the specified key'],
  ['links', 2, ['stale'], '7.0.0', 'Returns a list of all TCP links to and from peer nodes in cluster', nondet],
  ['meet', -4, adm, '3.0.0', 'Force a node cluster to handshake with another node'],
  ['myid', 2, ['stale'], '3.0.0', 'Return the node id'],
  ['nodes', 2, ['stale'], '3.0.0', 'Get Cluster config for the node', nondet],
  ['replicas', 3, ['admin', 'stale'], '5.0.0', 'List replica nodes of the specified master node', nondet],
  ['replicate', 3, adm, '3.0.0', 'Reconfigure a node as a replica of the specified master node'],
  ['reset', -2, ['admin', 'noscript', 'stale'], '3.0.0', 'Reset a Redis Cluster node'],
  ['saveconfig', 2, adm, '3.0.0', 'Forces the node to save cluster state on disk'],
  ['set-config-epoch', 3, adm, '3.0.0', 'Set the configuration epoch in a new node'],
  ['setslot', -4, adm, '3.0.0', 'Bind a hash slot to a specific node'],
  ['shards', 2, ['stale'], '7.0.0', 'Get array of cluster slots to node mappings', nondet],
  ['slaves', 3, ['admin', 'stale'], '3.0.0', 'List replica nodes of the specified master node', nondet],
  ['slots', 2, ['stale'], '3.0.0', 'Get array of Cluster slot to node mappings', nondet],
];

export const cluster = defineCommand({
  name: 'cluster', arity: -2, acl: ['slow'], group: 'cluster', since: '3.0.0', summary: 'A container for cluster commands',
  subcommands: kSubcommands.map(([name, arity, flags, since, summary, tips]) => defineCommand({
    name: `cluster|${name}`, arity, flags, group: 'cluster', since, summary, tips, run: () => kDisabled,
  })),
  run: () => null,
});
