/**
 * Where a blocking command must not block: EXEC's queued commands and (later) a script's
 * redis.call. There BLPOP answers as LPOP would on its first non-empty key, or its timeout reply
 * at once (Redis 7.0: "BLPOP inside a transaction" → nil). Both run their commands synchronously,
 * so a depth counter around the call is enough:
 *
 *   store.transaction(s, watched, () => withoutBlocking(() => queued.map(run)))
 */
let depth = 0;

export function withoutBlocking<T>(fn: () => T): T {
  depth++;
  try {
    return fn();
  } finally {
    depth--;
  }
}

/** false inside withoutBlocking() */
export function blockingAllowed(): boolean {
  return depth === 0;
}
