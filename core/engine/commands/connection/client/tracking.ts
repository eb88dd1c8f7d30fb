/**
 * CLIENT TRACKING ON|OFF [REDIRECT id] [PREFIX p …] [BCAST] [OPTIN] [OPTOUT] [NOLOOP]
 * CLIENT CACHING YES|NO, CLIENT GETREDIR, CLIENT TRACKINGINFO — Redis 7.0's texts and checks,
 * in its order (networking.c clientCommand). The tracker: core/engine/tracking/tracker.ts.
 * https://redis.io/commands/client-tracking/
 */
import { RespError, RespMap, RespSet, type Reply } from '../../../reply';
import { Err } from '../../../resp-errors';
import { kOk } from '../../../shared-replies';
import type { Session } from '../../../session';
import { eqIgnoreCase, lower, parseI64 } from '../../args';
import { defineCommand } from '../../define';
import { ClientTracking, type TrackedClient } from '../../../tracking/client-tracking';

const acl = ['slow', 'connection'];
const flags = ['noscript', 'loading', 'stale'] as const;
const group = 'connection';
const kNoRedirect = new RespError('ERR The client ID you want redirect to does not exist');
const kOneRedirect = new RespError('ERR A client can only redirect to a single other client');

interface Options { redirect: number; bcast: boolean; optin: boolean; optout: boolean; noloop: boolean; prefixes: Buffer[] }

/** One prefix is a prefix of the other (Redis's stringCheckPrefix): BCAST prefixes of a client must not overlap. */
function overlaps(a: string, b: string): boolean {
  const n = Math.min(a.length, b.length);
  return a.slice(0, n) === b.slice(0, n);
}

function checkOn(s: Session, o: Options): RespError | undefined {
  const t = s.tracking;
  if (!o.bcast && o.prefixes.length > 0) return new RespError('ERR PREFIX option requires BCAST mode to be enabled');
  if (t !== undefined && t.bcast !== o.bcast) {
    return new RespError("ERR You can't switch BCAST mode on/off before disabling tracking for this client, and then re-enabling it with a different mode.");
  }
  if (o.bcast && (o.optin || o.optout)) return new RespError('ERR OPTIN and OPTOUT are not compatible with BCAST');
  if (o.optin && o.optout) return new RespError("ERR You can't specify both OPTIN mode and OPTOUT mode");
  if (t !== undefined && ((o.optin && t.optout) || (o.optout && t.optin))) {
    return new RespError("ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and then re-enabling it with a different mode.");
  }
  if (!o.bcast) return undefined;
  const names = o.prefixes.map((p) => p.toString('latin1'));
  for (let i = 0; i < names.length; i++) {
    for (const old of t?.prefixes ?? []) {
      if (overlaps(old, names[i])) {
        return new RespError(`ERR Prefix '${names[i]}' overlaps with an existing prefix '${old}'. Prefixes for a single client must not overlap.`);
      }
    }
    for (let j = i + 1; j < names.length; j++) {
      if (overlaps(names[i], names[j])) {
        return new RespError(`ERR Prefix '${names[i]}' overlaps with another provided prefix '${names[j]}'. Prefixes for a single client must not overlap.`);
      }
    }
  }
  return undefined;
}

/** CLIENT is noscript: its session is always a connection (workers/client.ts), which can be sent pushes. */
function tracked(s: Session): TrackedClient {
  return s as Session & TrackedClient;
}

function turnOn(s: Session, o: Options, redirectLocal: boolean): Reply | Promise<Reply> {
  const err = checkOn(s, o);
  if (err !== undefined) return err;
  const subscribed = s.server.tracker.enable(tracked(s), { ...o, redirectLocal }, new ClientTracking());
  if (subscribed === undefined) return kOk;
  // later commands wait: a read sent before the other workers publish here could miss a write
  s.holdWhile?.(subscribed);
  return subscribed.then(() => kOk);
}

