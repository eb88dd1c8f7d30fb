/** /metrics, /healthz, /info and INFO commandstats/latencystats after known traffic. */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { RawClient, encode } from './resp-client';
import { startServer, type RunningServer } from './start-server';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
}

let server: RunningServer;
let http: number;
before(async () => {
  http = await freePort();
  server = await startServer(['--workers', '2', '--http-port', String(http)]);
  const c = await RawClient.connect(server.port);
  const cmds: Buffer[] = [];
  for (let i = 0; i < 10; i++) cmds.push(encode('SET', `m${i}`, 'v'));
  for (let i = 0; i < 5; i++) cmds.push(encode('GET', `m${i}`));
  cmds.push(encode('NOSUCHCMD'));
  c.send(Buffer.concat(cmds));
  await c.read(16);
  c.close();
});
after(async () => { await server.stop(); });

const get = (path: string) => fetch(`http://127.0.0.1:${http}${path}`);

describe('admin HTTP and latency figures', () => {
  it('/metrics counts commands, errors and batches', async () => {
    const res = await get('/metrics');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
    const text = await res.text();
    assert.match(text, /^postresp_commands_total\{cmd="set"\} 10$/m);
    assert.match(text, /^postresp_commands_total\{cmd="get"\} 5$/m);
    assert.match(text, /^postresp_errors_total\{code="ERR"\} 1$/m);
    assert.match(text, /^postresp_command_duration_seconds_count\{cmd="set"\} 10$/m);
    assert.match(text, /^postresp_batch_size_bucket\{worker="\d",lane="\d",le="\+Inf"\} \d+$/m);
    assert.match(text, /^postresp_lane_connected\{worker="0",lane="0"\} 1$/m);
    assert.match(text, /^# TYPE postresp_pg_reconnects_total counter$/m);
    assert.match(text, /^postresp_batch_transactions_total \d+$/m);
    assert.match(text, /^postresp_batch_transaction_retries_total \d+$/m);
    // the round-trip histogram's sum is the lanes' time in flight: above 0 once a batch answered,
    // at most (batches) × (the largest bucket's bound)
    const count = Number(/^postresp_batch_duration_seconds_count (\d+)$/m.exec(text)?.[1]);
    const sum = Number(/^postresp_batch_duration_seconds_sum (\S+)$/m.exec(text)?.[1]);
    const top = Math.max(...[...text.matchAll(/^postresp_batch_duration_seconds_bucket\{le="([\d.e-]+)"\} \d+$/gm)].map((m) => Number(m[1])));
    assert.ok(count > 0, 'batches were timed');
    assert.ok(sum > 0 && sum <= count * top, `sum ${sum} within (0, ${count} × ${top}]`);
  });

  it('/healthz answers 200 while Postgres answers', async () => {
    const res = await get('/healthz');
    assert.equal(res.status, 200);
    assert.equal(await res.text(), 'ok\n');
  });

  it('/info is JSON with the same counters', async () => {
    const body = await (await get('/info')).json() as { commands: Record<string, { calls: number }> };
    assert.equal(body.commands.set.calls, 10);
    assert.equal((await get('/nope')).status, 404);
  });

  it('INFO commandstats, latencystats and LATENCY HISTOGRAM agree', async () => {
    const c = await RawClient.connect(server.port);
    const stats = String(await c.call('INFO', 'commandstats'));
    assert.match(stats, /\r\ncmdstat_set:calls=10,usec=\d+,usec_per_call=[\d.]+,rejected_calls=0,failed_calls=0\r\n/);
    const lat = String(await c.call('INFO', 'latencystats'));
    assert.match(lat, /latency_percentiles_usec_set:p50=\d+\.000,p99=\d+\.000,p99\.9=\d+\.000/);
    const h = (await c.call('LATENCY', 'HISTOGRAM', 'set')) as unknown[];
    assert.equal(h[0], 'set');
    const inner = h[1] as unknown[];
    assert.equal(inner[0], 'calls');
    assert.equal(inner[1], 10);
    const buckets = inner[3] as number[];
    assert.equal(buckets[buckets.length - 1], 10, 'cumulative count ends at calls');
    c.close();
  });
});
