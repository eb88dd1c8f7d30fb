// Inline commands (`SET k v\r\n`, what telnet and `redis-cli` pipes send) split like Redis's
// sdssplitargs (sds.c, Redis 7.0). Cold path: benchmarks and clients speak multibulk.
//
// Quirks kept on purpose, checked against redis-server 7.0.15:
//  - blanks between arguments are C isspace (space \t \n \v \f \r), but an unquoted argument
//    ends only at space \t \n \r: `a\vb` is one argument;
//  - a quote inside an unquoted argument opens a quoted part: `a"b c"` is `ab c`;
//  - a closing quote must be followed by isspace or the end of the line, else the whole
//    request is refused ('unbalanced quotes');
//  - "\xHH" needs two hex digits, otherwise `\x` is just `x`; other unknown escapes drop the `\`;
//  - empty arguments ("" or '') are kept (Redis 7 keeps them; Redis 5 dropped them).

import { BACKSLASH, CR, DQUOTE, LF, LOWER_X, SPACE, SQUOTE, TAB } from './constants';

function isSpace(c: number): boolean {
  return c === SPACE || (c >= TAB && c <= CR); // \t \n \v \f \r are 9..13
}

function endsUnquoted(c: number): boolean {
  return c === SPACE || c === LF || c === CR || c === TAB;
}

function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48; // 0-9
  if (c >= 97 && c <= 102) return c - 87; // a-f
  if (c >= 65 && c <= 70) return c - 55; // A-F
  return -1;
}

function unescape(c: number): number {
  switch (c) {
    case 110: return LF; // n
    case 114: return CR; // r
    case 116: return TAB; // t
    case 98: return 8; // b: backspace
    case 97: return 7; // a: bell
    default: return c;
  }
}

/** One "double quoted" part starting after the opening quote; returns the index after the closing quote, or -1. */
function doubleQuoted(line: Buffer, i: number, out: number[]): number {
  const n = line.length;
  for (;;) {
    if (i >= n) return -1;
    const c = line[i];
    if (c === BACKSLASH && i + 3 < n && line[i + 1] === LOWER_X) {
      const hi = hexValue(line[i + 2]);
      const lo = hexValue(line[i + 3]);
      if (hi >= 0 && lo >= 0) {
        out.push(hi * 16 + lo);
        i += 4;
        continue;
      }
    }
    if (c === BACKSLASH && i + 1 < n) {
      out.push(unescape(line[i + 1]));
      i += 2;
    } else if (c === DQUOTE) {
      return i + 1 < n && !isSpace(line[i + 1]) ? -1 : i + 1;
    } else {
      out.push(c);
      i++;
    }
  }
}

/** One 'single quoted' part: only \' is an escape. */
function singleQuoted(line: Buffer, i: number, out: number[]): number {
  const n = line.length;
  for (;;) {
    if (i >= n) return -1;
    const c = line[i];
    if (c === BACKSLASH && i + 1 < n && line[i + 1] === SQUOTE) {
      out.push(SQUOTE);
      i += 2;
    } else if (c === SQUOTE) {
      return i + 1 < n && !isSpace(line[i + 1]) ? -1 : i + 1;
    } else {
      out.push(c);
      i++;
    }
  }
}

/**
 * Splits one inline line (without its line ending) into arguments.
 * Unquoted arguments are views into `line`; quoted ones are fresh Buffers.
 * Returns null for unbalanced quotes. The line must not contain NUL (the parser stalls such
 * lines before splitting, as Redis's strchr does).
 */
export function splitInlineArgs(line: Buffer): Buffer[] | null {
  const args: Buffer[] = [];
  const n = line.length;
  let i = 0;
  for (;;) {
    while (i < n && isSpace(line[i])) i++;
    if (i >= n) return args;
    const start = i;
    while (i < n && !endsUnquoted(line[i]) && line[i] !== DQUOTE && line[i] !== SQUOTE) i++;
    if (i >= n || endsUnquoted(line[i])) {
      args.push(line.subarray(start, i));
      continue;
    }
    const out: number[] = [];
    for (let k = start; k < i; k++) out.push(line[k]);
    i = line[i] === DQUOTE ? doubleQuoted(line, i + 1, out) : singleQuoted(line, i + 1, out);
    if (i < 0) return null;
    args.push(Buffer.from(out));
  }
}
