/**
 * client-output-buffer-limit for normal clients, as Redis applies it: over the hard limit the
 * client is closed at once; over the soft limit for softSeconds in a row, too. A client that
 * stopped reading after its last command gets no further write to be checked on, so a timer
 * looks again when the soft time is up (Redis: clientsCron).
 */
import type { OutputLimit } from '../core/config/config';

export class OutputLimiter {
  /** Date.now() when the queued output first went over the soft limit, 0 when under */
  private overSoftSince = 0;
  private timer: NodeJS.Timeout | undefined = undefined;

  /** recheck: called when the soft time is up (the client checks again with its current figures) */
  constructor(private readonly recheck: () => void) {}

  /** true when `queued` bytes waiting in the socket break the limit: close the client. */
  exceeded(queued: number, limit: OutputLimit): boolean {
    if (limit.hard === 0 && limit.soft === 0) {
      this.overSoftSince = 0;
      return false;
    }
    if (limit.hard > 0 && queued > limit.hard) return true;
    if (limit.soft === 0 || queued <= limit.soft) {
      this.overSoftSince = 0;
      return false;
    }
    const now = Date.now();
    if (this.overSoftSince === 0) this.overSoftSince = now;
    const due = this.overSoftSince + limit.softSeconds * 1000;
    if (now >= due) return true;
    this.timer ??= setTimeout(this.onTimer, due - now + 10);
    return false;
  }

  private readonly onTimer = (): void => {
    this.timer = undefined;
    this.recheck();
  };

  stop(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
