/**
 * ACL LOG: the refusals and failed AUTHs, newest first, as Redis 7.0 keeps them. An entry equal in
 * reason, context, object and user to one made in the last 60 s counts up that one instead
 * (Redis's ACL_LOG_GROUPING_MAX_TIME_DELTA), among the newest 10; at most acllog-max-len (128) entries per worker.
 * ACL LOG merges every worker's entries through the primary.
 */
export interface AclLogEntry {
  count: number;
  reason: 'command' | 'key' | 'channel' | 'auth';
  context: 'toplevel' | 'multi' | 'lua';
  object: string;
  username: string;
  /** Date.now() of the first and the last occurrence */
  created: number;
  updated: number;
  clientInfo: string;
}

const kGroupMs = 60000;
const kMaxLen = 128;
const kGroupScan = 10;

export class AclLog {
  entries: AclLogEntry[] = [];

  add(e: Omit<AclLogEntry, 'count' | 'created' | 'updated'>): void {
    const now = Date.now();
    // Redis looks for a match among the newest 10 entries only
    const same = this.entries.slice(0, kGroupScan).find((x) => x.reason === e.reason && x.context === e.context &&
      x.object === e.object && x.username === e.username && now - x.updated < kGroupMs);
    if (same !== undefined) {
      same.count++;
      same.updated = now;
      same.clientInfo = e.clientInfo;
      this.entries.splice(this.entries.indexOf(same), 1);
      this.entries.unshift(same);
      return;
    }
    this.entries.unshift({ ...e, count: 1, created: now, updated: now });
    if (this.entries.length > kMaxLen) this.entries.length = kMaxLen;
  }

  reset(): void {
    this.entries = [];
  }
}

/** Every worker's entries as one log, newest first */
export function mergeLogs(parts: AclLogEntry[][]): AclLogEntry[] {
  return parts.flat().sort((a, b) => b.updated - a.updated).slice(0, kMaxLen);
}
