import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isLocalPeer, kProtectedModeDenied, protectedModeDenies } from './protected-mode';

// Redis 7.0.15 answers the same for every row (checked with 127.0.0.1, 127.0.0.2 and the Unix
// socket against redis-server; bind plays no part in 7.0, test/e2e/protected-mode.test.ts)
const kPeers: [address: string | undefined, local: boolean][] = [
  ['127.0.0.1', true],
  ['::1', true],
  ['::ffff:127.0.0.1', true], // an IPv4 client of a dual-stack `::` listener
  ['127.0.0.2', false], // Redis 7.0 compares with strcmp; 7.2 would take all of 127.0.0.0/8
  ['127.1.2.3', false],
  ['::ffff:127.0.0.2', false],
  ['10.1.2.3', false],
  ['192.168.0.10', false],
  ['::ffff:10.1.2.3', false],
  ['fe80::1', false],
  ['2001:db8::1', false],
  ['0:0:0:0:0:0:0:1', false], // Node never reports ::1 uncompressed; Redis's strcmp would not match it either
  ['::', false],
  ['', false],
  [undefined, false], // the address could not be read: not local (Redis: connIsLocal() != 1)
];

describe('protected mode decision', () => {
  it('a peer is local on the Unix socket or at exactly 127.0.0.1 / ::1', () => {
    for (const [address, local] of kPeers) {
      assert.equal(isLocalPeer(false, address), local, String(address));
      assert.equal(isLocalPeer(true, address), true, `unix ${address}`);
    }
  });

  it('denies exactly: protected-mode yes, no password, TCP peer not local', () => {
    for (const [address, local] of kPeers) {
      for (const protectedMode of [true, false]) {
        for (const requirepass of ['', 's3cret', ' ']) {
          for (const unix of [false, true]) {
            const want = protectedMode && requirepass === '' && !unix && !local;
            assert.equal(protectedModeDenies({ protectedMode, requirepass, unix, address }), want,
              JSON.stringify({ address, protectedMode, requirepass, unix }));
          }
        }
      }
    }
  });

  it("answers Redis 7.0's DENIED text adapted to PostRESP's options, as one error line", () => {
    assert.match(kProtectedModeDenied, /^-DENIED PostRESP is running in protected mode because protected mode is enabled and no password is set for the default user\. /);
    assert.ok(kProtectedModeDenied.endsWith('\r\n'));
    assert.equal(kProtectedModeDenied.indexOf('\r'), kProtectedModeDenied.length - 2);
    for (const named of ["'CONFIG SET protected-mode no'", "'--protected-mode no'", "'--requirepass <password>'",
      "'CONFIG SET requirepass <password>'", "'--bind'"]) assert.ok(kProtectedModeDenied.includes(named), named);
  });
});
