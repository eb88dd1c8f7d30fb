/**
 * Differential: DUMP and RESTORE of streams against redis-server 7.0.15. Random streams (fixed
 * seed; nodes of 4 entries) with groups, consumers, pending entries, claims, XDEL and trims are
 * built on both servers with the same commands; each server's DUMP is RESTOREd by the other and
 * the copy must read as the original (XINFO STREAM FULL, XRANGE, XINFO GROUPS, XPENDING without
 * the idle column, XINFO CONSUMERS without idle), then take the same XADD / XTRIM afterwards.
 * Where no entry was deleted inside a node, redis-server's payload RESTOREd here DUMPs back byte
 * for byte (rdbcompression off there: we write no LZF), and with no group (no clock) our own
 * DUMP of the same history is redis-server's. redis-server loads ours with
 * sanitize-dump-payload yes. Then Redis 6.2's payload of the 7.0
 * suite, and truncated and bit-flipped payloads: an error and no key, or a readable key.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { crc64 } from '../../core/engine/commands/dump/crc64';
import type { RawClient, Value } from '../e2e/resp-client';
import { Rng } from './prng';
import { serverPair } from './server-pair';

const kSeed = Number(process.env.DUMP_STREAM_SEED ?? 20_2026);
const kKeys = 12;

const both = serverPair(async ({ r, p }) => {
  for (const c of [r, p]) await c.call('CONFIG', 'SET', 'stream-node-max-entries', '4');
  await r.call('CONFIG', 'SET', 'rdbcompression', 'no');
  // redis-server checks our payloads as deeply as it can (listpack entries, counts, PEL owners)
  await r.call('CONFIG', 'SET', 'sanitize-dump-payload', 'yes');
});


const bytes = (v: Value): Buffer => Buffer.from(v as string, 'latin1');
const resealed = (body: Buffer): Buffer => Buffer.concat([body, crc64(body)]);

/**
 * the commands that build one stream; `tombstones` false: no XDEL, no exact trim; `groups`
 * false: no group (no clock in the payload)
 */
function history(rng: Rng, key: string, tombstones: boolean, withGroups: boolean): string[][] {
  const cmds: string[][] = [];
  const ids: string[] = [];
  const groups: string[] = [];
  let ms = 1 + rng.int(3);
  let seq = 0;
  const values = ['1', '-5', '300', '70000', '-9223372036854775808', '012', 'x', '', 'v'.repeat(70), 'w'.repeat(5000)];
  let fields = ['f', 'g'];
  for (let step = rng.between(5, 40); step > 0; step--) {
    const what = rng.int(10);
    if (what < 5 || ids.length === 0) {
      if (rng.chance(0.5)) { ms += 1 + rng.int(1000); seq = rng.int(3); } else seq += 1 + rng.int(2);
      if (rng.chance(0.2)) fields = rng.pick([['f'], ['f', 'g'], ['a', '7', 'b'], ['12', 'n']]);
      const id = `${ms}-${seq}`;
      ids.push(id);
      cmds.push(['XADD', key, id, ...fields.flatMap((f) => [f, rng.pick(values.slice(0, tombstones ? 10 : 9))])]);
    } else if (what === 5 && groups.length < 3 && withGroups) {
      const g = `g${groups.length}${rng.pick(['', '-long-name-of-a-group', '5'])}`;
      groups.push(g);
      const start = rng.pick(['0', '$', rng.pick(ids)]);
      cmds.push(['XGROUP', 'CREATE', key, g, start, ...(rng.chance(0.3) ? ['ENTRIESREAD', String(rng.int(5))] : [])]);
    } else if (what === 6 && groups.length > 0) {
      cmds.push(['XREADGROUP', 'GROUP', rng.pick(groups), rng.pick(['alice', 'bob', '42']), 'COUNT', String(1 + rng.int(4)),
        'STREAMS', key, '>']);
    } else if (what === 7 && groups.length > 0) {
      cmds.push(rng.chance(0.5) ? ['XACK', key, rng.pick(groups), rng.pick(ids), rng.pick(ids)]
        : ['XCLAIM', key, rng.pick(groups), rng.pick(['carol', 'bob']), '0', rng.pick(ids), rng.pick(ids)]);
    } else if (what === 8) {
      if (tombstones && rng.chance(0.6)) cmds.push(['XDEL', key, rng.pick(ids), rng.pick(ids)]);
      else cmds.push(['XTRIM', key, 'MAXLEN', tombstones ? rng.pick(['~', '=']) : '~', String(rng.int(ids.length + 1))]);
    } else if (groups.length > 0) {
      cmds.push(rng.chance(0.5) ? ['XGROUP', 'CREATECONSUMER', key, rng.pick(groups), 'dave']
        : ['XGROUP', 'SETID', key, rng.pick(groups), rng.pick(['0', '$', rng.pick(ids)])]);
    }
  }
  return cmds;
}

