// Every case runs whole, byte by byte and in seeded random splits, and must give the same
// commands and error each way. Expected texts come from redis-server 7.0.15 fed the same bytes.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { RequestParser, kQueryBufferExceeded, kDefaultParserLimits, type ParserLimits } from './parser';
import { encodeCommand } from './encode-command';

type Outcome = { commands: string[][]; error: string | undefined; pending: number };

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return s / 0x100000000;
  };
}

function newParser(limits?: Partial<ParserLimits>, authenticated = true): RequestParser {
  const p = new RequestParser({ ...kDefaultParserLimits, ...limits });
  p.authenticated = authenticated;
  return p;
}

/** Feeds chunks; arguments are read as latin1 so any byte round-trips. */
function feed(chunks: Buffer[], limits?: Partial<ParserLimits>, authenticated = true): Outcome {
  const p = newParser(limits, authenticated);
  const commands: string[][] = [];
  let error: string | undefined;
  for (const c of chunks) {
    error = p.push(c, (argv) => commands.push(argv.map((a) => a.toString('latin1'))));
    if (error !== undefined) break;
  }
  return { commands, error, pending: p.pending };
}

function bytes(input: string | Buffer): Buffer {
  return typeof input === 'string' ? Buffer.from(input, 'latin1') : input;
}

function byteByByte(b: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < b.length; i++) out.push(b.subarray(i, i + 1));
  return out;
}

function randomSplit(b: Buffer, rnd: () => number): Buffer[] {
  const out: Buffer[] = [];
  let i = 0;
  while (i < b.length) {
    const n = 1 + Math.floor(rnd() * Math.min(64, b.length - i));
    out.push(Buffer.from(b.subarray(i, i + n)));
    i += n;
  }
  return out;
}

/**
 * Runs whole, byte by byte, in 5 random splits and (inputs under 4 KiB) cut in two at every
 * offset, which puts a chunk end after every '\r' and inside every payload; asserts all agree.
 */
function parseAllWays(input: string | Buffer, limits?: Partial<ParserLimits>, authenticated = true): Outcome {
  const b = bytes(input);
  const whole = feed([b], limits, authenticated);
  const ways: [string, Buffer[]][] = [['byte by byte', byteByByte(b)]];
  const rnd = lcg(b.length + 7);
  for (let k = 0; k < 5; k++) ways.push([`random split ${k}`, randomSplit(b, rnd)]);
  if (b.length < 4096) for (let i = 1; i < b.length; i++) ways.push([`cut at ${i}`, [b.subarray(0, i), b.subarray(i)]]);
  for (const [name, chunks] of ways) {
    const got = feed(chunks, limits, authenticated);
    assert.deepEqual(got.commands, whole.commands, `${name}: commands differ from whole`);
    assert.equal(got.error, whole.error, `${name}: error differs from whole`);
  }
  return whole;
}

function expectCommands(input: string | Buffer, commands: string[][], authenticated = true): void {
  const r = parseAllWays(input, undefined, authenticated);
  assert.equal(r.error, undefined);
  assert.deepEqual(r.commands, commands);
}

function expectError(input: string | Buffer, error: string, before: string[][] = [], limits?: Partial<ParserLimits>, authenticated = true): void {
  const r = parseAllWays(input, limits, authenticated);
  assert.equal(r.error, error);
  assert.deepEqual(r.commands, before);
}

const kInvalidMbulk = 'Protocol error: invalid multibulk length';
const kInvalidBulk = 'Protocol error: invalid bulk length';
const kTooBigInline = 'Protocol error: too big inline request';
const kTooBigMbulk = 'Protocol error: too big mbulk count string';
const kTooBigBulk = 'Protocol error: too big bulk count string';
const kUnbalanced = 'Protocol error: unbalanced quotes in request';

