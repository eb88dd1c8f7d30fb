/**
 * CLIENT <subcommand> — connection management.
 * https://redis.io/commands/client/
 */
import { defineCommand } from '../../define';
import type { CommandSpec } from '../../spec';
import { clientKill, clientNoEvict, clientNoTouch, clientReply } from './control';
import { clientGetname, clientId, clientInfo, clientList, clientSetinfo, clientSetname } from './identity';
import { helpReply } from '../../help';
import { clientUnblock } from './unblock';
import { clientCaching, clientGetredir, clientTracking, clientTrackinginfo } from './tracking';

const subcommands: CommandSpec[] = [
  clientId, clientSetname, clientGetname, clientSetinfo, clientInfo, clientList,
  clientKill, clientReply, clientNoEvict, clientNoTouch, clientUnblock,
  clientTracking, clientCaching, clientGetredir, clientTrackinginfo,
];

export const client = defineCommand({
  name: 'client', arity: -2, group: 'connection', summary: 'A container for client connection commands.',
  since: '2.4.0', acl: ['slow'],
  subcommands: [
    ...subcommands,
    defineCommand({
      name: 'client|help', arity: 2, flags: ['loading', 'stale'], acl: ['slow', 'connection'], group: 'connection',
      since: '5.0.0', summary: 'Returns helpful text about the different subcommands.',
      run: () => helpReply('CLIENT', subcommands),
    }),
  ],
  run: () => null,
});
