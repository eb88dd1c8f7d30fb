import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { recoverySyncMethod } from './embedded-settings';

describe('recoverySyncMethod', () => {
  it('syncfs on Linux 5.8 and later only', () => {
    assert.equal(recoverySyncMethod('linux', '6.18.44-fc-v669'), 'syncfs');
    assert.equal(recoverySyncMethod('linux', '5.8.0'), 'syncfs');
    assert.equal(recoverySyncMethod('linux', '5.15.0-91-generic'), 'syncfs');
    assert.equal(recoverySyncMethod('linux', '5.4.0-150-generic'), 'fsync'); // write errors unreported
    assert.equal(recoverySyncMethod('linux', '4.19.0'), 'fsync');
    assert.equal(recoverySyncMethod('darwin', '23.1.0'), 'fsync'); // no syncfs(): the value is refused
    assert.equal(recoverySyncMethod('linux', 'weird'), 'fsync');
  });
});
