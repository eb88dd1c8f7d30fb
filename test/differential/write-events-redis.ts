/**
 * The events redis-server fires for each case of write-events-cases.ts, read the way a client
 * reads them: `notify-keyspace-events KEA` and a subscriber on `__keyevent@*__:*`. The case's
 * setup runs with notifications off; after its command, a PUBLISH on a channel of our own
 * arrives behind the command's events (one subscriber connection, delivered in order), so it
 * closes the case without any waiting.
 */
import { RawClient, encode, type Value } from '../e2e/resp-client';
import type { EventCase } from './write-events-cases';

/** one keyspace event as the write hook reports it: db, event name, key (null = every key of db) */
export type Event = [number, string, string | null];

const kFence = 'postresp-test-fence';

/**
 * One case on `cmd`: its setup with notifications off (from an empty keyspace, ending in db 0),
 * then its command with notify-keyspace-events `flags`; the command's reply.
 */
export async function runCase(cmd: RawClient, { setup, cmd: line, then }: EventCase, flags: string): Promise<Value> {
  await cmd.call('CONFIG', 'SET', 'notify-keyspace-events', '');
  await cmd.call('FLUSHALL');
  for (const s of setup) await cmd.call(...s);
  await cmd.call('SELECT', '0');
  await cmd.call('CONFIG', 'SET', 'notify-keyspace-events', flags);
  let reply = await cmd.call(...line);
  for (const l of then ?? []) reply = await cmd.call(...l);
  return reply;
}

export async function redisEvents(port: number, cases: readonly EventCase[]): Promise<{ events: Event[][]; replies: Value[] }> {
  const sub = await RawClient.connect(port);
  const cmd = await RawClient.connect(port);
  try {
    sub.send(Buffer.concat([encode('PSUBSCRIBE', '__keyevent@*__:*'), encode('SUBSCRIBE', kFence)]));
    await sub.read(2);
    const events: Event[][] = [];
    const replies: Value[] = [];
    for (let i = 0; i < cases.length; i++) {
      replies.push(await runCase(cmd, cases[i], 'KEA'));
      await cmd.call('PUBLISH', kFence, String(i));
      const got: Event[] = [];
      for (;;) {
        const [m] = await sub.read(1) as Value[][];
        if (m[0] === 'message') break;
        // pmessage, pattern, __keyevent@<db>__:<event>, key
        const at = /^__keyevent@(\d+)__:(.*)$/.exec(String(m[2]))!;
        got.push([Number(at[1]), at[2], String(m[3])]);
      }
      events.push(got);
    }
    await cmd.call('CONFIG', 'SET', 'notify-keyspace-events', '');
    return { events, replies };
  } finally {
    sub.close();
    cmd.close();
  }
}
