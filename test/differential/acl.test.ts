/**
 * Differential: ACL against redis-server 7.0.15 in the same run. Random ACL SETUSER rule strings
 * (fixed seeds) and then, as that user, commands whose replies and NOPERM errors must match byte
 * for byte; ACL DRYRUN for the same lines; each user's ACL LIST line; the ACL LOG entries.
 *
 * ACL LIST's single-command rules are compared as a set: Redis prints them in the order of its
 * command dict, which a hash seed drawn at each start decides (core/acl/describe.ts). %W~ patterns
 * are left out: Redis gives each key of each command its own flags, we judge by the command's
 * (core/acl/check.ts says how).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Oracle, report, type Cmd } from './oracle';
import { Rng } from './prng';
import { RawClient, type Value } from '../e2e/resp-client';

const kRules = [
  '+@read', '-@read', '+@write', '-@write', '+@string', '-@string', '+@hash', '-@hash', '+@keyspace', '-@keyspace',
  '-@dangerous', '+@fast', '-@slow', '+@all', '-@all', 'allcommands', 'nocommands', '+get', '-get', '+set', '-set',
  '+hget', '+mget', '+del', '+exists', '+config|get', '-config', '+client|id', '+select|1', '+publish', '+subscribe',
  '+psubscribe', '~k*', '%R~r*', 'allkeys', 'resetkeys', '&ch*', 'allchannels', 'resetchannels', '(~s* +set +get)',
  '(+@hash ~h*)', '+nosuch', '%~x', '-@nosuch', '+get|x', '+config|get|x', '#abc', 'clearselectors', 'off', 'on',
];

const kCommands: Cmd[] = [
  ['GET', 'k1'], ['GET', 'r1'], ['GET', 'x1'], ['SET', 'k1', 'v'], ['SET', 'r1', 'v'], ['SET', 's1', 'v'], ['GET', 's1'],
  ['HGET', 'h1', 'f'], ['HSET', 'h1', 'f', 'v'], ['MGET', 'k1', 'r1'], ['MGET', 'k1', 'x1'], ['DEL', 'k1'], ['EXISTS', 'r2'],
  ['PING'], ['ECHO', 'e'], ['SELECT', '1'], ['SELECT', '0'], ['CLIENT', 'ID'], ['CONFIG', 'GET', 'maxmemory'],
  ['PUBLISH', 'ch1', 'm'], ['PUBLISH', 'other', 'm'], ['INCR', 'k2'], ['APPEND', 'r3', 'x'], ['STRLEN', 'r1'],
  ['ACL', 'WHOAMI'], ['LPUSH', 'k3', 'a'],
];

function ruleSet(rng: Rng): string[] {
  const n = rng.between(1, 6);
  return Array.from({ length: n }, () => rng.pick(kRules)).flatMap((r) => r.startsWith('(') ? r.split(' ') : [r]);
}

/** ACL LIST with each user's single-command rules sorted (their order is Redis's hash order) */
function normalised(lines: Value): string[] {
  return (lines as string[]).map((line) => line.replace(/((?:^| )[+-]@\w+)((?: [+-][a-z|0-9]+(?![@\w]))+)/g,
    (_m, head: string, singles: string) => head + ' ' + singles.trim().split(' ').sort().join(' ')));
}

function singles(line: string | undefined): number {
  return line === undefined ? 0 : (line.match(/ [+-](?!@)[a-z]/g) ?? []).length;
}

/** redis's line for the same user as ours */
function redisLine(list: string[], ours: string): string | undefined {
  const user = ours.split(' ')[1];
  return list.find((l) => l.split(' ')[1] === user);
}

let oracle: Oracle;
before(async () => { oracle = await Oracle.start(['--workers', '1', '--storage-mode', 'unlogged']); });
after(async () => { await oracle?.stop(); });

describe('ACL against redis-server', () => {
  for (const seed of [1901, 1902, 1903, 1904]) {
    it(`seed ${seed}: SETUSER replies, NOPERM errors, DRYRUN, ACL LIST, ACL LOG`, async () => {
      const rng = new Rng(seed);
      const sessions: Cmd[][] = [];
      for (let u = 0; u < 6; u++) {
        const name = `u${seed}_${u}`;
        const s: Cmd[] = [['ACL', 'SETUSER', name, 'reset', 'on', 'nopass']];
        for (let k = 0; k < 3; k++) s.push(['ACL', 'SETUSER', name, ...ruleSet(rng)]);
        s.push(['ACL', 'SETUSER', name, 'on', 'nopass']);
        const lines = Array.from({ length: 10 }, () => rng.pick(kCommands));
        for (const line of lines) s.push(['ACL', 'DRYRUN', name, ...line]);
        s.push(['AUTH', name, 'any'], ...lines, ['AUTH', 'default', 'x']);
        sessions.push(s);
      }
      await Promise.all([oracle.redis.port, oracle.postresp.port].map(async (port) => {
        const c = await RawClient.connect(port);
        await c.call('ACL', 'LOG', 'RESET');
        c.close();
      }));
      const r = await oracle.compare(sessions);
      assert.equal(r.mismatches.length, 0, report('acl', seed, r));
      const [redis, ours] = await Promise.all([oracle.redis.port, oracle.postresp.port].map(async (port) => {
        const c = await RawClient.connect(port);
        const list = await c.call('ACL', 'LIST');
        const log = (await c.call('ACL', 'LOG', '200')) as Value[][];
        c.close();
        // age-seconds and client-info are the server's own. Which entries group depends on how the
        // concurrent sessions interleave (Redis groups with the newest 10 only): counts are summed
        const sums = new Map<string, number>();
        for (const e of log) {
          const k = e.slice(2, 10).join(' ');
          sums.set(k, (sums.get(k) ?? 0) + Number(e[1]));
        }
        const entries = [...sums].map(([k, n]) => `${k} ×${n}`).sort();
        return { list: normalised(list), entries };
      }));
      // Redis chooses the categories of a description by how many of their commands a user has
      // (describe.ts); Redis has ~240 commands we lack, so where its line lists many single
      // commands its counts and ours lead to different (equivalent) rules. Lines are compared
      // where Redis's has at most 4 single-command rules; at least half of them must be.
      const comparable = redis.list.filter((l) => singles(l) <= 4);
      assert.ok(comparable.length * 2 >= redis.list.length, `${comparable.length} of ${redis.list.length} comparable`);
      assert.deepEqual(ours.list.filter((l) => singles(redisLine(redis.list, l)) <= 4), comparable);
      assert.deepEqual(ours.entries, redis.entries);
    });
  }
});
