/**
 * Command flags and ACL categories as Redis 7.0 keeps them: flags as bits computed once per spec
 * (the client checks `no_auth` and `no_multi` per command with one AND, no string search), and
 * the categories a flag implies added the way Redis's setImplicitACLCategories does. The orders
 * below are the ones COMMAND INFO prints (server.c addReplyCommandFlags, acl.c's category table),
 * checked against redis-server 7.0.15 by test/differential/command-info.test.ts.
 */
import type { CommandFlag } from './spec';

/** Flags COMMAND INFO shows, in its order; bit i of CommandSpec.flagBits is kShownFlags[i]. */
const kShownFlags = [
  'write', 'readonly', 'denyoom', 'module', 'admin', 'pubsub', 'noscript', 'blocking', 'loading', 'stale',
  'skip_monitor', 'skip_slowlog', 'asking', 'fast', 'no_auth', 'no_mandatory_keys', 'no_async_loading', 'no_multi',
  'movablekeys', 'allow_busy',
] as const;
/** In Redis's command JSON but never printed by COMMAND INFO (hidden on purpose in server.c). */
const kHiddenFlags = ['may_replicate', 'sentinel'] as const;

const kAllFlags: readonly string[] = [...kShownFlags, ...kHiddenFlags];
const bit = (f: CommandFlag): number => 1 << kAllFlags.indexOf(f);

export const kFlagWrite = bit('write');
export const kFlagReadonly = bit('readonly');
export const kFlagNoAuth = bit('no_auth');
export const kFlagNoMulti = bit('no_multi');
export const kFlagNoScript = bit('noscript');
export const kFlagMayReplicate = bit('may_replicate');
/**
 * May change a stored value: write, or may_replicate without write (PFCOUNT rewrites its HLL's
 * cached cardinality: Redis's signalModifiedKey). The read cache's bump follows these.
 */
export const kFlagsModify = kFlagWrite | kFlagMayReplicate;

/** Redis's ACL categories in the order COMMAND INFO and ACL CAT list them. */
export const kAclCategories = [
  'keyspace', 'read', 'write', 'set', 'sortedset', 'list', 'hash', 'string', 'bitmap', 'hyperloglog', 'geo',
  'stream', 'pubsub', 'admin', 'fast', 'slow', 'blocking', 'dangerous', 'connection', 'transaction', 'scripting',
] as const;

export function flagBits(flags: readonly CommandFlag[]): number {
  let bits = 0;
  for (const f of flags) {
    if (!kAllFlags.includes(f)) throw new Error(`unknown command flag ${f}`);
    bits |= bit(f);
  }
  return bits;
}

/** The flags COMMAND INFO prints for these bits, in Redis's order. */
export function shownFlags(bits: number): string[] {
  return kShownFlags.filter((_f, i) => (bits & (1 << i)) !== 0);
}

/**
 * The declared categories plus those the flags imply (write → write, readonly → read unless
 * scripting, admin → admin and dangerous, pubsub, fast, blocking; not fast → slow), in Redis's order.
 */
export function aclCategories(declared: readonly string[], flags: readonly CommandFlag[]): string[] {
  for (const c of declared) if (!(kAclCategories as readonly string[]).includes(c)) throw new Error(`unknown ACL category ${c}`);
  const has = new Set(declared);
  if (flags.includes('write')) has.add('write');
  if (flags.includes('readonly') && !has.has('scripting')) has.add('read');
  if (flags.includes('admin')) { has.add('admin'); has.add('dangerous'); }
  if (flags.includes('pubsub')) has.add('pubsub');
  if (flags.includes('fast')) has.add('fast');
  if (flags.includes('blocking')) has.add('blocking');
  if (!has.has('fast')) has.add('slow');
  return kAclCategories.filter((c) => has.has(c));
}
