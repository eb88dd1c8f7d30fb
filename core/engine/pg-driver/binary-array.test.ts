import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeBufferArray, int2Array, int8, int8Array, kOidText } from './binary-array';

test('bytea[] binary format: header, lengths, NULL and empty elements', () => {
  const out = encodeBufferArray([Buffer.from('ab'), null, Buffer.alloc(0)]);
  assert.equal(out.toString('hex'),
    '00000001' + '00000001' + '00000011' + '00000003' + '00000001' +
    '00000002' + '6162' + 'ffffffff' + '00000000');
});

test('empty array has zero dimensions; text[] carries oid 25', () => {
  assert.equal(encodeBufferArray([]).toString('hex'), '00000000' + '00000000' + '00000011');
  assert.equal(encodeBufferArray([Buffer.from('x')], kOidText).readInt32BE(8), 25);
});

test('int2Array, int8Array (with NULL) and int8 in the binary wire format', () => {
  const i2 = int2Array([1, -2]);
  assert.equal(i2.toString('hex'), '00000001' + '00000000' + '00000015' + '00000002' + '00000001' + '00000002' + '0001' + '00000002' + 'fffe');
  const i8 = int8Array([5, null, -1n]);
  assert.equal(i8.readInt32BE(4), 1); // has NULL
  assert.equal(i8.readInt32BE(8), 20); // int8
  assert.equal(i8.readInt32BE(12), 3);
  assert.equal(i8.readInt32BE(20), 8);
  assert.equal(i8.readBigInt64BE(24), 5n);
  assert.equal(i8.readInt32BE(32), -1); // NULL
  assert.equal(i8.readInt32BE(36), 8);
  assert.equal(i8.readBigInt64BE(40), -1n);
  assert.equal(i8.length, 48);
  assert.equal(int8(2n ** 62n).readBigInt64BE(0), 2n ** 62n);
});
