#!/usr/bin/env node
// The read cache's hit path alone, in one thread (docs/BENCHMARKS.md "A cache hit at a PING's cost"):
// NearCache.serve of warm GETs, CPU ns per hit (process.cpuUsage), no sockets, no Postgres.
// usage: node scripts/bench/hit-path.js TREE [KEYS VALUE_BYTES HITS CACHE_MB]  (defaults 100000 1024 2000000 256)
const tree = require('path').resolve(process.argv[2] || '.');
const [keys, size, hits, mb] = [3, 4, 5, 6].map((i, j) => Number(process.argv[i] || [100000, 1024, 2000000, 256][j]));
const { NearCache } = require(`${tree}/dist/core/engine/cache/near-cache`);
const { VersionTable, newVersionBuffer } = require(`${tree}/dist/core/engine/cache/version-table`);
const { CacheArena, newCacheArena } = require(`${tree}/dist/core/engine/cache/arena`);
const { ReadOp } = require(`${tree}/dist/core/engine/ops`);
const table = new VersionTable(newVersionBuffer());
const cache = new NearCache(table, new CacheArena(newCacheArena(mb << 20), 1), 64 * 1024);
const names = [];
for (let i = 0; i < keys; i++) names.push(Buffer.from('key:' + String(i).padStart(12, '0')));
const value = Buffer.alloc(size, 'x');
const reply = (_t, v) => v;
for (let r = 0; r < 3; r++) for (const k of names) {
  const op = new ReadOp(0, k, null, reply);
  if (!cache.serve(op) && op.cache !== null) cache.fill(0, k, 0, value, 0, op.cacheVersion, op.cacheEpoch);
}
let x = 1, served = 0, sink = 0;
const t0 = process.cpuUsage();
for (let i = 0; i < hits; i++) {
  x = (Math.imul(x, 1103515245) + 12345) >>> 0;
  const op = new ReadOp(0, names[x % keys], null, reply);
  if (cache.serve(op)) { served++; sink += op.value.length; }
}
const t = process.cpuUsage(t0);
console.log(JSON.stringify({ tree, keys, size, hits, served, nsPerHit: +(((t.user + t.system) * 1000) / hits).toFixed(1), sink }));
