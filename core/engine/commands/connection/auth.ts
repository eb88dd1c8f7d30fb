/**
 * AUTH [username] password — checks the pair against the ACL users (core/acl); the default
 * user's password is --requirepass or whatever ACL SETUSER default gave it.
 * https://redis.io/commands/auth/
 */
import { Err } from '../../resp-errors';
import { kOk } from '../../shared-replies';
import type { Session } from '../../session';
import { defineCommand } from '../define';

/** Redis's ACLAuthenticateUser: on success the session runs as the user; a failure is logged (ACL LOG). */
export function checkPassword(session: Session, user: string, pass: Buffer) {
  const u = session.server.acl.users.get(user);
  if (u !== undefined && u.accepts(pass)) {
    session.user = u;
    return undefined;
  }
  session.server.aclLog.add({
    reason: 'auth', context: session.multi !== undefined ? 'multi' : 'toplevel', object: 'AUTH', username: user, clientInfo: session.describe(),
  });
  return Err.wrongPass;
}

export const auth = defineCommand({
  name: 'auth', arity: -2, flags: ['noscript', 'loading', 'stale', 'fast', 'no_auth', 'sentinel', 'allow_busy'],
  acl: ['fast', 'connection'], group: 'connection', summary: 'Authenticates the connection.',
  run(session, argv) {
    if (argv.length > 3) return Err.syntax;
    if (argv.length === 2 && session.server.acl.defaultUser.nopass) return Err.noPasswordSet;
    const user = argv.length === 3 ? argv[1].toString('latin1') : 'default';
    const err = checkPassword(session, user, argv[argv.length - 1]);
    if (err) return err;
    session.authenticated = true;
    return kOk;
  },
});
