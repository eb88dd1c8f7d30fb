/**
 * `--bind` as Redis reads it: space-separated addresses; `*` is every IPv4 address and `::*` every
 * IPv6 address (redis.conf's default is `* -::*` in 7.0); a leading `-` makes an address optional,
 * skipped with a warning when the host does not have it (EADDRNOTAVAIL, or no IPv6 at all).
 *
 * Redis's IPv6 listeners are always IPV6_V6ONLY. Node's `::` listener also takes IPv4 clients
 * unless told otherwise, so next to an IPv4 address on the same port it fails with EADDRINUSE:
 * `::` listens IPv6-only when the list holds an IPv4 address, and alone keeps Node's dual stack
 * (127.0.0.1 clients still served, as they were before `*` was understood).
 */
import net from 'node:net';

export interface BindAddress {
  /** as written, for messages */
  text: string;
  host: string;
  optional: boolean;
  ipv6Only: boolean;
}

export function parseBind(text: string): BindAddress[] {
  const words = text.split(/\s+/).filter(Boolean);
  const hosts = words.map((w) => {
    const optional = w.startsWith('-');
    const bare = optional ? w.slice(1) : w;
    return { text: w, optional, host: bare === '*' ? '0.0.0.0' : bare === '::*' ? '::' : bare };
  });
  const anyV4 = hosts.some((h) => net.isIPv4(h.host));
  return hosts.map((h) => ({ ...h, ipv6Only: anyV4 && net.isIPv6(h.host) }));
}

/** errors of an optional address that mean "this host does not have it" */
export function isUnavailable(code: string | undefined): boolean {
  return code === 'EADDRNOTAVAIL' || code === 'EAFNOSUPPORT';
}
