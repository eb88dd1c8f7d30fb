/**
 * Where a blocking command must not block: EXEC's queued commands and (later) a script's
 * redis.call. There BLPOP answers as LPOP would on its first non-empty key, or its timeout reply
 * at once (Redis 7.0: "BLPOP inside a transaction" → nil). Both run their commands synchronously,
 * so a depth counter around the call is enough:
 *
 *   store.transaction(s, watched, () => withoutBlocking(() => queued.map(run)))
 */
let depth = 0;
/** inside a script's redis.call: XREAD / XREADGROUP refuse BLOCK there (Redis 7.0) */
let scriptDepth = 0;

export function withoutBlocking<T>(fn: () => T, script = false): T {
  depth++;
  if (script) scriptDepth++;
  try {
    return fn();
  } finally {
    depth--;
    if (script) scriptDepth--;
  }
}

/** true inside a script's redis.call */
export function inScript(): boolean {
  return scriptDepth > 0;
}

/** false inside withoutBlocking() */
export function blockingAllowed(): boolean {
  return depth === 0;
}
