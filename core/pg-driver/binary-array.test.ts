import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeBufferArray, kOidText } from './binary-array';

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
