/**
 * CLIENT ID | SETNAME name | GETNAME | SETINFO LIB-NAME|LIB-VER value | INFO | LIST [TYPE t] [ID id…]
 * https://redis.io/commands/client-list/
 */
import { RespError, RespVerbatim } from '../../../reply';
import { Err } from '../../../resp-errors';
import { kOk } from '../../../shared-replies';
import { eqIgnoreCase, lower, parseInt53 } from '../../args';
import { defineCommand } from '../../define';
import { validName } from './names';

const kBadName = new RespError('ERR Client names cannot contain spaces, newlines or special characters.');
const acl = ['slow', 'connection'];
const group = 'connection';

export const clientId = defineCommand({
  name: 'client|id', arity: 2, flags: ['noscript', 'loading', 'stale'], acl, group, since: '5.0.0',
  summary: 'Returns the unique client ID of the connection.', run: (s) => s.id,
});

export const clientSetname = defineCommand({
  name: 'client|setname', arity: 3, flags: ['noscript', 'loading', 'stale'], acl, group, since: '2.6.9',
  summary: 'Sets the connection name.',
  run(s, argv) {
    const name = argv[2].toString();
    if (!validName(name)) return kBadName;
    s.name = name;
    return kOk;
  },
});

export const clientGetname = defineCommand({
  name: 'client|getname', arity: 2, flags: ['noscript', 'loading', 'stale'], acl, group, since: '2.6.9',
  summary: 'Returns the name of the connection.', run: (s) => (s.name === '' ? null : s.name),
});

export const clientSetinfo = defineCommand({
  name: 'client|setinfo', arity: 4, flags: ['noscript', 'loading', 'stale'], acl, group, since: '7.2.0',
  summary: 'Sets information specific to the client or connection.',
  run(s, argv) {
    const attr = lower(argv[2]);
    const value = argv[3].toString();
    if (attr !== 'lib-name' && attr !== 'lib-ver') return new RespError(`ERR Unrecognized option '${argv[2].toString()}'`);
    if (!validName(value)) {
      return new RespError(`ERR ${attr} cannot contain spaces, newlines or special characters.`);
    }
    if (attr === 'lib-name') s.libName = value;
    else s.libVer = value;
    return kOk;
  },
});

export const clientInfo = defineCommand({
  name: 'client|info', arity: 2, flags: ['noscript', 'loading', 'stale'], acl, group, since: '6.2.0',
  tips: ['nondeterministic_output'],
  summary: 'Returns information about the connection.',
  run: (s) => new RespVerbatim('txt', `${s.describe()}\n`),
});

export const clientList = defineCommand({
  name: 'client|list', arity: -2, flags: ['admin', 'noscript', 'loading', 'stale'], acl: ['admin', 'slow', 'dangerous', 'connection'],
  tips: ['nondeterministic_output'],
  group, since: '2.4.0', summary: 'Lists open connections.',
  async run(s, argv) {
    let type: string | undefined;
    let ids: number[] | undefined;
    if (argv.length === 4 && eqIgnoreCase(argv[2], 'type')) {
      type = lower(argv[3]);
      if (!['normal', 'master', 'replica', 'slave', 'pubsub'].includes(type)) {
        return new RespError(`ERR Unknown client type '${argv[3].toString()}'`);
      }
    } else if (argv.length >= 4 && eqIgnoreCase(argv[2], 'id')) {
      ids = [];
      for (let i = 3; i < argv.length; i++) {
        const id = parseInt53(argv[i]);
        if (id === undefined || id <= 0) return new RespError('ERR Invalid client ID');
        ids.push(id);
      }
    } else if (argv.length !== 2) {
      return Err.syntax;
    }
    const lines = await s.server.clientList({ type, id: ids });
    return new RespVerbatim('txt', lines.map((l) => `${l}\n`).join(''));
  },
});
