/**
 * SORT's BY and GET patterns split as lookupKeyByPattern reads them (C strings: the search for
 * `*` and `->` stops at a NUL byte): "#" alone is the element itself; without `*` there is
 * nothing to look up (GET answers nil, BY means "do not sort"); else the key is prefix, element,
 * suffix, and "->field" after the `*` (with something after it) names a hash field.
 */
export const enum PatternKind { Element = 0, None = 1, String = 2, HashField = 3 }

export interface Pattern { kind: PatternKind; pre: Buffer; post: Buffer; field: Buffer | null }

const kEmpty = Buffer.alloc(0);
const kStar = 42; // *
const kHash = 35; // #

export function parsePattern(p: Buffer): Pattern {
  if (p[0] === kHash && (p.length === 1 || p[1] === 0)) return { kind: PatternKind.Element, pre: kEmpty, post: kEmpty, field: null };
  const nul = p.indexOf(0);
  const cstr = nul < 0 ? p.length : nul;
  const star = p.subarray(0, cstr).indexOf(kStar);
  if (star < 0) return { kind: PatternKind.None, pre: kEmpty, post: kEmpty, field: null };
  const arrow = p.subarray(0, cstr).indexOf('->', star + 1);
  const hasField = arrow >= 0 && arrow + 2 < cstr;
  const fieldLen = hasField ? p.length - arrow - 2 : 0;
  const postLen = p.length - (star + 1) - (hasField ? fieldLen + 2 : 0);
  return {
    kind: hasField ? PatternKind.HashField : PatternKind.String,
    pre: p.subarray(0, star),
    post: p.subarray(star + 1, star + 1 + postLen),
    field: hasField ? p.subarray(arrow + 2) : null,
  };
}
