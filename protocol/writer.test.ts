// Exact bytes for every reply type in RESP2 and RESP3; doubles as redis-server 7.0.15 prints them.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ReplyWriter, encodeCommand } from './writer';
import { formatDouble } from './format-double';

function encode(proto: 2 | 3, write: (w: ReplyWriter) => void): string {
  const w = new ReplyWriter();
  w.proto = proto;
  write(w);
  const len = w.length;
  const out = Buffer.concat(w.take());
  assert.equal(out.length, len, 'length matches the bytes taken');
  assert.equal(w.length, 0, 'take() resets');
  return out.toString('latin1');
}

type Case = [string, (w: ReplyWriter) => void, string, string];

const big = Buffer.alloc(20000, 120); // x

const cases: Case[] = [
  ['simple', (w) => w.simple('OK'), '+OK\r\n', '+OK\r\n'],
  ['simple with CR/LF sanitised', (w) => w.simple('a\r\nb'), '+a  b\r\n', '+a  b\r\n'],
  ['error', (w) => w.error('ERR syntax error'), '-ERR syntax error\r\n', '-ERR syntax error\r\n'],
  ['error with newline and UTF-8', (w) => w.error("ERR unknown command 'é\n'"), "-ERR unknown command '\xc3\xa9 '\r\n", "-ERR unknown command '\xc3\xa9 '\r\n"],
  ['raw', (w) => w.raw(Buffer.from('+OK\r\n')), '+OK\r\n', '+OK\r\n'],
  ['integer 0', (w) => w.integer(0), ':0\r\n', ':0\r\n'],
  ['integer 9 and 10', (w) => { w.integer(9); w.integer(10); }, ':9\r\n:10\r\n', ':9\r\n:10\r\n'],
  ['integer -1', (w) => w.integer(-1), ':-1\r\n', ':-1\r\n'],
  ['integer 1234567890', (w) => w.integer(1234567890), ':1234567890\r\n', ':1234567890\r\n'],
  ['integer 2^53-1', (w) => w.integer(Number.MAX_SAFE_INTEGER), ':9007199254740991\r\n', ':9007199254740991\r\n'],
  ['integer -(2^53-1)', (w) => w.integer(-Number.MAX_SAFE_INTEGER), ':-9007199254740991\r\n', ':-9007199254740991\r\n'],
  ['integer 1e20 (unsafe number)', (w) => w.integer(1e20), ':100000000000000000000\r\n', ':100000000000000000000\r\n'],
  ['integer bigint LLONG_MIN', (w) => w.integer(-9223372036854775808n), ':-9223372036854775808\r\n', ':-9223372036854775808\r\n'],
  ['bulk string', (w) => w.bulk('hello'), '$5\r\nhello\r\n', '$5\r\nhello\r\n'],
  ['bulk UTF-8 string counts bytes', (w) => w.bulk('héllo'), '$6\r\nh\xc3\xa9llo\r\n', '$6\r\nh\xc3\xa9llo\r\n'],
  ['bulk long string', (w) => w.bulk('ab'.repeat(300)), `$600\r\n${'ab'.repeat(300)}\r\n`, `$600\r\n${'ab'.repeat(300)}\r\n`],
  ['bulk empty', (w) => w.bulk(''), '$0\r\n\r\n', '$0\r\n\r\n'],
  ['bulk binary Buffer', (w) => w.bulk(Buffer.from([0, 13, 10, 255])), '$4\r\n\0\r\n\xff\r\n', '$4\r\n\0\r\n\xff\r\n'],
  ['bulk null', (w) => w.bulk(null), '$-1\r\n', '_\r\n'],
  ['bulkView', (w) => w.bulkView(big), `$20000\r\n${'x'.repeat(20000)}\r\n`, `$20000\r\n${'x'.repeat(20000)}\r\n`],
  ['array', (w) => { w.array(2); w.bulk('a'); w.integer(1); }, '*2\r\n$1\r\na\r\n:1\r\n', '*2\r\n$1\r\na\r\n:1\r\n'],
  ['empty array', (w) => w.array(0), '*0\r\n', '*0\r\n'],
  ['nullArray', (w) => w.nullArray(), '*-1\r\n', '_\r\n'],
  ['map', (w) => { w.map(1); w.bulk('k'); w.bulk('v'); }, '*2\r\n$1\r\nk\r\n$1\r\nv\r\n', '%1\r\n$1\r\nk\r\n$1\r\nv\r\n'],
  ['set', (w) => { w.set(1); w.bulk('m'); }, '*1\r\n$1\r\nm\r\n', '~1\r\n$1\r\nm\r\n'],
  ['push', (w) => { w.push(2); w.bulk('message'); w.bulk('x'); }, '*2\r\n$7\r\nmessage\r\n$1\r\nx\r\n', '>2\r\n$7\r\nmessage\r\n$1\r\nx\r\n'],
  ['double 1.5', (w) => w.double(1.5), '$3\r\n1.5\r\n', ',1.5\r\n'],
  ['double 3', (w) => w.double(3), '$1\r\n3\r\n', ',3\r\n'],
  ['double 1.1', (w) => w.double(1.1), '$18\r\n1.1000000000000001\r\n', ',1.1000000000000001\r\n'],
  ['double inf', (w) => w.double(Infinity), '$3\r\ninf\r\n', ',inf\r\n'],
  ['double -inf', (w) => w.double(-Infinity), '$4\r\n-inf\r\n', ',-inf\r\n'],
  ['double nan', (w) => w.double(NaN), '$3\r\nnan\r\n', ',nan\r\n'],
  ['boolean true', (w) => w.boolean(true), ':1\r\n', '#t\r\n'],
  ['boolean false', (w) => w.boolean(false), ':0\r\n', '#f\r\n'],
  ['verbatim', (w) => w.verbatim('txt', 'Some string'), '$11\r\nSome string\r\n', '=15\r\ntxt:Some string\r\n'],
  ['verbatim Buffer', (w) => w.verbatim('mkd', Buffer.from('# hi')), '$4\r\n# hi\r\n', '=8\r\nmkd:# hi\r\n'],
  ['bigNumber', (w) => w.bigNumber('3492890328409238509324850943850943825024385'), '$43\r\n3492890328409238509324850943850943825024385\r\n', '(3492890328409238509324850943850943825024385\r\n'],
  ['nullValue', (w) => w.nullValue(), '$-1\r\n', '_\r\n'],
];

