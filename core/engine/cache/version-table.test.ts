import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { NearCache } from './near-cache';
import { VersionTable, newVersionBuffer } from './version-table';
import { CacheArena, newCacheArena } from './arena';
import { ReadOp } from '../ops';

const kString = 0;

/**
 * The hit path reads the version table with plain loads (version-table.ts version()): a bump made
 * on another thread before that thread said so (a message, as a writer's reply precedes the
 * reader's next request) must be seen by the next lookup, and the entry filled before it must
 * not be served.
 */
describe('VersionTable plain reads', () => {
  it('a bump, an epoch move and turning off on another thread are seen by the next lookup after its message', async () => {
    const sab = newVersionBuffer(1 << 16);
    const table = new VersionTable(sab);
    const cache = new NearCache(table, new CacheArena(newCacheArena(1 << 20), 1), 64 * 1024);
    const key = Buffer.from('k');
    const value = Buffer.from('v1');
    const get = (): boolean => {
      const op = new ReadOp(0, key, null, (_type, v) => v);
      if (cache.serve(op)) return true;
      if (op.cache !== null) cache.fill(0, key, kString, value, 0, op.cacheVersion, op.cacheEpoch);
      return false;
    };
    const code = `
      const { workerData, parentPort } = require('node:worker_threads');
      const { VersionTable } = require(${JSON.stringify(require.resolve('./version-table'))});
      const t = new VersionTable(workerData.sab);
      parentPort.on('message', (what) => {
        if (what === 'bump') t.bump(0, Buffer.from('k'));
        else if (what === 'epoch') t.bumpEpoch();
        else if (what === 'off') t.setEnabled(false);
        else return process.exit(0);
        parentPort.postMessage(what);
      });`;
    const w = new Worker(code, { eval: true, workerData: { sab } });
    const ask = (what: string): Promise<unknown> => new Promise((resolve) => {
      w.once('message', resolve);
      w.postMessage(what);
    });
    try {
      for (let round = 0; round < 200; round++) {
        const what = round === 199 ? 'off' : round % 5 === 4 ? 'epoch' : 'bump';
        // filled (the second miss is admitted), then a hit
        for (let i = 0; i < 3 && !get(); i++);
        assert.equal(get(), true, `round ${round}: cached`);
        const before = table.version(table.slotOf(table.hash(0, key)));
        await ask(what);
        assert.equal(get(), false, `round ${round}: served after the other thread's ${what}`);
        if (what === 'bump') assert.equal(table.version(table.slotOf(table.hash(0, key))), before + 1);
      }
      assert.equal(table.enabled, false);
    } finally {
      await w.terminate();
    }
  });
});
