/**
 * Protected mode, as in Redis 7.0: while `protected-mode` is yes and the default user has no
 * password, a connection that is not local gets DENIED and is closed at once. The primary judges
 * each accepted connection (after maxclients, like Redis) and counts it in rejected_connections.
 *
 * Redis 7.0 does not look at `bind` (6.2 did: "no bind address was specified"). Checked against
 * redis-server 7.0.15 bound to 127.0.0.1 only: a client connecting from 127.0.0.2 gets DENIED,
 * and gets NOAUTH instead once a password is set. Local means the Unix socket or a peer address
 * of exactly 127.0.0.1 or ::1 (Redis 7.0's strcmp; 7.2 widened it to all of 127.0.0.0/8). Node's
 * dual-stack listeners on `::` report IPv4 peers as ::ffff:a.b.c.d, which Redis, listening with
 * IPV6_V6ONLY, never sees: those are judged by their IPv4 address.
 */

export const kProtectedModeDenied = '-DENIED PostRESP is running in protected mode because protected mode is enabled ' +
  'and no password is set for the default user. In this mode connections are only accepted from the loopback ' +
  'interface. If you want to connect from external computers to PostRESP you may adopt one of the following ' +
  "solutions: 1) Just disable protected mode sending the command 'CONFIG SET protected-mode no' from the loopback " +
  'interface by connecting to PostRESP from the same host the server is running, however MAKE SURE PostRESP is not ' +
  'publicly accessible from internet if you do so. 2) Alternatively you can just disable the protected mode by ' +
  "setting 'protected-mode no' in the PostRESP configuration file or POSTRESP_PROTECTED_MODE=no, and then restarting " +
  "the server. 3) If you started the server manually just for testing, restart it with the '--protected-mode no' " +
  "option. 4) Set up an authentication password for the default user ('--requirepass <password>', or " +
  "'CONFIG SET requirepass <password>' from the loopback interface). NOTE: You only need to do one of the above " +
  'things in order for the server to start accepting connections from the outside. ' +
  "('--bind' only chooses the addresses PostRESP listens on: it does not lift protected mode.)\r\n";

const kMappedV4 = '::ffff:';

/** Redis 7.0's islocalClient(): the Unix socket, or a peer at exactly 127.0.0.1 or ::1 (undefined: unknown, not local). */
export function isLocalPeer(unix: boolean, address: string | undefined): boolean {
  if (unix) return true;
  if (address === undefined) return false;
  const v4 = address.startsWith(kMappedV4) ? address.slice(kMappedV4.length) : address;
  return v4 === '127.0.0.1' || address === '::1';
}

export interface ProtectedModeInput {
  protectedMode: boolean;
  /** requirepass: empty = the default user has no password */
  requirepass: string;
  unix: boolean;
  /** the peer's address as net.Socket reports it */
  address: string | undefined;
}

/** true: answer kProtectedModeDenied and close. */
export function protectedModeDenies(c: ProtectedModeInput): boolean {
  return c.protectedMode && c.requirepass === '' && !isLocalPeer(c.unix, c.address);
}
