// BullMQ's Lua scripts (its prebuilt dist/cjs/scripts, includes already inlined) as a corpus:
// every one must compile in the engine (SCRIPT LOAD) and the corpus must use the libraries the
// engine provides (cmsgpack, cjson, the global unpack). BullMQ runs them with EVALSHA.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { scriptEngine } from '../../core/engine/scripting/engine';

const dir = path.join(path.dirname(require.resolve('bullmq/package.json')), 'dist', 'cjs', 'scripts');

test('every BullMQ script compiles in the engine', () => {
  const engine = scriptEngine();
  const files = fs.readdirSync(dir).filter((f) => /-\d+\.js$/.test(f));
  assert.ok(files.length >= 40, `found ${files.length} scripts in ${dir}`);
  const failed: string[] = [];
  let corpus = '';
  for (const f of files) {
    // eslint-disable-next-line @typescript-eslint/no-var-requires
    const mod = require(path.join(dir, f)) as Record<string, { content: string; keys: number }>;
    const script = Object.values(mod)[0];
    corpus += script.content;
    const r = engine.loadScript(script.content);
    if ('error' in r) failed.push(`${f}: ${r.error}`);
    else assert.equal(r.sha, engine.sha1hex(script.content));
  }
  assert.deepEqual(failed, []);
  for (const lib of ['cmsgpack.unpack', 'cjson.encode', 'unpack(']) assert.ok(corpus.includes(lib), `corpus uses ${lib}`);
});
