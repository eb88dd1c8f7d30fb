/**
 * One connection's CLIENT TRACKING state (Redis's CLIENT_TRACKING_* flags, its
 * client_tracking_redirection and client_tracking_prefixes), and what the tracker needs of a
 * connection to send it invalidations. docs/tracking.md.
 */
import type { Raw } from '../reply';
import type { CommandSpec } from '../commands/spec';

export class ClientTracking {
  bcast = false;
  optin = false;
  optout = false;
  noloop = false;
  /** CLIENT CACHING yes|no applies to the next command (kept through MULTI … EXEC) */
  caching = false;
  /** client id invalidations go to; 0: this connection */
  redirect = 0;
  /** the redirect target was on this worker when tracking began (else: another worker's) */
  redirectLocal = false;
  /** the other worker told us the redirect target closed */
  redirectGone = false;
  /** an invalidation found the redirect target gone (TRACKINGINFO's broken_redirect) */
  broken = false;
  /** the script call running (EVAL, FCALL…), tracked when it first reads */
  script: { spec: CommandSpec; argv: Buffer[] } | undefined = undefined;
  /** BCAST prefixes, latin1 (the empty prefix: every key) */
  readonly prefixes = new Set<string>();
}

/** What the tracker needs of a connection (workers/client.ts). */
export interface TrackedClient {
  readonly id: number;
  readonly proto: 2 | 3;
  tracking: ClientTracking | undefined;
  readonly subscriptions?: { readonly active: boolean };
  readonly isClosed: boolean;
  /** QUIT answered or the connection is ending: gone for a redirect, as Redis frees it after the reply */
  readonly closing: boolean;
  /** a push frame behind the replies still owed, as pub/sub messages go (false: it closed) */
  pushFrame(frame: Raw): boolean;
  /** writes what is encoded now, not at the end of the turn (an invalidation from another worker: tracker.ts deliver) */
  flush(): void;
}
