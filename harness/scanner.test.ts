import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ReplyScanner } from './scanner';

interface Case {
  name: string;
  input: string;
  replies: number;
  errors: number;
  firstError?: string;
}

const cases: Case[] = [
  { name: 'simple string', input: '+OK\r\n', replies: 1, errors: 0 },
  { name: 'several in one chunk', input: '+OK\r\n:1\r\n$3\r\nfoo\r\n$-1\r\n', replies: 4, errors: 0 },
  { name: 'error', input: '-NOAUTH Authentication required.\r\n+OK\r\n', replies: 2, errors: 1, firstError: 'NOAUTH Authentication required.' },
  { name: 'bulk containing CRLF and type bytes', input: '$10\r\n-ERR\r\n*3\r\n\r\n', replies: 1, errors: 0 },
  { name: 'empty bulk', input: '$0\r\n\r\n', replies: 1, errors: 0 },
  { name: 'array of bulks', input: '*3\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n', replies: 1, errors: 0 },
  { name: 'nested arrays', input: '*2\r\n*2\r\n:1\r\n:2\r\n*1\r\n+x\r\n', replies: 1, errors: 0 },
  { name: 'empty and null arrays', input: '*0\r\n*-1\r\n', replies: 2, errors: 0 },
  { name: 'error inside an array is a value, not a failed reply', input: '*2\r\n+OK\r\n-ERR x\r\n', replies: 1, errors: 0 },
  { name: 'RESP3 scalars', input: '_\r\n#t\r\n,3.14\r\n(123456789012345678901234567890\r\n', replies: 4, errors: 0 },
  { name: 'RESP3 verbatim', input: '=15\r\ntxt:Some string\r\n', replies: 1, errors: 0 },
  { name: 'RESP3 blob error', input: '!21\r\nSYNTAX invalid syntax\r\n', replies: 1, errors: 1, firstError: 'SYNTAX invalid syntax' },
  { name: 'RESP3 map', input: '%2\r\n+a\r\n:1\r\n+b\r\n*2\r\n:1\r\n:2\r\n', replies: 1, errors: 0 },
  { name: 'RESP3 set', input: '~2\r\n+a\r\n+b\r\n', replies: 1, errors: 0 },
  { name: 'RESP3 push is out of band', input: '>3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$2\r\nhi\r\n+OK\r\n', replies: 1, errors: 0 },
  { name: 'RESP3 attribute precedes its reply', input: '|1\r\n+key-popularity\r\n%1\r\n$1\r\na\r\n,0.19\r\n*2\r\n:2\r\n:3\r\n', replies: 1, errors: 0 },
  { name: 'attribute inside an array', input: '*2\r\n|1\r\n+ttl\r\n:3600\r\n:1\r\n:2\r\n', replies: 1, errors: 0 },
  { name: 'HELLO 3 style reply', input: '%2\r\n$6\r\nserver\r\n$5\r\nredis\r\n$5\r\nproto\r\n:3\r\n', replies: 1, errors: 0 },
];

for (const c of cases) {
  test(`scanner: ${c.name} (whole)`, () => {
    const s = new ReplyScanner();
    assert.equal(s.feed(Buffer.from(c.input, 'latin1')), c.replies);
    assert.equal(s.errors, c.errors);
    if (c.firstError !== undefined) assert.equal(s.firstError, c.firstError);
  });
  test(`scanner: ${c.name} (byte by byte)`, () => {
    const s = new ReplyScanner();
    const b = Buffer.from(c.input, 'latin1');
    let n = 0;
    for (let i = 0; i < b.length; i++) n += s.feed(b.subarray(i, i + 1));
    assert.equal(n, c.replies);
    assert.equal(s.errors, c.errors);
    if (c.firstError !== undefined) assert.equal(s.firstError, c.firstError);
  });
}

test('scanner: reused read buffer with a length (net onread)', () => {
  const s = new ReplyScanner();
  const buf = Buffer.alloc(64, 0x2b); // stale '+' bytes past the length must be ignored
  buf.write('$5\r\nhel', 0, 'latin1');
  assert.equal(s.feed(buf, 7), 0);
  buf.write('lo\r\n:1\r', 0, 'latin1');
  assert.equal(s.feed(buf, 7), 1);
  buf.write('\n', 0, 'latin1');
  assert.equal(s.feed(buf, 1), 1);
});

test('scanner: large replies split anywhere', () => {
  const parts = ['*600\r\n'];
  for (let i = 0; i < 600; i++) parts.push('$3\r\nxyz\r\n');
  const b = Buffer.from(parts.join('').repeat(3), 'latin1');
  for (const size of [1, 2, 7, 100, 4096]) {
    const s = new ReplyScanner();
    let n = 0;
    for (let i = 0; i < b.length; i += size) n += s.feed(b.subarray(i, i + size));
    assert.equal(n, 3, `chunk size ${size}`);
  }
});

test('scanner: garbage is a protocol error', () => {
  assert.throws(() => new ReplyScanner().feed(Buffer.from('hello\r\n')), /Protocol error/);
  assert.throws(() => new ReplyScanner().feed(Buffer.from('$x\r\n')), /Protocol error/);
});
