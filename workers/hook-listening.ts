/**
 * Tells the primary whether this worker's write hook listens: its sweeper reports expired keys
 * only to workers that listen (core/primary/pool.ts `expired`). A blocked XREAD or BZPOPMIN that
 * is the only listener turns the hook on when it blocks and off when it is answered, and each
 * change was a message to the primary: two per wait, on the primary's main thread. "On" is told
 * at once (a waiter must hear the sweeper's expired keys); "off" once the hook is still off at
 * the next check, kOffCheckMs after the first "off" since the last message: a client that blocks
 * again and again sends nothing after its first wait. The price: the sweeper reports its expired
 * keys to a worker that drops them for up to kOffCheckMs.
 */
const kOffCheckMs = 1000;

export function hookListening(post: (listening: boolean) => void, offCheckMs = kOffCheckMs): (listening: boolean) => void {
  /** what the primary was told */
  let told = false;
  let now = false;
  let timer: NodeJS.Timeout | undefined;
  const check = (): void => {
    timer = undefined;
    if (!now && told) {
      told = false;
      post(false);
    }
  };
  return (listening) => {
    now = listening;
    if (listening && !told) {
      told = true;
      post(true);
    } else if (!listening && told && timer === undefined) {
      timer = setTimeout(check, offCheckMs);
      timer.unref();
    }
  };
}
