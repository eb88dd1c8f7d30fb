/**
 * AUTH [username] password — the default user's password is --requirepass.
 * https://redis.io/commands/auth/
 */
import { Err } from '../../resp-errors';
import { kOk } from '../../shared-replies';
import type { Session } from '../../session';
import { defineCommand } from '../define';

/** Checks user/password against requirepass; returns undefined when accepted. */
export function checkPassword(session: Session, user: string, pass: Buffer) {
  const required = session.server.config.str('requirepass');
  if (user === 'default' && (required === '' || Buffer.from(required).equals(pass))) return undefined;
  return Err.wrongPass;
}

export const auth = defineCommand({
  name: 'auth', arity: -2, flags: ['noscript', 'loading', 'stale', 'fast', 'no_auth', 'sentinel', 'allow_busy'],
  acl: ['fast', 'connection'], group: 'connection', summary: 'Authenticates the connection.',
  run(session, argv) {
    if (argv.length > 3) return Err.syntax;
    if (argv.length === 2 && session.server.config.str('requirepass') === '') return Err.noPasswordSet;
    const user = argv.length === 3 ? argv[1].toString() : 'default';
    const err = checkPassword(session, user, argv[argv.length - 1]);
    if (err) return err;
    session.authenticated = true;
    return kOk;
  },
});
