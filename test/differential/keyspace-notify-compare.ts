/**
 * Keyspace notifications as a client sees them, compared between redis-server and PostRESP: each
 * case of write-events-cases.ts (or any EventCase) runs with the same notify-keyspace-events and
 * a subscriber on PSUBSCRIBE *; the channel and message of every pmessage must be the same, in the
 * same order. The setup runs with notifications off; a PUBLISH on a fence channel after the
 * command closes each case (it leaves behind the command's events: one publisher, in order).
 * `expired` is left out (Redis's active expiry and our sweeper fire it on their own schedule).
 */
import assert from 'node:assert/strict';
import { RawClient, encode, type Value } from '../e2e/resp-client';
import type { Oracle } from './oracle';
import type { EventCase } from './write-events-cases';
import { runCase } from './write-events-redis';

const kFence = 'postresp-test-fence';

/** per case, `channel message` of each notification */
async function notifications(port: number, cases: readonly EventCase[], flags: string): Promise<string[][]> {
  const sub = await RawClient.connect(port);
  const cmd = await RawClient.connect(port);
  try {
    sub.send(encode('PSUBSCRIBE', '*'));
    await sub.read(1);
    const out: string[][] = [];
    for (let i = 0; i < cases.length; i++) {
      await runCase(cmd, cases[i], flags);
      await cmd.call('PUBLISH', kFence, String(i));
      const got: string[] = [];
      for (;;) {
        const [m] = await sub.read(1) as Value[][];
        if (m[2] === kFence) break;
        if (!String(m[2]).endsWith(':expired') && m[3] !== 'expired') got.push(`${m[2]} ${m[3]}`);
      }
      out.push(got);
    }
    await cmd.call('CONFIG', 'SET', 'notify-keyspace-events', '');
    return out;
  } finally {
    sub.close();
    cmd.close();
  }
}

/** Asserts both servers notify the same for every case; returns how many notifications Redis sent. */
export async function compareNotifications(oracle: Oracle, cases: readonly EventCase[], flags: string): Promise<number> {
  const [theirs, ours] = [await notifications(oracle.redis.port, cases, flags), await notifications(oracle.postresp.port, cases, flags)];
  const failures = cases.flatMap((k, i) => JSON.stringify(ours[i]) === JSON.stringify(theirs[i]) ? [] :
    [`${[k.cmd, ...k.then ?? []].map((l) => l.join(' ')).join('; ')}${k.setup.length ? ` (after ${k.setup.map((s) => s.join(' ')).join('; ')})` : ''}: ` +
      `postresp ${JSON.stringify(ours[i])}, redis-server ${JSON.stringify(theirs[i])}`]);
  assert.deepEqual(failures, [], `notify-keyspace-events ${flags}: ${failures.length} of ${cases.length} cases differ:\n${failures.join('\n')}`);
  return theirs.reduce((n, e) => n + e.length, 0);
}