describe('multibulk', () => {
  const cases: [string, string | Buffer, string[][]][] = [
    ['one command', '*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n', [['SET', 'k', 'v']]],
    ['a pipeline', '*1\r\n$4\r\nPING\r\n*2\r\n$3\r\nGET\r\n$3\r\nkey\r\n*1\r\n$4\r\nPING\r\n', [['PING'], ['GET', 'key'], ['PING']]],
    ['binary payload with CRLF and NUL', '*2\r\n$4\r\nECHO\r\n$6\r\na\r\n\0\xffz\r\n', [['ECHO', 'a\r\n\0\xffz']]],
    ['empty argument', '*2\r\n$4\r\nECHO\r\n$0\r\n\r\n', [['ECHO', '']]],
    ['*0 is no command', '*0\r\n*1\r\n$4\r\nPING\r\n', [['PING']]],
    ['*-1 is no command', '*-1\r\n*1\r\n$4\r\nPING\r\n', [['PING']]],
    ['*LLONG_MIN is no command', '*-9223372036854775808\r\n*1\r\n$4\r\nPING\r\n', [['PING']]],
    ['any byte after a header CR (Redis skips it unchecked)', '*1\rX$4\rXPING\r\n', [['PING']]],
    ['any two bytes after a payload (Redis skips them unchecked)', '*1\r\n$4\r\nPINGxx*1\r\n$4\r\nPING\r\n', [['PING'], ['PING']]],
    ['a 1 KiB value', encodeCommand(['SET', 'k', 'v'.repeat(1024)]), [['SET', 'k', 'v'.repeat(1024)]]],
    ['multibulk then inline', '*1\r\n$4\r\nPING\r\nECHO x\r\n', [['PING'], ['ECHO', 'x']]],
  ];
  for (const [name, input, commands] of cases) test(name, () => expectCommands(input, commands));

  test('a frame waits for the two bytes after its last payload', () => {
    const r = parseAllWays('*1\r\n$4\r\nPING\r');
    assert.deepEqual(r.commands, []);
    assert.equal(r.error, undefined);
    assert.equal(r.pending, 13);
  });

  test('a count up to INT_MAX is accepted and waits for its arguments', () => {
    const r = parseAllWays('*2147483647\r\n');
    assert.equal(r.error, undefined);
    assert.deepEqual(r.commands, []);
  });
});

describe('multibulk errors (Redis 7 texts)', () => {
  const cases: [string, string, string][] = [
    ['count not a number', '*x\r\n', kInvalidMbulk],
    ['empty count', '*\r\n', kInvalidMbulk],
    ['count with leading zero', '*01\r\n', kInvalidMbulk],
    ['count with plus sign', '*+1\r\n', kInvalidMbulk],
    ['count -0', '*-0\r\n', kInvalidMbulk],
    ['count above INT_MAX', '*2147483648\r\n', kInvalidMbulk],
    ['count of 21 digits', `*${'1'.repeat(21)}\r\n`, kInvalidMbulk],
    ['count with a trailing letter', '*11x\r\n', kInvalidMbulk],
    ['negative bulk length', '*1\r\n$-1\r\n', kInvalidBulk],
    ['bulk length not a number', '*1\r\n$x\r\n', kInvalidBulk],
    ['empty bulk length', '*1\r\n$\r\n', kInvalidBulk],
    ['bulk length with leading zero', '*1\r\n$01\r\n', kInvalidBulk],
    ['bulk length above proto-max-bulk-len', '*1\r\n$536870913\r\n', kInvalidBulk],
    ['bulk length 2^32', '*1\r\n$4294967296\r\n', kInvalidBulk],
    ['bulk length beyond long long', '*1\r\n$99999999999999999999\r\n', kInvalidBulk],
    ["'$' expected, got a letter", '*1\r\nx\r\n', "Protocol error: expected '$', got 'x'"],
    ["'$' expected, got an empty line (CR shown as a space)", '*1\r\n\r\n\r\n', "Protocol error: expected '$', got ' '"],
    ["'$' expected, got LF (shown as a space)", '*1\r\n\n\r\n', "Protocol error: expected '$', got ' '"],
    ["'$' expected, got byte 0xff (sent raw)", '*1\r\n\xff\r\n', "Protocol error: expected '$', got '\xff'"],
    ["'$' expected in the second argument", '*2\r\n$4\r\nECHO\r\n*1\r\n', "Protocol error: expected '$', got '*'"],
  ];
  for (const [name, input, error] of cases) test(name, () => expectError(input, error));

  test('commands before the error are delivered, then the parser stays dead', () => {
    const p = newParser();
    const got: string[] = [];
    const sink = (argv: Buffer[]) => got.push(argv.join(' '));
    assert.equal(p.push(Buffer.from('*1\r\n$4\r\nPING\r\nPING\r\n*x\r\n*1\r\n$4\r\nPING\r\n'), sink), kInvalidMbulk);
    assert.deepEqual(got, ['PING', 'PING']);
    assert.equal(p.push(Buffer.from('*1\r\n$4\r\nPING\r\n'), sink), kInvalidMbulk);
    assert.deepEqual(got, ['PING', 'PING']);
  });

  test('proto-max-bulk-len changes take effect on the next frame', () => {
    const p = newParser();
    const sink = () => {};
    assert.equal(p.push(encodeCommand(['SET', 'k', 'x'.repeat(100)]), sink), undefined);
    p.limits.protoMaxBulkLen = 99;
    assert.equal(p.push(encodeCommand(['SET', 'k', 'x'.repeat(100)]), sink), kInvalidBulk);
  });
});

