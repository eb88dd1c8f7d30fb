/**
 * stream-node-max-entries and stream-node-max-bytes as XADD applies them: which entries share a
 * node decides what MAXLEN/MINID ~ leave behind (stream_nodes, docs/streams.md).
 */
import type { Session } from '../../session';

/** Redis caps a listpack at 1 GiB whatever the setting (STREAM_LISTPACK_MAX_SIZE) */
const kMaxListpack = 2 ** 30;

function configInt(s: Session, name: string, fallback: number): number {
  const m = /^(\d+)(k|kb|m|mb|g|gb)?$/i.exec(s.server.config.str(name).trim());
  if (m === null) return fallback;
  const unit = (m[2] ?? '').toLowerCase();
  const mult = unit === '' ? 1 : unit === 'k' ? 1000 : unit === 'kb' ? 1024 : unit === 'm' ? 1e6 : unit === 'mb' ? 2 ** 20
    : unit === 'g' ? 1e9 : 2 ** 30;
  return Number(m[1]) * mult;
}

export function nodeMaxEntries(s: Session): number {
  return configInt(s, 'stream-node-max-entries', 100);
}

export function nodeMaxBytes(s: Session): number {
  const b = configInt(s, 'stream-node-max-bytes', 4096);
  return b === 0 || b > kMaxListpack ? kMaxListpack : b;
}

/**
 * An entry's share of its node's bytes: its fields and values plus a few bytes of listpack
 * headers each (Redis compares the node's real listpack size; this estimate only matters for
 * entries large enough to fill 4 KiB nodes before 100 entries do).
 */
export function entryBytes(argv: Buffer[], from: number): number {
  let n = 8;
  for (let i = from; i < argv.length; i++) n += argv[i].length + 2;
  return n;
}