export const clientTracking = defineCommand({
  name: 'client|tracking', arity: -3, flags, acl, group, since: '6.0.0',
  summary: 'Controls server-assisted client-side caching for the connection.',
  complexity: 'O(1). Some options may introduce additional complexity.',
  run(s, argv): Reply | Promise<Reply> {
    const o: Options = { redirect: 0, bcast: false, optin: false, optout: false, noloop: false, prefixes: [] };
    // the redirect target must exist now; one on another worker is asked of the primary (a Promise)
    let remote: number | undefined;
    for (let j = 3; j < argv.length; j++) {
      const more = argv.length - 1 - j > 0;
      const opt = lower(argv[j]);
      if (opt === 'redirect' && more) {
        j++;
        if (o.redirect !== 0 || remote !== undefined) return kOneRedirect;
        const id = parseI64(argv[j]);
        if (id === undefined) return Err.notInteger;
        if (id <= 0n || id > BigInt(Number.MAX_SAFE_INTEGER)) return kNoRedirect;
        if (s.server.hasClient(Number(id))) o.redirect = Number(id);
        else {
          // the rest is parsed after the answer, so an error there still comes second
          const rest = argv.slice(j + 1);
          return s.server.clientList({ id: [Number(id)] }).then((lines) => {
            if (lines.length === 0) return kNoRedirect;
            o.redirect = Number(id);
            const again = parseRest(o, rest);
            if (again !== undefined) return again;
            return finish(s, argv[2], o, false);
          });
        }
      } else {
        const err = parseOne(o, opt, argv, j, more);
        if (err === undefined) return Err.syntax;
        j = err;
      }
    }
    return finish(s, argv[2], o, true);
  },
});

/** One option other than REDIRECT at argv[j]: the index of its last argument, or undefined (syntax error). */
function parseOne(o: Options, opt: string, argv: Buffer[], j: number, more: boolean): number | undefined {
  if (opt === 'bcast') o.bcast = true;
  else if (opt === 'optin') o.optin = true;
  else if (opt === 'optout') o.optout = true;
  else if (opt === 'noloop') o.noloop = true;
  else if (opt === 'prefix' && more) o.prefixes.push(Buffer.from(argv[++j]));
  else return undefined;
  return j;
}

function parseRest(o: Options, rest: Buffer[]): RespError | undefined {
  for (let j = 0; j < rest.length; j++) {
    const more = rest.length - 1 - j > 0;
    const opt = lower(rest[j]);
    if (opt === 'redirect' && more) return kOneRedirect;
    const next = parseOne(o, opt, rest, j, more);
    if (next === undefined) return Err.syntax;
    j = next;
  }
  return undefined;
}

function finish(s: Session, mode: Buffer, o: Options, redirectLocal: boolean): Reply | Promise<Reply> {
  if (eqIgnoreCase(mode, 'on')) return turnOn(s, o, redirectLocal || o.redirect === 0);
  if (eqIgnoreCase(mode, 'off')) {
    s.server.tracker.disable(tracked(s));
    return kOk;
  }
  return Err.syntax;
}

export const clientCaching = defineCommand({
  name: 'client|caching', arity: 3, flags, acl, group, since: '6.0.0',
  summary: 'Instructs the server whether to track the keys in the next request.',
  run(s, argv) {
    const t = s.tracking;
    if (t === undefined) {
      return new RespError('ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled');
    }
    const v = lower(argv[2]);
    if (v === 'yes') {
      if (!t.optin) return new RespError('ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.');
    } else if (v === 'no') {
      if (!t.optout) return new RespError('ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.');
    } else return Err.syntax;
    t.caching = true;
    return kOk;
  },
});

export const clientGetredir = defineCommand({
  name: 'client|getredir', arity: 2, flags, acl, group, since: '6.0.0',
  summary: 'Returns the client ID to which the connection\'s tracking notifications are redirected.',
  run: (s) => s.tracking?.redirect ?? -1,
});

export const clientTrackinginfo = defineCommand({
  name: 'client|trackinginfo', arity: 2, flags, acl, group, since: '6.2.0',
  summary: 'Returns information about server-assisted client-side caching for the connection.',
  run(s) {
    const t = s.tracking;
    const f: string[] = [t !== undefined ? 'on' : 'off'];
    if (t?.bcast) f.push('bcast');
    if (t?.optin) f.push('optin', ...(t.caching ? ['caching-yes'] : []));
    if (t?.optout) f.push('optout', ...(t.caching ? ['caching-no'] : []));
    if (t?.noloop) f.push('noloop');
    if (t?.broken) f.push('broken_redirect');
    // Redis lists prefixes from its radix tree: byte order
    const prefixes = [...(t?.prefixes ?? [])].sort().map((p) => Buffer.from(p, 'latin1'));
    return new RespMap(['flags', new RespSet(f), 'redirect', t?.redirect ?? -1, 'prefixes', prefixes]);
  },
});