/** XINFO STREAM FULL without radix-tree-nodes (not modelled here: docs/streams.md) */
async function info(c: RawClient, key: string): Promise<string> {
  const v = await c.call('XINFO', 'STREAM', key, 'FULL', 'COUNT', '0') as Value[];
  const i = v.indexOf('radix-tree-nodes');
  return JSON.stringify(i < 0 ? v : [...v.slice(0, i), ...v.slice(i + 2)]);
}

/** what a copy must show as its original: every read that depends on no clock */
async function state(c: RawClient, key: string): Promise<string> {
  const out: Value[] = [await info(c, key), await c.call('XRANGE', key, '-', '+'), await c.call('XINFO', 'GROUPS', key)];
  for (const g of (out[2] as Value[][]).map((x) => x[1] as string)) {
    out.push(((await c.call('XPENDING', key, g, '-', '+', '1000')) as Value[][]).map((x) => [x[0], x[1], x[3]]));
    out.push(((await c.call('XINFO', 'CONSUMERS', key, g)) as Value[][]).map((x) => [x[1], x[3]]));
  }
  return JSON.stringify(out);
}

describe('DUMP / RESTORE of streams vs redis-server', () => {
  it(`random streams DUMPed by either server RESTORE on the other as the same stream (seed ${kSeed})`, async () => {
    const { r, p } = both;
    await Promise.all([r.call('FLUSHALL'), p.call('FLUSHALL')]);
    const rng = new Rng(kSeed);
    let sameBytes = 0;
    for (let k = 0; k < kKeys; k++) {
      const key = `s${k}`;
      const tombstones = k % 2 === 1;
      const cmds = history(rng.fork(key), key, tombstones, k % 4 !== 0);
      for (const c of cmds) {
        const [a, b] = [await r.call(...c), await p.call(...c)];
        if (c[0] !== 'XREADGROUP' && c[0] !== 'XCLAIM') assert.deepEqual(b, a, `seed ${kSeed}: ${c.join(' ')}`);
      }
      const fromRedis = bytes(await r.call('DUMP', key));
      const fromUs = bytes(await p.call('DUMP', key));
      assert.equal(await p.call('RESTORE', `${key}:r`, '0', fromRedis), 'OK', `seed ${kSeed} ${key}: redis-server's DUMP here`);
      assert.equal(await r.call('RESTORE', `${key}:p`, '0', fromUs), 'OK', `seed ${kSeed} ${key}: our DUMP on redis-server`);
      const history_ = `seed ${kSeed} ${key}:\n${cmds.map((c) => c.join(' ')).join('\n')}`;
      assert.equal(await state(p, `${key}:r`), await state(r, key), `restored here ≠ redis-server's original, ${history_}`);
      assert.equal(await state(r, `${key}:p`), await state(p, key), `restored by redis-server ≠ ours, ${history_}`);
      const again = bytes(await p.call('DUMP', `${key}:r`));
      if (!tombstones) assert.ok(again.equals(fromRedis), `redis-server's payload DUMPs back byte for byte, ${history_}`);
      if (again.equals(fromRedis)) sameBytes++;
      // with no clock in it, our own DUMP of the same history is redis-server's, node for node
      if (k % 4 === 0) assert.ok(fromUs.equals(fromRedis), `our DUMP byte for byte, ${history_}`);
      // the copies go on as the originals: new entries join the restored last node, ~ trims whole nodes
      const more = [['XADD', '', '99999999-1', 'f', 'v'], ['XADD', '', '99999999-2', 'f', 'v'], ['XTRIM', '', 'MAXLEN', '~', '3']];
      for (const m of more) {
        const on = (k2: string) => m.map((x) => (x === '' ? k2 : x));
        assert.deepEqual(await p.call(...on(`${key}:r`)), await r.call(...on(key)), `${m.join(' ')} after RESTORE, ${history_}`);
      }
      assert.equal(await info(p, `${key}:r`), await info(r, key), `after more writes, ${history_}`);
    }
    assert.ok(sameBytes >= kKeys / 2, `${sameBytes} of ${kKeys} payloads byte for byte`);
  });

  it('RESTOREs the 7.0 suite\'s Redis 6.2 payload (type 15) as redis-server does', async () => {
    const { r, p } = both;
    // unit/type/stream-cgroups "Loading from legacy (Redis <= v6.2.x, rdb_ver < 10) persistence"
    const legacy = Buffer.from([
      '0F011000000000000000010000000000000000C3404A40571657000000230002010401010184646174610500010301002001038161020420',
      '0A0001400A0062600A0002400A0063600A4022018164200A4039200A0065600A0005400A0066200A00FF0206000202673105000400000000',
      '0000000100000000000000003EF783437A01000001000000000000000200000000000000003EF783437A0100000100000000000000040000',
      '0000000000003EF783437A01000001000000000000000500000000000000003EF783437A0100000101036331313EF783437A010000040000',
      '0000000000010000000000000000000000000000000200000000000000000000000000000004000000000000000000000000000000050000',
      '0000000000000267320000000009003D52EF6867521DFA',
    ].join(''), 'hex');
    for (const c of [r, p]) {
      await c.call('DEL', 'x');
      assert.equal(await c.call('RESTORE', 'x', '0', legacy), 'OK');
    }
    assert.equal(await state(p, 'x'), await state(r, 'x'));
  });

  it('options and errors as for other types; a broken payload is an error and writes nothing', async () => {
    const { r, p } = both;
    await Promise.all([r.call('FLUSHALL'), p.call('FLUSHALL')]);
    for (const c of [r, p]) {
      await c.call('XADD', 'src', '1-1', 'f', 'v');
      await c.call('XADD', 'src', '2-1', 'f', 'w', 'x', '1');
      await c.call('XGROUP', 'CREATE', 'src', 'g', '0');
      await c.call('XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', 'src', '>');
      await c.call('SET', 'str', 'v');
    }
    const good = bytes(await r.call('DUMP', 'src'));
    const cases: (string | Buffer)[][] = [
      ['RESTORE', 'str', '0', good], ['RESTORE', 'str', '0', good, 'REPLACE'], ['TYPE', 'str'], ['XLEN', 'str'],
      ['RESTORE', 'k', '0', good, 'IDLETIME', '10'], ['RESTORE', 'k', '0', good, 'FREQ', '300'], ['EXISTS', 'k'],
      ['RESTORE', 'k', '100000', good, 'FREQ', '3'], ['PTTL', 'k'], ['RESTORE', 'k', '1', good, 'REPLACE', 'ABSTTL'], ['EXISTS', 'k'],
      ['RESTORE', 'k', '0', Buffer.concat([good.subarray(0, 20), good.subarray(21)])], ['EXISTS', 'k'],
      ['RESTORE', 'k', '0', resealed(good.subarray(0, 30))], ['EXISTS', 'k'],
      // an empty stream (XGROUP CREATE MKSTREAM) and one whose entries were all deleted
      ['XGROUP', 'CREATE', 'empty', 'g', '$', 'MKSTREAM'], ['XADD', 'gone', '5-5', 'a', 'b'], ['XDEL', 'gone', '5-5'],
      // listpack entries of 127/128 and 16382/16383/16384 bytes: the back-length's boundaries
      ...[125, 126, 127, 16376, 16377, 16378, 16379].map((n, i) => ['XADD', 'edges', `1-${i + 1}`, 'f', 'e'.repeat(n), 'g', 'x']),
    ];
    const failures: string[] = [];
    for (const c of cases) {
      const [a, b] = [await r.call(...c), await p.call(...c)];
      if (JSON.stringify(a) !== JSON.stringify(b)) failures.push(`${c.map((x) => String(x).slice(0, 12)).join(' ')}: redis-server ${JSON.stringify(a)}, here ${JSON.stringify(b)}`);
    }
    assert.deepEqual(failures, []);
    for (const key of ['empty', 'gone', 'edges']) {
      assert.equal(await p.call('RESTORE', `${key}:r`, '0', bytes(await r.call('DUMP', key))), 'OK');
      assert.equal(await r.call('RESTORE', `${key}:p`, '0', bytes(await p.call('DUMP', key))), 'OK');
      assert.equal(await state(p, `${key}:r`), await state(r, key), key);
      assert.equal(await state(r, `${key}:p`), await state(p, key), key);
    }
  });

  it('fuzz: truncated and bit-flipped payloads (checksum made right) never crash or leave half a key', async () => {
    const { r, p } = both;
    const rng = new Rng(kSeed + 1);
    for (let i = 1; i <= 9; i++) await r.call('XADD', 'fz:src', `${i}-${i}`, 'f', String(i * 100), ...(i % 3 ? [] : ['g', 'x']));
    await r.call('XDEL', 'fz:src', '2-2');
    await r.call('XGROUP', 'CREATE', 'fz:src', 'grp', '0');
    await r.call('XREADGROUP', 'GROUP', 'grp', 'c1', 'COUNT', '3', 'STREAMS', 'fz:src', '>');
    await r.call('XREADGROUP', 'GROUP', 'grp', 'c2', 'COUNT', '2', 'STREAMS', 'fz:src', '>');
    const good = bytes(await r.call('DUMP', 'fz:src'));
    const body = good.subarray(0, good.length - 8);
    let refused = 0;
    for (let n = 0; n < 300; n++) {
      let b: Buffer;
      if (n % 3 === 0) b = Buffer.concat([body.subarray(0, rng.int(body.length - 2)), body.subarray(body.length - 2)]);
      else { b = Buffer.from(body); b[rng.int(b.length - 2)] ^= 1 << rng.int(8); }
      const reply = await p.call('RESTORE', 'fz', '0', resealed(b), 'REPLACE');
      if (reply === 'OK') {
        assert.equal(typeof (await p.call('XINFO', 'STREAM', 'fz', 'FULL')), 'object');
        assert.equal(typeof (await p.call('DUMP', 'fz')), 'string');
      } else {
        refused++;
        assert.deepEqual(reply, { error: 'ERR Bad data format' }, `payload ${resealed(b).toString('hex')}`);
        assert.equal(await p.call('EXISTS', 'fz'), 0);
      }
      await p.call('DEL', 'fz');
    }
    assert.ok(refused > 150, `${refused} of 300 refused`);
    assert.equal(await p.call('PING'), 'PONG');
  });
});
