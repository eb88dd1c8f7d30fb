/**
 * Every error a client can see, in Redis 7's words, pre-encoded once (Valkey's shared objects).
 * Handlers return these values; they never throw them.
 */
import { RespError } from './reply';

export const Err = {
  syntax: new RespError('ERR syntax error'),
  notInteger: new RespError('ERR value is not an integer or out of range'),
  notFloat: new RespError('ERR value is not a valid float'),
  overflow: new RespError('ERR increment or decrement would overflow'),
  wrongType: new RespError('WRONGTYPE Operation against a key holding the wrong kind of value'),
  dbIndex: new RespError('ERR DB index is out of range'),
  notInt32: new RespError('ERR value is out of range, value must between -2147483648 and 2147483647'),
  noAuth: new RespError('NOAUTH Authentication required.'),
  wrongPass: new RespError('WRONGPASS invalid username-password pair or user is disabled.'),
  noPasswordSet: new RespError(
    'ERR AUTH <password> called without any password configured for the default user. ' +
      'Are you sure your configuration is correct?',
  ),
  noProto: new RespError('NOPROTO unsupported protocol version'),
  noSuchClient: new RespError('ERR No such client'),
  noSuchUser: (name: string) => new RespError(`ERR No such user '${name}'`),
  /** a `no_multi` command (SHUTDOWN) between MULTI and EXEC; EXEC then answers EXECABORT */
  notInMulti: new RespError('ERR Command not allowed inside a transaction'),
  maxClients: new RespError('ERR max number of clients reached'),
  invalidExpire: (cmd: string) => new RespError(`ERR invalid expire time in '${cmd}' command`),
  debugNotAllowed: new RespError(
    'ERR DEBUG command not allowed. If the enable-debug-command option is set to "local", ' +
      'you can run it from a local connection, otherwise you need to set this option in the ' +
      'configuration file, and then restart the server.',
  ),
};

export function wrongArity(name: string): RespError {
  return new RespError(`ERR wrong number of arguments for '${name}' command`);
}

export function unknownSubcommand(sub: string, container: string): RespError {
  return new RespError(`ERR unknown subcommand '${clip(sub)}'. Try ${container.toUpperCase()} HELP.`);
}

/** Redis 7: the name and up to 128 bytes of quoted arguments, each followed by a space. */
export function unknownCommand(argv: Buffer[]): RespError {
  let args = '';
  for (let i = 1; i < argv.length && args.length < 128; i++) {
    const left = 128 - args.length;
    args += `'${cString(argv[i].toString('latin1', 0, Math.min(argv[i].length, left)))}' `;
  }
  return new RespError(
    `ERR unknown command '${clip(cString(argv[0].toString('latin1')))}', with args beginning with: ${args}`,
  );
}

/** Redis formats these with %s: an argument ends at its first NUL byte */
function cString(s: string): string {
  const nul = s.indexOf('\0');
  return nul < 0 ? s : s.slice(0, nul);
}

function clip(s: string): string {
  return s.length > 128 ? s.slice(0, 128) : s;
}
