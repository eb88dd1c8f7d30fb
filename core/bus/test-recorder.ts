// A Subscriber that records what it gets, for the bus tests.
import type { Subscriber } from './bus';

type Got = [kind: string, channel: string, message: string, pattern?: string];

export function recorder(limit = Infinity): Subscriber & { got: Got[]; until(n: number): Promise<void> } {
  const got: Got[] = [];
  let wake: (() => void) | undefined;
  return {
    got,
    deliver(kind, channel, message, pattern) {
      got.push(pattern ? [kind, channel.toString(), message.toString(), pattern.toString()] : [kind, channel.toString(), message.toString()]);
      wake?.();
      return got.length < limit;
    },
    async until(n) {
      while (got.length < n) await new Promise<void>((r) => (wake = r));
    },
  };
}