describe('64 KiB header and inline lines', () => {
  const k64 = 64 * 1024;
  test('a count line of 64 KiB without CR waits', () => {
    const r = parseAllWays('*' + '1'.repeat(k64 - 1));
    assert.equal(r.error, undefined);
    assert.equal(r.pending, k64);
  });
  test('one byte more is too big', () => expectError('*' + '1'.repeat(k64), kTooBigMbulk));
  test('a bulk length line over 64 KiB is too big', () => expectError('*1\r\n$' + '1'.repeat(k64), kTooBigBulk));
  test('the size check comes before the $ check', () => expectError('*1\r\n' + 'X'.repeat(70000), kTooBigBulk));
  test('an inline line of 64 KiB without LF waits', () => {
    const r = parseAllWays('a'.repeat(k64));
    assert.equal(r.error, undefined);
  });
  test('one byte more is too big', () => expectError('a'.repeat(k64 + 1), kTooBigInline));
  test('an inline line of exactly 64 KiB is parsed', () => expectCommands('a'.repeat(k64) + '\n', [['a'.repeat(k64)]]));
  test('a line longer than 64 KiB is refused even when its LF arrives in the same chunk', () =>
    expectError('a'.repeat(k64 + 1) + '\n', kTooBigInline));
});

describe('NUL before a line end stalls the client, like Redis strchr', () => {
  const cases: [string, string, string][] = [
    ['inline', 'ECHO a\0b\r\n', kTooBigInline],
    ['count line', '*1\0\r\n', kTooBigMbulk],
    ['bulk length line', '*1\r\n$3\0\r\nabc\r\n', kTooBigBulk],
  ];
  for (const [name, input, error] of cases) {
    test(`${name}: no command, no error, until 64 KiB are held`, () => {
      const r = parseAllWays(input + '*1\r\n$4\r\nPING\r\n');
      assert.deepEqual(r.commands, []);
      assert.equal(r.error, undefined);
      expectError(input + 'x'.repeat(64 * 1024), error);
    });
  }
  test('NUL after the line end is ordinary data', () => expectCommands('*1\r\0$4\r\nPING\r\n', [['PING']]));
});

