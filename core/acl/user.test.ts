/**
 * The rules model against strings redis-server 7.0.15 printed for the same rules (ACL LIST);
 * single-command rules in our table's order (Redis's follows a per-process hash seed, describe.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { allCommands } from '../engine/commands/index';
import { AclCommandIndex } from './command-index';
import { User } from './user';
import { UserRegistry } from './registry';
import { checkUser, kAclOk, kDeniedChannel, kDeniedCmd, kDeniedKey, type AclVerdict } from './check';

const index = new AclCommandIndex(allCommands());

function described(rules: string[]): string {
  const r = new User('t', index).withRules(rules);
  assert.equal(typeof r, 'object', String(r));
  return (r as User).describe();
}

test('rule strings print as redis-server 7.0.15 prints them', () => {
  const cases: [string, string][] = [
    ['', 'off resetchannels -@all'],
    ['reset +@all -config +config|get -client', 'off sanitize-payload resetchannels +@all -client -config +config|get'],
    ['reset +@all -config +config', 'off sanitize-payload resetchannels +@all'],
    ['reset -@all +@slow +config', 'off sanitize-payload resetchannels -@all +@slow'],
    ['reset -@all -config +config', 'off sanitize-payload resetchannels -@all +config'],
    ['reset -@all +client|list +client', 'off sanitize-payload resetchannels -@all +client'],
    ['reset +@all -@all +get ~a %R~a %W~a &a &a +debug|x +debug|y -@all', 'off sanitize-payload ~a resetchannels &a -@all'],
    ['on allkeys allchannels +@all', 'on ~* &* +@all'],
    ['%R', 'off %R~ resetchannels -@all'],
    ['on >p1 %R~a* ~b %W~c &ch* +get +@read -get +select|0 (~x +set)',
      'on #f64551fcd6f07823cb87971cfb91446425da18286b3ab1ef935e0cbd7a69f68a %R~a* ~b %W~c resetchannels &ch* -@all +@read +select|0 -get (~x resetchannels -@all +set)'],
    ['(~a +get) allkeys', 'off ~* resetchannels -@all (~a resetchannels -@all +get)'],
  ];
  for (const [rules, want] of cases) assert.equal(described(rules === '' ? [] : rules.split(' ')), want, rules);
});

test('SETUSER errors in Redis words, and nothing changes on error', () => {
  const u = new User('t', index);
  const cases: [string[], string][] = [
    [['%~a'], "Error in ACL SETUSER modifier '%~a': Syntax error"],
    [['+config|get|x'], "Error in ACL SETUSER modifier '+config|get|x': Allowing first-arg of a subcommand is not supported"],
    [['+get|'], "Error in ACL SETUSER modifier '+get|': Syntax error"],
    [['+nosuch'], "Error in ACL SETUSER modifier '+nosuch': Unknown command or category name in ACL"],
    [['#abc'], "Error in ACL SETUSER modifier '#abc': The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters"],
    [['<abc'], "Error in ACL SETUSER modifier '<abc': The password you are trying to remove from the user does not exist"],
    [['&*', '&a'], "Error in ACL SETUSER modifier '&a': Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have any effect. Try 'resetchannels' to start with an empty list of channels"],
    [['(', '~a'], "Unmatched parenthesis in acl selector starting at '('."],
  ];
  for (const [rules, want] of cases) assert.equal(u.withRules(rules), want);
  assert.equal(u.describe(), 'off resetchannels -@all');
});

test('checks: commands, first args, keys, channels, selectors', () => {
  const reg = new UserRegistry(index);
  const v: AclVerdict = { code: 0, pos: 0 };
  reg.apply({ op: 'setuser', name: 'u', rules: ['on', 'nopass', '+get', '+set', '+select|0', '%R~r*', '~rw*', '&news.*', '+publish', '+psubscribe', '(+mget ~m*)'] });
  const u = reg.users.get('u')!;
  const run = (...a: string[]) => {
    const argv = a.map((x) => Buffer.from(x));
    const spec = [...index.byId].find((c) => c.spec.name === a[0].toLowerCase())!;
    return checkUser(u, spec, argv, v);
  };
  assert.equal(run('get', 'r1'), kAclOk);
  assert.equal(run('set', 'r1', 'v'), kDeniedKey);
  assert.equal(run('set', 'rw1', 'v'), kAclOk);
  assert.equal(run('del', 'rw1'), kDeniedCmd);
  assert.equal(run('select', '0'), kAclOk);
  assert.equal(run('select', '1'), kDeniedCmd);
  assert.equal(run('publish', 'news.a', 'x'), kAclOk);
  assert.equal(run('publish', 'other', 'x'), kDeniedChannel);
  assert.equal(run('psubscribe', 'news.*'), kAclOk);
  assert.equal(run('psubscribe', 'news.a'), kDeniedChannel);
  assert.equal(run('mget', 'm1', 'm2'), kAclOk);
  assert.equal(run('mget', 'm1', 'x'), kDeniedKey);
  assert.equal(v.pos, 2);
  assert.ok(reg.users.get('default')!.full);
  assert.ok(!u.full);
});

test("sync to another instance's users: deleted users close; changed ones in place, or closed when changes were missed", () => {
  const start = ['user default on nopass ~* &* +@all', 'user a on nopass ~a* +get', 'user b on nopass ~b* +get', 'user c on nopass +ping'];
  const changed = ['user default on >pw ~* &* +@all', 'user a on nopass ~a* +get +set', 'user c on nopass +ping', 'user d on nopass +ping'];
  for (const close of [false, true]) {
    const reg = new UserRegistry(index);
    reg.apply({ op: 'load', lines: start });
    const [d, a, b, c] = ['default', 'a', 'b', 'c'].map((n) => reg.users.get(n)!);
    const gone = reg.apply({ op: 'sync', lines: changed, close });
    assert.deepEqual(gone.map((u) => u.name).sort(), close ? ['a', 'b'] : ['b']);
    assert.deepEqual([...reg.users.keys()].sort(), ['a', 'c', 'd', 'default']);
    assert.equal(reg.users.get('default'), d, 'the default user is never replaced');
    assert.ok(!d.nopass);
    assert.equal(reg.users.get('a') === a, !close);
    assert.match(reg.users.get('a')!.describe(), /\+set/);
    assert.equal(reg.users.get('c'), c, 'unchanged: the same object, its clients stay');
    assert.ok(!reg.users.has('b') && b.name === 'b');
  }
});
