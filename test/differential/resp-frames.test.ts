/** The byte framer the oracle compares with: every reply type, whole and cut at every byte. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { frameEnd, show } from './resp-frames';

const kFrames = [
  '+OK\r\n', '-ERR syntax error\r\n', ':-42\r\n', '$-1\r\n', '$0\r\n\r\n', '$4\r\na\r\nb\r\n', '*-1\r\n', '*0\r\n',
  '*3\r\n$1\r\na\r\n:1\r\n*1\r\n_\r\n', '_\r\n', '#t\r\n', ',1.5\r\n', '(123456789012345678901234567890\r\n',
  '=8\r\ntxt:abcd\r\n', '!5\r\nERR x\r\n', '%1\r\n+k\r\n*2\r\n:1\r\n:2\r\n', '~2\r\n+a\r\n+b\r\n', '>2\r\n+message\r\n$1\r\nx\r\n',
  '|1\r\n+ttl\r\n:3\r\n$1\r\nv\r\n',
];

describe('frameEnd', () => {
  for (const f of kFrames) {
    it(`frames ${JSON.stringify(f)} whole, and waits at every shorter cut`, () => {
      const b = Buffer.from(f, 'latin1');
      assert.equal(frameEnd(b, 0), b.length);
      const two = Buffer.concat([b, b]);
      assert.equal(frameEnd(two, b.length), two.length);
      for (let n = 0; n < b.length; n++) assert.equal(frameEnd(b.subarray(0, n), 0), -1, `cut at ${n}`);
    });
  }
});

describe('show', () => {
  it('escapes CR, LF, backslash and non-printable bytes', () => {
    assert.equal(show(Buffer.from([0x2b, 0x0d, 0x0a, 0x00, 0xff, 0x5c])), '+\\r\\n\\x00\\xff\\\\');
  });
});
