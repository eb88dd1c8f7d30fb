/**
 * notify-keyspace-events as Redis 7.0 reads and prints it (notify.c): one letter per class,
 * K and E for the two channel kinds, A for every class but n (new keys) and m (key misses).
 * Printing puts A, or the classes in a fixed order, then K, E, m: `KEA` reads back `AKE`.
 */
export const kNotify = {
  keyspace: 1 << 0, keyevent: 1 << 1, generic: 1 << 2, string: 1 << 3, list: 1 << 4, set: 1 << 5,
  hash: 1 << 6, zset: 1 << 7, expired: 1 << 8, evicted: 1 << 9, stream: 1 << 10, keyMiss: 1 << 11,
  loaded: 1 << 12, module: 1 << 13, new: 1 << 14,
} as const;

/** A: g $ l s h z x e t d */
export const kNotifyAll = kNotify.generic | kNotify.string | kNotify.list | kNotify.set | kNotify.hash | kNotify.zset |
  kNotify.expired | kNotify.evicted | kNotify.stream | kNotify.module;

const kLetters: [string, number][] = [
  ['g', kNotify.generic], ['$', kNotify.string], ['l', kNotify.list], ['s', kNotify.set], ['h', kNotify.hash],
  ['z', kNotify.zset], ['x', kNotify.expired], ['e', kNotify.evicted], ['t', kNotify.stream], ['d', kNotify.module],
  ['n', kNotify.new],
];
const kByLetter = new Map<string, number>([...kLetters, ['A', kNotifyAll], ['K', kNotify.keyspace],
  ['E', kNotify.keyevent], ['m', kNotify.keyMiss]]);

export const kNotifyError = "Invalid event class character. Use 'Ag$lshzxeKEtmdn'.";

/** The flags, or undefined for a character Redis refuses. */
export function parseNotifyFlags(text: string): number | undefined {
  let flags = 0;
  for (const ch of text) {
    const f = kByLetter.get(ch);
    if (f === undefined) return undefined;
    flags |= f;
  }
  return flags;
}

/**
 * The form the config keeps: Redis's printed one, plus `n` where that drops it. Redis keeps the
 * flags as a number, so `KEAn` prints `AKE` yet fires `new`; the text must not lose it either.
 */
export function storedNotifyFlags(flags: number): string {
  const shown = formatNotifyFlags(flags);
  return (flags & kNotify.new) !== 0 && !shown.includes('n') ? `${shown}n` : shown;
}

export function formatNotifyFlags(flags: number): string {
  let out = '';
  if ((flags & kNotifyAll) === kNotifyAll) out = 'A';
  else for (const [ch, f] of kLetters) if (flags & f) out += ch;
  if (flags & kNotify.keyspace) out += 'K';
  if (flags & kNotify.keyevent) out += 'E';
  if (flags & kNotify.keyMiss) out += 'm';
  return out;
}
