// `npm test` = tsc, then this: one PostgreSQL for the whole run (DATABASE_URL if set, else one
// embedded server in a temp folder), then `node --test` over every compiled *.test.js.
//   node dist/scripts/run-tests.js [filter…] [--node-test-flag…]
// A filter keeps the files whose path contains it (`npm test -- protocol`); arguments starting
// with -- go to node --test (e.g. --test-name-pattern=…). POSTRESP_KEEP_TEST_PG=1 keeps the
// embedded data folder (and its log/) for a post-mortem.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describePgUrl } from '../core/primary/postgres/connect';
import { startEmbeddedPostgres, EmbeddedPostgres } from '../core/primary/postgres/embedded';

const kDist = path.resolve(__dirname, '..'); // dist/
const kRoot = path.resolve(kDist, '..');
// 2 cores here: Postgres takes ~1.8 of them under load, so more parallel files only interleave.
const kConcurrency = 2;

function findTests(dir: string, out: string[] = []): string[] {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) findTests(full, out);
    else if (entry.name.endsWith('.test.js')) out.push(full);
  }
  return out;
}

// tsc never deletes outputs: a .test.js whose .test.ts was removed or renamed would still run.
function hasSource(file: string): boolean {
  return fs.existsSync(path.join(kRoot, path.relative(kDist, file).replace(/\.js$/, '.ts')));
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const filters = args.filter((a) => !a.startsWith('--'));
  const nodeFlags = args.filter((a) => a.startsWith('--'));
  const all = findTests(kDist).sort();
  const stale = all.filter((f) => !hasSource(f));
  for (const f of stale) console.log(`run-tests: skipping ${path.relative(kRoot, f)} (its .ts source is gone)`);
  const files = all.filter((f) => hasSource(f) && (filters.length === 0 ||
    filters.some((flt) => path.relative(kDist, f).includes(flt))));
  if (files.length === 0) {
    console.error(`run-tests: no test files under ${path.relative(kRoot, kDist)}/ match ${filters.join(', ') || '(no filter)'}`);
    return 1;
  }

  let embedded: EmbeddedPostgres | undefined;
  let tmp: string | undefined;
  let url = process.env.DATABASE_URL;
  if (url) {
    console.log(`run-tests: PostgreSQL from DATABASE_URL (${describePgUrl(url)})`);
  } else {
    tmp = path.join(os.tmpdir(), `postresp-test-${process.pid}`);
    fs.rmSync(tmp, { recursive: true, force: true });
    fs.mkdirSync(tmp, { recursive: true });
    embedded = await startEmbeddedPostgres({ dataDir: path.join(tmp, 'pg') });
    url = embedded.url;
    console.log(`run-tests: embedded PostgreSQL at 127.0.0.1:${embedded.port}, data ${embedded.dataDir} ` +
      `(started in ${embedded.startMs} ms, initdb ${embedded.initdbMs} ms)`);
  }

  try {
    const child = spawn(process.execPath, ['--test', `--test-concurrency=${kConcurrency}`, ...nodeFlags, ...files], {
      stdio: 'inherit',
      env: { ...process.env, DATABASE_URL: url },
    });
    // Ctrl-C reaches node --test through the terminal's process group; wait for it to finish its
    // report, then clean up below. SIGTERM (CI timeout) is forwarded.
    const onSignal = (sig: NodeJS.Signals) => { child.kill(sig); };
    process.on('SIGINT', () => undefined).on('SIGTERM', onSignal);
    return await new Promise<number>((resolve) => {
      child.on('error', (err) => { console.error(`run-tests: ${err.message}`); resolve(1); });
      child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
    });
  } finally {
    await embedded?.stop();
    if (tmp && process.env.POSTRESP_KEEP_TEST_PG !== '1') fs.rmSync(tmp, { recursive: true, force: true });
    else if (tmp) console.log(`run-tests: kept ${tmp} (POSTRESP_KEEP_TEST_PG=1)`);
  }
}

main().then((code) => process.exit(code), (err) => {
  console.error(`run-tests: ${err instanceof Error ? `${err.message}${'code' in err ? ` [${String(err.code)}]` : ''}` : err}`);
  process.exit(1);
});
