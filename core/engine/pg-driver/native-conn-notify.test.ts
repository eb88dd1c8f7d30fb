// LISTEN/NOTIFY through our libpq binding (PQnotifies → onNotification), and the Postgres limits
// the message bus is built around (docs/messaging.md), against the shared test Postgres.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { NativePgConnection } from './native-conn';
import { PgServerError } from './errors';

const url = process.env.DATABASE_URL ?? '';
const skip = url ? false : 'DATABASE_URL is not set (run `npm test`)';

describe('NativePgConnection notifications', { skip }, () => {
  let listener: NativePgConnection;
  let sender: NativePgConnection;
  const got: [string, string, number][] = [];
  let waiting: (() => void) | undefined;
  const channel = `notify_test_${process.pid}`;
  before(async () => {
    listener = await NativePgConnection.connect(url);
    sender = await NativePgConnection.connect(url);
    listener.onNotification = (c, p, pid) => {
      got.push([c, p, pid]);
      waiting?.();
    };
    await listener.query(`LISTEN ${channel}`, [], { prepare: false });
    listener.setListening(true);
  });
  after(async () => {
    await listener.close();
    await sender.close();
  });
  const until = async (n: number) => {
    while (got.length < n) await new Promise<void>((r) => (waiting = r));
  };

  test('a notification reaches an idle listening connection, with the sender backend pid', async () => {
    got.length = 0;
    await sender.query('SELECT pg_notify($1, $2)', [channel, 'héllo'], { prepare: false });
    await until(1);
    assert.deepEqual(got, [[channel, 'héllo', sender.backendPid]]);
  });

  test('many notifications of one transaction arrive in order; identical ones collapse', async () => {
    got.length = 0;
    await sender.query('SELECT pg_notify($1, p) FROM unnest($2::text[]) WITH ORDINALITY AS u(p, i) ORDER BY i',
      [channel, ['a', 'b', 'a', 'c', 'b']], { prepare: false });
    await sender.query('SELECT pg_notify($1, $2)', [channel, 'end'], { prepare: false });
    await until(4);
    // Postgres drops a notification identical to one already queued by the same transaction
    assert.deepEqual(got.map((g) => g[1]), ['a', 'b', 'c', 'end']);
  });

  test('a payload of 8000 bytes or more is refused', async () => {
    await sender.query('SELECT pg_notify($1, $2)', [channel, 'x'.repeat(7999)], { prepare: false });
    await assert.rejects(sender.query('SELECT pg_notify($1, $2)', [channel, 'x'.repeat(8000)], { prepare: false }),
      (e: PgServerError) => e.code === '22023' && /payload string too long/.test(e.message));
  });

  test('a closed listening connection stops listening without keeping the process alive', async () => {
    const c = await NativePgConnection.connect(url);
    c.setListening(true);
    await c.close();
    c.setListening(true); // ignored once closed
    assert.equal(c.closed, true);
  });
});