describe('ReplyWriter bytes', () => {
  for (const [name, write, resp2, resp3] of cases) {
    test(`${name} (RESP2)`, () => assert.equal(encode(2, write), resp2));
    test(`${name} (RESP3)`, () => assert.equal(encode(3, write), resp3));
  }

  test('integer refuses fractions', () => {
    assert.throws(() => new ReplyWriter().integer(1.5), TypeError);
  });
  test('verbatim format must be 3 characters', () => {
    const w = new ReplyWriter();
    w.proto = 3;
    assert.throws(() => w.verbatim('text', 'x'), TypeError);
  });
});

describe('formatDouble matches redis-server 7.0.15 ZSCORE', () => {
  const observed: [number, string][] = [
    [1.5, '1.5'], [3, '3'], [1.1, '1.1000000000000001'], [0.1, '0.10000000000000001'],
    [1e300, '1.0000000000000001e+300'], [-2.5e-7, '-2.4999999999999999e-07'],
    [123456789012345678, '1.2345678901234568e+17'], [1e17, '1e+17'], [1e16, '10000000000000000'],
    [0.0001, '0.0001'], [0.00001, '1.0000000000000001e-05'], [5e-324, '4.9406564584124654e-324'],
    [1.7976931348623157e308, '1.7976931348623157e+308'], [-0, '0'],
    // ties at the 17th digit round half to even as glibc printf does
    [1125899906842624.25, '1125899906842624.2'], [1125899906842624.75, '1125899906842624.8'],
    [2 ** 56, '72057594037927936'],
  ];
  for (const [x, s] of observed) test(`${x} → ${s}`, () => assert.equal(formatDouble(x), s));
});

