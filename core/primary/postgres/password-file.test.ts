import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { applyPasswordFile } from './password-file';

test('--pg-password-file: first line becomes PGPASSWORD; missing or empty files are errors', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'postresp-pwfile-'));
  try {
    const file = path.join(dir, 'pw');
    fs.writeFileSync(file, 's3 cr:et\n');
    const env: NodeJS.ProcessEnv = { PGPASSWORD: 'old' };
    applyPasswordFile(file, env);
    assert.equal(env.PGPASSWORD, 's3 cr:et');
    applyPasswordFile('', env);
    assert.equal(env.PGPASSWORD, 's3 cr:et');
    assert.throws(() => applyPasswordFile(path.join(dir, 'none'), env), /cannot read --pg-password-file .*ENOENT/);
    fs.writeFileSync(file, '\n');
    assert.throws(() => applyPasswordFile(file, env), /is empty/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
