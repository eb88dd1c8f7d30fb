/**
 * A selector written back as rules, as Redis 7.0's ACL LIST and ACL GETUSER print it. Redis 7.0
 * does not keep the rules it was given: it rebuilds them from the command bitmap, starting from
 * +@all (if the reserved future-commands bit is set) or -@all, then greedily adding (or removing)
 * the category that matches most commands and breaks fewest (first in category order on ties),
 * then single commands for what still differs, then `+cmd|firstarg` rules. So `+@all -config
 * +config` prints `+@all`, and `-@all +@slow +config` prints `-@all +@slow`.
 *
 * The single commands come in command-table order. Redis walks its command dict, whose order
 * depends on a hash seed drawn at each start: two redis-server processes given the same rules
 * print the same tokens in different orders (`+config|rewrite +config|get…` once,
 * `+config|resetstat +config|rewrite…` the next time).
 */
import { kAclCategories } from '../engine/commands/flags';
import type { AclCommand } from './command-index';
import { Selector, kKeyAll, kKeyRead, kKeyWrite, type KeyPattern } from './selector';

export function describeCommandRules(s: Selector): string {
  const rules: string[] = [];
  const additive = !s.future;
  const fake = new Selector(s.index, false);
  fake.apply(additive ? '-@all' : '+@all');
  rules.push(additive ? '-@all' : '+@all');
  // temp holds what is left to explain: each category used is flipped there, as in Redis
  const temp = new Selector(s.index, false);
  temp.allowed = s.allowed.slice();
  const applied = new Set<string>();
  for (;;) {
    let best: string | undefined;
    let minDiff = Number.MAX_SAFE_INTEGER;
    let maxSame = 0;
    for (const cat of kAclCategories) {
      if (applied.has(cat)) continue;
      let on = 0;
      let off = 0;
      for (const c of s.index.category(cat)!) {
        if (temp.allowed[c.id] === 1) on++;
        else off++;
      }
      const diff = additive ? off : on;
      const same = additive ? on : off;
      if (same > diff && (diff < minDiff || (diff === minDiff && same > maxSame))) {
        best = cat;
        minDiff = diff;
        maxSame = same;
      }
    }
    if (best === undefined) break;
    fake.apply(`${additive ? '+' : '-'}@${best}`);
    temp.apply(`${additive ? '-' : '+'}@${best}`);
    rules.push(`${additive ? '+' : '-'}@${best}`);
    applied.add(best);
  }
  singleCommands(s, fake, s.index.top, rules);
  return rules.join(' ');
}

function singleCommands(s: Selector, fake: Selector, list: AclCommand[], rules: string[]): void {
  for (const cmd of list) {
    const user = s.allowed[cmd.id];
    if (user !== fake.allowed[cmd.id]) {
      rules.push(`${user === 1 ? '+' : '-'}${cmd.spec.name}`);
      fake.changePerm(cmd, user === 1);
    }
    if (cmd.subs.length > 0) singleCommands(s, fake, cmd.subs, rules);
    const args = s.firstArgs?.get(cmd.id);
    if (user === 0 && args !== undefined) for (const a of args) rules.push(`+${cmd.spec.name}|${a}`);
  }
}

export function patternText(p: KeyPattern): string {
  if (p.flags === kKeyAll) return `~${p.text}`;
  if (p.flags === kKeyRead) return `%R~${p.text}`;
  if (p.flags === kKeyWrite) return `%W~${p.text}`;
  return `%~${p.text}`;
}

/** ACL GETUSER's "keys": `~*`, or the patterns separated by spaces */
export function keysText(s: Selector): string {
  return s.allKeys ? '~*' : s.patterns.map(patternText).join(' ');
}

/** ACL GETUSER's "channels": `&*`, or the patterns */
export function channelsText(s: Selector): string {
  return s.allChannels ? '&*' : s.channels.map((c) => `&${c.text}`).join(' ');
}

/** Redis's ACLDescribeSelector: keys, channels (`resetchannels` first when not all), commands */
export function describeSelector(s: Selector): string {
  const parts: string[] = [];
  if (s.allKeys) parts.push('~*');
  else for (const p of s.patterns) parts.push(patternText(p));
  if (s.allChannels) parts.push('&*');
  else {
    parts.push('resetchannels');
    for (const c of s.channels) parts.push(`&${c.text}`);
  }
  parts.push(describeCommandRules(s));
  return parts.join(' ');
}