describe('buffer ownership', () => {
  test('bytes handed out by take() are never overwritten', () => {
    const w = new ReplyWriter(64);
    w.bulk('first');
    const first = w.take();
    const copy = Buffer.concat(first).toString();
    for (let i = 0; i < 1000; i++) w.bulk(`value-${i}`);
    w.take();
    assert.equal(Buffer.concat(first).toString(), copy);
  });

  test('values of 16 KiB or more go out by reference', () => {
    const w = new ReplyWriter();
    const value = Buffer.alloc(16 * 1024, 1);
    w.bulk('small');
    w.bulk(value);
    w.raw(value);
    const chunks = w.take();
    assert.ok(chunks.includes(value));
    assert.equal(chunks.filter((c) => c === value).length, 2);
    assert.equal(w.length, 0);
  });

  test('smaller values are copied', () => {
    const w = new ReplyWriter();
    const value = Buffer.alloc(100, 1);
    w.bulk(value);
    const chunks = w.take();
    assert.ok(!chunks.includes(value));
    value.fill(2);
    assert.equal(Buffer.concat(chunks).toString('latin1'), `$100\r\n${'\x01'.repeat(100)}\r\n`);
  });

  test('memory stays within about twice what was written', () => {
    const w = new ReplyWriter();
    for (let i = 0; i < 10000; i++) w.bulk('x'.repeat(100));
    const chunks = w.take();
    const written = chunks.reduce((n, c) => n + c.length, 0);
    const slabs = new Set(chunks.map((c) => c.buffer));
    const allocated = [...slabs].reduce((n, b) => n + b.byteLength, 0);
    assert.equal(written, 10000 * 108);
    assert.ok(allocated <= 2 * written, `allocated ${allocated} for ${written}`);
    assert.ok(chunks.length < 40, `${chunks.length} chunks`);
  });

  test('a flush up to 32 KiB is one Buffer, also when it crossed a slab end', () => {
    const w = new ReplyWriter();
    const value = Buffer.alloc(1024, 7);
    for (let round = 0; round < 20; round++) {
      for (let i = 0; i < 16; i++) w.bulk(value);
      const chunks = w.take();
      assert.equal(chunks.length, 1, `round ${round}: ${chunks.length} chunks`);
      assert.equal(chunks[0].length, 16 * (1024 + 9));
      assert.ok(chunks[0].equals(Buffer.from(`$1024\r\n${'\x07'.repeat(1024)}\r\n`.repeat(16), 'latin1')));
    }
  });

  test('interleaved writes and takes send exactly the encoded replies, in order', () => {
    let seed = 12345;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) >>> 0) % n);
    const w = new ReplyWriter(64);
    const sent: Buffer[] = [];
    const expected: Buffer[] = [];
    const taken: Buffer[][] = [];
    for (let i = 0; i < 3000; i++) {
      const len = [0, 5, 200, 4000, 20000, 40000][rand(6)] + rand(50);
      const value = Buffer.alloc(len, i & 255);
      w.bulk(value);
      const one = new ReplyWriter();
      one.bulk(Buffer.from(value));
      expected.push(...one.take());
      if (rand(4) === 0) {
        const chunks = w.take();
        taken.push(chunks);
        sent.push(...chunks.map((c) => Buffer.from(c)));
      }
    }
    sent.push(...w.take());
    assert.ok(Buffer.concat(sent).equals(Buffer.concat(expected)));
    // what was handed out earlier still holds the same bytes (never overwritten by later replies)
    assert.ok(Buffer.concat(taken.flat()).equals(Buffer.concat(sent).subarray(0, Buffer.concat(taken.flat()).length)));
  });

  // a read-cache hit copied straight from the arena (core/engine/cache/near-cache.ts)
  test('bulkFrom: the same bytes as bulk() of the slice, also when the slab is full or its start was handed out', () => {
    const src = Buffer.alloc(9000);
    for (let i = 0; i < src.length; i++) src[i] = (i * 7) & 255;
    const a = new ReplyWriter(64);
    const b = new ReplyWriter(64);
    const sentA: Buffer[] = [];
    const sentB: Buffer[] = [];
    // lengths around the slab's end (64, then grown), 0, the 64-byte loop's edge, and 8 KB
    const lens = [3, 40, 0, 64, 65, 1, 3000, 8200, 5, 16383];
    for (let r = 0; r < 3; r++) {
      for (const [i, n] of lens.entries()) {
        const from = (i * 131) % (src.length - Math.min(n, 8000));
        const m = Math.min(n, src.length - from);
        a.bulkFrom(src, from, m);
        b.bulk(Buffer.from(src.subarray(from, from + m)));
        // a flush mid-way: the slab's written part was handed out, later hits go after it
        if ((i + r) % 3 === 0) {
          sentA.push(...a.take().map((c) => Buffer.from(c)));
          sentB.push(...b.take());
        }
      }
    }
    sentA.push(...a.take());
    sentB.push(...b.take());
    assert.ok(Buffer.concat(sentA).equals(Buffer.concat(sentB)));
  });

  test('unwrite takes a bulkFrom back (a torn copy), leaving what was written before it and after a take()', () => {
    const src = Buffer.from('0123456789'.repeat(100));
    const w = new ReplyWriter(64);
    w.simple('OK');
    const first = w.take();
    w.integer(7);
    // past the 64-byte slab: bulkFrom makes room before its mark, so the mark stays valid
    const mark = w.bulkFrom(src, 0, 500);
    assert.equal(w.length, 4 + 6 + 500 + 2);
    w.unwrite(mark);
    assert.equal(w.length, 4);
    w.bulkFrom(src, 10, 3);
    assert.equal(Buffer.concat([...first, ...w.take()]).toString('latin1'), '+OK\r\n:7\r\n$3\r\n012\r\n');
    // a mark from before the last take() is ignored
    const m2 = w.bulkFrom(src, 0, 2);
    w.take();
    w.unwrite(m2);
    w.simple('X');
    assert.equal(Buffer.concat(w.take()).toString('latin1'), '+X\r\n');
  });

  test('take() on an empty writer returns no chunks', () => {
    assert.deepEqual(new ReplyWriter().take(), []);
  });

  test('initialSize is validated', () => {
    assert.throws(() => new ReplyWriter(0), RangeError);
  });
});

describe('encodeCommand', () => {
  test('strings and Buffers as multibulk', () => {
    assert.equal(
      encodeCommand(['SET', Buffer.from([0, 255]), 'é']).toString('latin1'),
      '*3\r\n$3\r\nSET\r\n$2\r\n\0\xff\r\n$2\r\n\xc3\xa9\r\n',
    );
  });
  test('no arguments', () => assert.equal(encodeCommand([]).toString(), '*0\r\n'));
});