describe('inline commands (sdssplitargs)', () => {
  const cases: [string, string, string[][]][] = [
    ['CRLF', 'PING\r\n', [['PING']]],
    ['lone LF', 'PING\n', [['PING']]],
    ['empty lines are no command', '\r\n\n   \r\n\t\nPING\n', [['PING']]],
    ['spaces and tabs', '  SET \t k   v  \r\n', [['SET', 'k', 'v']]],
    ['double quotes with spaces', 'ECHO "a b"\r\n', [['ECHO', 'a b']]],
    ['escapes in double quotes', 'ECHO "\\n\\r\\t\\b\\a\\\\\\"\\q"\r\n', [['ECHO', '\n\r\t\b\x07\\"q']]],
    ['hex escapes', 'ECHO "\\x41\\xff\\x0a"\r\n', [['ECHO', 'A\xff\n']]],
    ['\\x without two hex digits is x', 'ECHO "a\\xZZ" "a\\x4"\r\n', [['ECHO', 'axZZ', 'ax4']]],
    ['single quotes keep backslashes but \\\'', "ECHO 'a\\nb' 'it\\'s'\r\n", [['ECHO', 'a\\nb', "it's"]]],
    ['empty quoted arguments are kept (Redis 7)', 'ECHO "" \'\' x\r\n', [['ECHO', '', '', 'x']]],
    ['a quote inside an unquoted argument', 'ECHO a"b c"\r\n', [['ECHO', 'ab c']]],
    ['\\v inside an argument does not split it', 'ECHO \x0ba\x0bb\r\n', [['ECHO', 'a\x0bb']]],
    ['a closing quote may be followed by \\v', 'ECHO "a"\x0bb\r\n', [['ECHO', 'a', 'b']]],
    ['CR splits arguments', 'ECHO a\rb\r\n', [['ECHO', 'a', 'b']]],
    ['CR before LF is dropped once', 'ECHO a\r\r\n', [['ECHO', 'a']]],
    ['lines starting with $ are inline', '$4\r\n', [['$4']]],
    ['UTF-8 bytes pass through', 'ECHO h\xc3\xa9\r\n', [['ECHO', 'h\xc3\xa9']]],
  ];
  for (const [name, input, commands] of cases) test(name, () => expectCommands(input, commands));

  const bad: [string, string][] = [
    ['text right after a closing double quote', 'ECHO "a"b\r\n'],
    ['text right after a closing single quote', "ECHO 'a'b\r\n"],
    ['two quoted parts glued', 'ECHO "x"\'y\'\r\n'],
    ['unterminated double quote', 'ECHO "abc\r\n'],
    ['unterminated single quote', "ECHO 'abc\n"],
    ['trailing backslash in quotes', 'ECHO "ab\\"\r\n'],
  ];
  for (const [name, input] of bad) test(`${name} → unbalanced quotes`, () => expectError(input, kUnbalanced));
});

describe('unauthenticated limits', () => {
  const unauthMbulk = 'Protocol error: unauthenticated multibulk length';
  const unauthBulk = 'Protocol error: unauthenticated bulk length';
  test('11 arguments are refused', () => expectError('*11\r\n', unauthMbulk, [], undefined, false));
  test('a complete 11-argument frame is refused', () =>
    expectError(Buffer.concat([encodeCommand(['PING']), encodeCommand(Array.from({ length: 11 }, () => 'x'))]), unauthMbulk, [['PING']], undefined, false));
  test('10 arguments are accepted', () => {
    const argv = Array.from({ length: 10 }, (_, i) => `a${i}`);
    expectCommands(encodeCommand(argv), [argv], false);
  });
  test('a 16385-byte argument is refused', () => expectError('*1\r\n$16385\r\n', unauthBulk, [], undefined, false));
  test('a 16384-byte argument is accepted', () => {
    const v = 'v'.repeat(16384);
    expectCommands(encodeCommand(['SET', 'k', v]), [['SET', 'k', v]], false);
  });
  test('invalid lengths are reported before unauthenticated ones', () => {
    expectError('*2147483648\r\n', kInvalidMbulk, [], undefined, false);
    expectError('*1\r\n$536870913\r\n', kInvalidBulk, [], undefined, false);
  });
  test('negative counts stay "no command"', () => expectCommands('*-11\r\n', [], false));
  test('inline commands have no argument limits', () => expectCommands('A B C D E F G H I J K L\r\n', [['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I', 'J', 'K', 'L']], false));
  test('authenticating inside sink lifts the limits for the next frame', () => {
    const p = newParser(undefined, false);
    const got: number[] = [];
    const input = Buffer.concat([encodeCommand(['AUTH', 'pw']), encodeCommand(Array.from({ length: 11 }, () => 'x'))]);
    const err = p.push(input, (argv) => {
      got.push(argv.length);
      if (argv[0].toString() === 'AUTH') p.authenticated = true;
    });
    assert.equal(err, undefined);
    assert.deepEqual(got, [2, 11]);
  });
  test('the flag is read before each frame, whole and in pieces: AUTH lifts both limits, RESET restores them', () => {
    const input = Buffer.concat([
      encodeCommand(['AUTH', 'pw']), encodeCommand(['MGET', ...Array.from({ length: 20 }, (_, i) => `k${i}`)]),
      encodeCommand(['SET', 'k', 'v'.repeat(20000)]), encodeCommand(['RESET']), encodeCommand(Array.from({ length: 11 }, () => 'x')),
    ]);
    for (const size of [input.length, 4096, 7, 1]) {
      const p = newParser(undefined, false);
      const got: number[] = [];
      let err: string | undefined;
      for (let at = 0; at < input.length && err === undefined; at += size) {
        err = p.push(input.subarray(at, at + size), (argv) => {
          got.push(argv.length);
          const name = argv[0].toString();
          if (name === 'AUTH') p.authenticated = true;
          if (name === 'RESET') p.authenticated = false;
        });
      }
      assert.equal(err, unauthMbulk, `pieces of ${size}`);
      assert.deepEqual(got, [2, 21, 3, 1], `pieces of ${size}`);
    }
  });
});

