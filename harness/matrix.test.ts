// The matrix on a tiny configuration. PostRESP modes are skipped with --only redis: the server is
// being written alongside and its embedded Postgres takes seconds to start; the PostRESP path is
// covered by the auto-start test (stub server) and by `npm run bench` by hand.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { harnessArgv, parseMatrixArgs, runMatrix } from './matrix';
import { cell, median, renderCsv, renderMarkdown, writeMatrixReport } from './matrix-report';
import { peerBinary } from './servers';

test('matrix flags: env defaults, --quick is one pairing and one repetition', () => {
  const full = parseMatrixArgs([]);
  assert.deepEqual(full.storageModes, ['unlogged', 'logged-async', 'logged']);
  assert.deepEqual(full.peerModes, ['none', 'rdb', 'aof-everysec', 'aof-always']);
  assert.equal(full.repetitions, 3);
  assert.equal(full.tests, 'ping_mbulk,set,get');
  const quick = parseMatrixArgs(['--quick']);
  assert.deepEqual([quick.storageModes, quick.peerModes, quick.repetitions], [['logged'], ['aof-always'], 1]);
  const volatile = parseMatrixArgs(['--quick', '--pairing', 'volatile']);
  assert.deepEqual([volatile.storageModes, volatile.peerModes], [['unlogged'], ['none']]);
  process.env.BENCH_REQUESTS = '1234';
  process.env.BENCH_PIPELINE = '8';
  try {
    const env = parseMatrixArgs(['-c', '7', '--', '--threads', '1']);
    assert.deepEqual(harnessArgv(env), ['-t', 'ping_mbulk,set,get', '-n', '1234', '-c', '7', '-P', '8', '-d', '3', '-r', '10000', '-q', '--threads', '1']);
  } finally {
    delete process.env.BENCH_REQUESTS;
    delete process.env.BENCH_PIPELINE;
  }
  assert.throws(() => parseMatrixArgs(['--peer-modes', 'fsync']), /unknown persistence mode/);
});

test('median of odd and even counts', () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 3, 2]), 2.5);
});

test('tiny matrix against redis-server only: tables, CSV, HTML', { skip: peerBinary() === null && 'no redis-server on PATH' }, async () => {
  const out = mkdtempSync(join(tmpdir(), 'matrix-test-'));
  try {
    const m = parseMatrixArgs(['--only', 'redis', '--peer-modes', 'none,aof-everysec', '-n', '1000', '-c', '4', '-t', 'set,get', '--repetitions', '2', '--out-dir', out]);
    const report = await runMatrix(m, () => undefined);
    assert.equal(report.configs.length, 2);
    for (const c of report.configs) {
      for (const t of ['SET', 'GET']) {
        const s = cell(c, t);
        assert.ok(s.ok, `${c.name} ${t}: ${s.why}`);
        assert.equal(s.n, 2, JSON.stringify(c.results.get(t)));
        assert.ok(s.min <= s.median && s.median <= s.max);
      }
    }
    const md = renderMarkdown(report);
    assert.match(md, /\| SET \| \w+\/none \| [\d,]+ \| [\d,]+–[\d,]+ \| \d+\.\d{3} \| \d+\.\d{3} \| 2 \|/);
    assert.match(md, /\| Bounded loss \| postresp\/logged-async ↔ \w+\/aof-everysec \| PostRESP not run \|/);
    assert.match(md, /-server --port \d+ --bind 127\.0\.0\.1 --dir \S+ --daemonize no --save '' --appendonly yes --appendfsync everysec/);
    assert.match(md, /- Machine: \d+ × /);
    const csv = renderCsv(report).trim().split('\n');
    assert.equal(csv.length, 1 + 2 * 2);
    assert.match(csv[1], /^"SET","\w+\/none","\d+\.\d\d","\d+\.\d\d","\d+\.\d\d","\d+\.\d{3}","\d+\.\d{3}","2","ok"$/);
    const { paths } = writeMatrixReport(report, out);
    assert.deepEqual(readdirSync(out).sort(), paths.map((p) => p.slice(out.length + 1)).sort());
    assert.match(readFileSync(paths[2], 'utf8'), /<svg/);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test('a PostRESP that cannot start is reported as failed and the matrix continues', { skip: peerBinary() === null && 'no redis-server on PATH' }, async () => {
  const out = mkdtempSync(join(tmpdir(), 'matrix-test-'));
  const saved = process.env.POSTRESP_ENTRY;
  process.env.POSTRESP_ENTRY = join(out, 'missing-main.js');
  try {
    const m = parseMatrixArgs(['--quick', '--pairing', 'volatile', '-n', '500', '-c', '2', '-t', 'get', '--out-dir', out]);
    const report = await runMatrix(m, () => undefined);
    const [pg, peer] = report.configs;
    assert.equal(pg.server, null);
    assert.match(pg.failure ?? '', /not built/);
    assert.ok(cell(peer, 'GET').ok);
    assert.match(renderMarkdown(report), /\| GET \| postresp\/unlogged \| failed to start: /);
  } finally {
    if (saved === undefined) delete process.env.POSTRESP_ENTRY;
    else process.env.POSTRESP_ENTRY = saved;
    rmSync(out, { recursive: true, force: true });
  }
});
