import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { globMatch } from './glob';

const m = (p: string, s: string, nocase = false) => globMatch(Buffer.from(p), Buffer.from(s), nocase);

describe('globMatch (Redis stringmatchlen)', () => {
  const cases: [string, string, boolean][] = [
    ['*', '', true], ['*', 'abc', true], ['a*', 'abc', true], ['a*', 'bac', false],
    ['h?llo', 'hello', true], ['h?llo', 'hllo', false], ['h[ae]llo', 'hallo', true], ['h[ae]llo', 'hillo', false],
    ['h[^e]llo', 'hallo', true], ['h[^e]llo', 'hello', false], ['h[a-b]llo', 'hbllo', true], ['h[a-b]llo', 'hcllo', false],
    ['h\\*llo', 'h*llo', true], ['h\\*llo', 'hello', false], ['*a*b', 'xxaxxb', true], ['*a*b', 'xxaxxc', false],
    ['user:*:name', 'user:42:name', true], ['[', '[', false], ['a*a*a*a*a*a*a*a*b', 'a'.repeat(60), false],
  ];
  for (const [p, s, want] of cases) it(`${p} ~ ${s} = ${want}`, () => assert.equal(m(p, s), want));
  it('folds case when asked', () => {
    assert.equal(m('MAX*', 'maxclients', true), true);
    assert.equal(m('MAX*', 'maxclients', false), false);
  });
});