describe('memory: huge headers allocate nothing up front', () => {
  function arrayBuffersGrowth(fn: () => void): number {
    const before = process.memoryUsage().arrayBuffers;
    fn();
    return process.memoryUsage().arrayBuffers - before;
  }
  test('$536870912 followed by 10 bytes holds 10 bytes', () => {
    const p = newParser();
    const growth = arrayBuffersGrowth(() => {
      assert.equal(p.push(Buffer.from('*1\r\n$536870912\r\n0123456789'), () => assert.fail('no command yet')), undefined);
    });
    assert.ok(growth < 1024 * 1024, `arrayBuffers grew by ${growth}`);
    assert.equal(p.pending, 26);
  });
  test('$4294967296 is refused without allocating', () => {
    const growth = arrayBuffersGrowth(() => expectError('*1\r\n$4294967296\r\n', kInvalidBulk));
    assert.ok(growth < 1024 * 1024, `arrayBuffers grew by ${growth}`);
  });
  test('*2147483647 allocates nothing', () => {
    const growth = arrayBuffersGrowth(() => {
      const p = newParser();
      assert.equal(p.push(Buffer.from('*2147483647\r\n'), () => {}), undefined);
      for (let i = 0; i < 1000; i++) assert.equal(p.push(Buffer.from('$1\r\na\r\n'), () => {}), undefined);
    });
    assert.ok(growth < 1024 * 1024, `arrayBuffers grew by ${growth}`);
  });
  test('a payload dribbled byte by byte is compacted, not held as 100k Buffer objects', () => {
    const p = newParser();
    const value = Buffer.alloc(100000);
    for (let i = 0; i < value.length; i++) value[i] = i & 255;
    const frame = encodeCommand(['SET', 'k', value]);
    let got: Buffer[] | undefined;
    for (let i = 0; i < frame.length; i++) {
      assert.equal(p.push(frame.subarray(i, i + 1), (argv) => (got = argv)), undefined);
      // white box: the bound is on what the parser holds, which memoryUsage() cannot see without a GC
      const held = p as unknown as { bulkParts: Buffer[]; lineParts: Buffer[] };
      assert.ok(held.bulkParts.length <= 100 && held.lineParts.length <= 100, `${held.bulkParts.length} pieces at byte ${i}`);
    }
    assert.ok(got && got[2].equals(value));
  });
  test('a header line dribbled byte by byte is compacted too', () => {
    const p = newParser();
    const line = Buffer.from('*1\r\n$' + '1'.repeat(60000));
    for (let i = 0; i < line.length; i++) assert.equal(p.push(line.subarray(i, i + 1), () => {}), undefined);
    assert.ok((p as unknown as { lineParts: Buffer[] }).lineParts.length <= 100);
    assert.equal(p.push(Buffer.from('\r\n'), () => {}), 'Protocol error: invalid bulk length');
  });
  test('an argument spanning 3 chunks is joined once, correctly', () => {
    const value = Buffer.alloc(300000, 7);
    const frame = encodeCommand(['SET', 'k', value]);
    const p = newParser();
    let got: Buffer[] | undefined;
    for (const [a, b] of [[0, 1000], [1000, 150000], [150000, frame.length]]) {
      assert.equal(p.push(frame.subarray(a, b), (argv) => (got = argv)), undefined);
    }
    assert.ok(got);
    assert.ok(got[2].equals(value));
  });
});

