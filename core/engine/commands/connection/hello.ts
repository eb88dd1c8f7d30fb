/**
 * HELLO [protover [AUTH username password] [SETNAME clientname]] — switches protocol and replies
 * with the server's handshake map.
 * https://redis.io/commands/hello/
 */
import { Err } from '../../resp-errors';
import { RespError, RespMap, type Reply } from '../../reply';
import { kRedisVersion } from '../../../version';
import { eqIgnoreCase, parseInt53 } from '../args';
import { defineCommand } from '../define';
import { checkPassword } from './auth';
import { validName } from './client/names';

export const hello = defineCommand({
  name: 'hello', arity: -1, flags: ['noscript', 'loading', 'stale', 'fast', 'no_auth', 'sentinel', 'allow_busy'],
  acl: ['fast', 'connection'], group: 'connection', since: '6.0.0', summary: 'Handshakes with the server.',
  run(session, argv): Reply {
    let proto = session.proto;
    if (argv.length >= 2) {
      const v = parseInt53(argv[1]);
      if (v === undefined) return new RespError('ERR Protocol version is not an integer or out of range');
      if (v !== 2 && v !== 3) return Err.noProto;
      proto = v;
    }
    let auth: [string, Buffer] | undefined;
    let name: string | undefined;
    for (let i = 2; i < argv.length; i++) {
      const more = argv.length - i - 1;
      if (eqIgnoreCase(argv[i], 'auth') && more >= 2) {
        auth = [argv[i + 1].toString('latin1'), argv[i + 2]];
        i += 2;
      } else if (eqIgnoreCase(argv[i], 'setname') && more >= 1) {
        name = argv[i + 1].toString();
        i += 1;
      } else {
        return new RespError(`ERR Syntax error in HELLO option '${argv[i].toString()}'`);
      }
    }
    if (auth) {
      const err = checkPassword(session, auth[0], auth[1]);
      if (err) return err;
      session.authenticated = true;
    }
    if (!session.authenticated) {
      return new RespError('NOAUTH HELLO must be called with the client already authenticated, ' +
        'otherwise the HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time');
    }
    if (name !== undefined) {
      if (!validName(name)) return new RespError('ERR Client names cannot contain spaces, newlines or special characters.');
      session.name = name;
    }
    session.proto = proto;
    return new RespMap([
      'server', 'redis', 'version', kRedisVersion, 'proto', proto, 'id', session.id,
      'mode', 'standalone', 'role', 'master', 'modules', [],
    ]);
  },
});
