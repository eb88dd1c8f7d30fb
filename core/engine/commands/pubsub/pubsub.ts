/**
 * PUBSUB CHANNELS [pattern] | NUMSUB [channel …] | NUMPAT | SHARDCHANNELS [pattern] |
 * SHARDNUMSUB [shardchannel …] | HELP — what this instance's subscribers hold (every worker; other
 * instances' subscribers are theirs, as each Redis Cluster node answers for its own).
 * https://redis.io/commands/pubsub/
 */
import { globMatch } from '../../glob';
import { RespError, Simple, type Reply } from '../../reply';
import { defineCommand } from '../define';
import type { CommandSpec } from '../spec';

const flags = ['pubsub', 'loading', 'stale'] as const;
const acl = ['pubsub', 'slow'];

/** Redis's addReplySubcommandSyntaxError for CHANNELS a b: the subcommand as the client typed it */
function syntax(argv: Buffer[]): RespError {
  return new RespError(`ERR unknown subcommand or wrong number of arguments for '${argv[1].toString('latin1').slice(0, 128)}'. Try PUBSUB HELP.`);
}

function channels(name: string, kind: 'c' | 's', summary: string, since: string): CommandSpec {
  return defineCommand({
    name, arity: -2, flags, acl, group: 'pubsub', since, summary,
    run(s, argv) {
      if (argv.length > 3) return syntax(argv);
      const all = s.server.bus.channelNames(kind);
      return argv.length === 3 ? all.filter((c) => globMatch(argv[2], c)) : all;
    },
  });
}

function numsub(name: string, kind: 'c' | 's', summary: string, since: string): CommandSpec {
  return defineCommand({
    name, arity: -2, flags, acl, group: 'pubsub', since, summary,
    run(s, argv) {
      const out: Reply[] = [];
      for (let i = 2; i < argv.length; i++) out.push(argv[i], s.server.bus.subscribers(kind, argv[i]));
      return out;
    },
  });
}

const numpat = defineCommand({
  name: 'pubsub|numpat', arity: 2, flags, acl, group: 'pubsub', since: '2.8.0', summary: 'Get the count of unique patterns pattern subscriptions',
  run: (s) => s.server.bus.patternCount(),
});

const kHelp = [
  'PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:',
  'CHANNELS [<pattern>]',
  "    Return the currently active channels matching a <pattern> (default: '*').",
  'NUMPAT',
  '    Return number of subscriptions to patterns.',
  'NUMSUB [<channel> ...]',
  '    Return the number of subscribers for the specified channels, excluding',
  '    pattern subscriptions(default: no channels).',
  'SHARDCHANNELS [<pattern>]',
  "    Return the currently active shard level channels matching a <pattern> (default: '*').",
  'SHARDNUMSUB [<shardchannel> ...]',
  '    Return the number of subscribers for the specified shard level channel(s)',
  'HELP',
  '    Prints this help.',
].map((l) => new Simple(l));

export const pubsub = defineCommand({
  name: 'pubsub', arity: -2, group: 'pubsub', since: '2.8.0', acl: ['slow'], summary: 'A container for Pub/Sub commands',
  subcommands: [
    channels('pubsub|channels', 'c', 'List active channels', '2.8.0'),
    numsub('pubsub|numsub', 'c', 'Get the count of subscribers for channels', '2.8.0'),
    numpat,
    channels('pubsub|shardchannels', 's', 'List active shard channels', '7.0.0'),
    numsub('pubsub|shardnumsub', 's', 'Get the count of subscribers for shard channels', '7.0.0'),
    defineCommand({
      name: 'pubsub|help', arity: 2, flags: ['loading', 'stale'], acl: ['slow'], group: 'pubsub', since: '6.2.0',
      summary: 'Show helpful text about the different subcommands', run: () => kHelp,
    }),
  ],
  run: () => null,
});