describe('query buffer limit', () => {
  test('an incomplete frame over the limit closes the client', () => {
    const r = feed([Buffer.from('*1\r\n$5000\r\n'), Buffer.alloc(1200, 97)], { clientQueryBufferLimit: 1000 });
    assert.equal(r.error, kQueryBufferExceeded);
  });
  test('byte by byte it trips as soon as 1001 bytes are held', () => {
    const p = newParser({ clientQueryBufferLimit: 1000 });
    const input = Buffer.concat([Buffer.from('*1\r\n$5000\r\n'), Buffer.alloc(2000, 97)]);
    let at = -1;
    for (let i = 0; i < input.length && at < 0; i++) {
      if (p.push(input.subarray(i, i + 1), () => {}) === kQueryBufferExceeded) at = i + 1;
    }
    assert.equal(at, 1001);
  });
  test('complete frames do not count', () => {
    const frame = encodeCommand(['SET', 'k', 'x'.repeat(500)]);
    const r = feed([Buffer.concat(Array.from({ length: 10 }, () => frame))], { clientQueryBufferLimit: 1000 });
    assert.equal(r.error, undefined);
    assert.equal(r.commands.length, 10);
  });
});

describe('views and ownership', () => {
  test('arguments of a frame inside one chunk are views into it (zero copy); the name is a kept copy', () => {
    const chunk = encodeCommand(['SET', 'key', 'value']);
    const p = newParser();
    let argv: Buffer[] = [];
    p.push(chunk, (a) => (argv = a));
    for (const a of argv.slice(1)) assert.equal(a.buffer, chunk.buffer);
    assert.equal(argv[2].byteOffset - chunk.byteOffset, chunk.indexOf('value'));
    // the name does not alias the chunk: an idle client's last name pins no read buffer
    chunk.fill(0x7a);
    assert.equal(argv[0].toString(), 'SET');
    assert.equal(argv[1].toString(), 'zzz');
  });
  test('argv handed out stays valid after later pushes', () => {
    const p = newParser();
    const kept: Buffer[][] = [];
    const frame = encodeCommand(['SET', 'k', 'x'.repeat(100)]);
    for (const chunk of randomSplit(Buffer.concat([frame, frame, frame]), lcg(3))) p.push(chunk, (a) => kept.push(a));
    for (let i = 0; i < 5; i++) p.push(encodeCommand(['SET', 'other', 'y'.repeat(100)]), () => {});
    assert.equal(kept.length, 3);
    for (const argv of kept) assert.deepEqual(argv.map(String), ['SET', 'k', 'x'.repeat(100)]);
  });
  test('a repeated command name is one shared view; other names and cases keep their own bytes', () => {
    const p = newParser();
    const kept: Buffer[][] = [];
    const names = ['GET', 'GET', 'get', 'SET', 'GET', 'GET', 'GEX', 'GET'];
    const frames = names.map((n) => encodeCommand([n, 'k']));
    p.push(Buffer.concat(frames.slice(0, 3)), (a) => kept.push(a));
    // later chunks: a name seen in an earlier chunk is reused from that chunk's memory
    for (const f of frames.slice(3)) p.push(Buffer.from(f), (a) => kept.push(a));
    assert.deepEqual(kept.map((a) => a[0].toString('latin1')), names);
    assert.equal(kept[0][0], kept[1][0]);
    assert.notEqual(kept[1][0], kept[2][0]);
    assert.equal(kept[4][0], kept[5][0]);
    assert.notEqual(kept[6][0], kept[7][0]);
    // a name longer than any command is not kept: no memory held for garbage names
    const long = 'X'.repeat(33);
    const twice: Buffer[] = [];
    p.push(Buffer.concat([encodeCommand([long]), encodeCommand([long])]), (a) => twice.push(a[0]));
    assert.notEqual(twice[0], twice[1]);
    assert.deepEqual(twice.map(String), [long, long]);
  });
  test('pending counts the bytes of the incomplete frame only', () => {
    const p = newParser();
    p.push(Buffer.from('*1\r\n$4\r\nPING\r\n*2\r\n$3\r\nGET\r\n$1'), () => {});
    assert.equal(p.pending, 15);
    p.push(Buffer.from('\r\nk\r\n'), () => {});
    assert.equal(p.pending, 0);
  });
});

