/**
 * Consecutive pushes onto one key run as one l_push() call (workers/storage/push-run.ts): the
 * replies must still be those of serial execution. Pipelined runs of LPUSH / RPUSH / LPUSHX /
 * RPUSHX on a few keys — missing keys for the X forms, a string key (WRONGTYPE), keys deleted
 * in between — against redis-server, 8 clients at once; and the statement counter shows the
 * runs were merged (fewer statements than pushes).
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { compareSteps, exact, type Step } from './collections-compare';
import { Oracle, freePort, report } from './oracle';
import { Rng, seedFromEnv } from './prng';

const seed = seedFromEnv(20261130);

function statements(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path: '/metrics' }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => {
        const m = /^postresp_pg_statements_total(?:\{\})? (\d+)/m.exec(body);
        if (m) resolve(Number(m[1])); else reject(new Error('no postresp_pg_statements_total in /metrics'));
      });
    }).on('error', reject);
  });
}

/** mostly runs of pushes onto the same key, so that a pipeline hands the lane long runs */
function session(rng: Rng, prefix: string, n: number): Step[] {
  const keys = ['a', 'b', 'x'].map((s) => prefix + s);
  const out: Step[] = [exact('SET', prefix + 'str', 'v')];
  while (out.length < n) {
    const k = rng.chance(0.1) ? prefix + 'str' : rng.pick(keys);
    const cmd = rng.pick(['LPUSH', 'RPUSH', 'LPUSH', 'RPUSH', 'LPUSHX', 'RPUSHX']);
    const run = rng.between(1, 12);
    for (let i = 0; i < run; i++) {
      out.push(exact(cmd, k, ...Array.from({ length: rng.between(1, 3) }, () => rng.pick(['a', 'b', '', '\x00', 'x'.repeat(50)]))));
    }
    const r = rng.next();
    if (r < 0.1) out.push(exact('DEL', rng.pick(keys)));
    else if (r < 0.25) out.push(exact('LRANGE', k, '0', '-1'));
    else if (r < 0.35) out.push(exact('LLEN', k));
  }
  return [...out, ...keys.flatMap((k) => [exact('LRANGE', k, '0', '-1'), exact('LLEN', k)])];
}

describe('runs of pushes onto one key vs redis-server', () => {
  let oracle: Oracle;
  let httpPort: number;
  before(async () => {
    httpPort = await freePort();
    oracle = await Oracle.start(['--workers', '2', '--storage-mode', 'unlogged', '--http-port', String(httpPort)]);
  });
  after(async () => { await oracle?.stop(); });

  it('8 pipelined clients: replies equal serial execution, and runs were merged', async (t) => {
    const sessions = Array.from({ length: 8 }, (_, i) => session(new Rng(seed).fork(`push${i}`), `p${i}:`, 400));
    const pushes = sessions.flat().filter((s) => /PUSH/.test(String(s.cmd[0]))).length;
    const before = await statements(httpPort);
    const r = await compareSteps(oracle, sessions, Infinity);
    const used = (await statements(httpPort)) - before;
    t.diagnostic(`${r.commands} commands (${pushes} pushes), ${used} statements, ${r.mismatches.length} differ (seed ${seed})`);
    assert.equal(r.mismatches.length, 0, report('push runs', seed, r));
    assert.ok(used < r.commands / 2, `${used} statements for ${r.commands} commands: runs were not merged`);
  });
});
