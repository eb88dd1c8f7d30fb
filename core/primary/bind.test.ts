import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseBind } from './bind';

const brief = (text: string) => parseBind(text).map((b) => `${b.optional ? '-' : ''}${b.host}${b.ipv6Only ? ' v6only' : ''}`);

describe('--bind', () => {
  it("reads Redis's wildcards and optional addresses", () => {
    assert.deepEqual(brief('127.0.0.1'), ['127.0.0.1']);
    assert.deepEqual(brief('*'), ['0.0.0.0']);
    assert.deepEqual(brief('* -::*'), ['0.0.0.0', '-:: v6only']);
    assert.deepEqual(brief('0.0.0.0 ::'), ['0.0.0.0', ':: v6only']);
    assert.deepEqual(brief('127.0.0.1 -::1'), ['127.0.0.1', '-::1 v6only']);
    assert.deepEqual(brief('  10.0.0.1\t::1  '), ['10.0.0.1', '::1 v6only']);
    assert.deepEqual(brief(''), []);
  });

  it('a lone IPv6 address keeps the dual stack (IPv4 clients of `::` are still served)', () => {
    assert.deepEqual(brief('::'), ['::']);
    assert.deepEqual(brief('-::*'), ['-::']);
    assert.deepEqual(brief(':: ::1'), ['::', '::1']);
  });
});