describe('properties (fast-check, fixed seed)', () => {
  const kRuns = { seed: 20240501, numRuns: 300 };

  test('encodeCommand → any split → the same argv', () => {
    const argvArb = fc.array(fc.uint8Array({ maxLength: 300 }), { minLength: 1, maxLength: 12 });
    fc.assert(
      fc.property(fc.array(argvArb, { minLength: 1, maxLength: 8 }), fc.integer(), (commands, seed) => {
        const wire = Buffer.concat(commands.map((argv) => encodeCommand(argv.map((a) => Buffer.from(a)))));
        const expected = commands.map((argv) => argv.map((a) => Buffer.from(a).toString('latin1')));
        for (const chunks of [[wire], randomSplit(wire, lcg(seed)), byteByByte(wire)]) {
          const r = feed(chunks);
          assert.equal(r.error, undefined);
          assert.deepEqual(r.commands, expected);
          assert.equal(r.pending, 0);
        }
      }),
      kRuns,
    );
  });

  test('redis-cli style quoted inline args → the same argv', () => {
    // sdscatrepr: what redis-cli prints and accepts back
    const repr = (b: Uint8Array) => {
      let s = '"';
      for (const c of b) {
        if (c === 92 || c === 34) s += '\\' + String.fromCharCode(c);
        else if (c === 10) s += '\\n';
        else if (c >= 33 && c <= 126) s += String.fromCharCode(c);
        else s += '\\x' + c.toString(16).padStart(2, '0');
      }
      return s + '"';
    };
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 40 }), { minLength: 1, maxLength: 8 }), (args) => {
        const line = Buffer.from(args.map(repr).join(' ') + '\r\n', 'latin1');
        const r = parseAllWays(line);
        assert.equal(r.error, undefined);
        assert.deepEqual(r.commands, [args.map((a) => Buffer.from(a).toString('latin1'))]);
      }),
      kRuns,
    );
  });

  test('garbage never throws, errors are protocol errors, splits agree, memory and time stay bounded', () => {
    const alphabet = [...'*$\r\n0123456789-+ "\'\\xa\t'].map((c) => c.charCodeAt(0)).concat([0, 11, 255]);
    const biased = fc.array(fc.constantFrom(...alphabet), { maxLength: 3000 }).map((a) => Uint8Array.from(a));
    const before = process.memoryUsage().arrayBuffers;
    const started = process.hrtime.bigint();
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 3000 }), biased), fc.integer(), (raw, seed) => {
        const b = Buffer.from(raw);
        const whole = feed([b]);
        const split = feed(randomSplit(b, lcg(seed)));
        assert.ok(whole.error === undefined || whole.error.startsWith('Protocol error: '), whole.error);
        assert.deepEqual(split.commands, whole.commands);
        assert.equal(split.error, whole.error);
      }),
      { seed: 7, numRuns: 2000 },
    );
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    assert.ok(ms < 20000, `took ${ms} ms`);
    assert.ok(process.memoryUsage().arrayBuffers - before < 64 * 1024 * 1024);
  });
});
