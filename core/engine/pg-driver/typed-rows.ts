/**
 * A PgResult (binary values) as plain rows of JS values, typed by column OID the way the command
 * table's map functions expect them (core/engine/key-store.ts `Rows`):
 *
 *   bool → boolean   int2/int4/oid → number   int8/numeric → decimal string   float4/8 → number
 *   bytea → Buffer (a view: valid as long as the reply that carries it)   text/name/varchar → string
 *   void → ''   one-dimensional arrays of those → arrays
 *
 * int8 and numeric stay strings because a counter can exceed 2^53 (INCRBY, HINCRBY) and a Redis
 * double needs every digit the function produced. The hot statements (GET/SET runs) read PgResult
 * directly; this serves the ~70 exact statements, whose rows are few.
 */
import type { PgResult } from './result';

const kBool = 16;
const kBytea = 17;
const kChar = 18;
const kName = 19;
const kInt8 = 20;
const kInt2 = 21;
const kInt4 = 23;
const kText = 25;
const kOid = 26;
const kFloat4 = 700;
const kFloat8 = 701;
const kUnknown = 705;
const kBpchar = 1042;
const kVarchar = 1043;
const kNumeric = 1700;
const kVoid = 2278;

/** Array type OID → element type OID */
const kArrays: Record<number, number> = {
  1000: kBool, 1001: kBytea, 1005: kInt2, 1007: kInt4, 1009: kText, 1014: kBpchar, 1015: kVarchar,
  1016: kInt8, 1021: kFloat4, 1022: kFloat8, 1231: kNumeric, 1028: kOid,
};

export function typedRows(res: PgResult): unknown[][] {
  const cols = res.columnCount;
  const rows = new Array<unknown[]>(res.rowCount);
  for (let r = 0; r < res.rowCount; r++) {
    const row = new Array<unknown>(cols);
    for (let c = 0; c < cols; c++) {
      const len = res.length(r, c);
      row[c] = len < 0 ? null : decode(res.type(c), res.buffer, res.offset(r, c), len);
    }
    rows[r] = row;
  }
  return rows;
}

function decode(type: number, b: Buffer, at: number, len: number): unknown {
  switch (type) {
    case kBytea: return b.subarray(at, at + len);
    case kInt4: return b.readInt32BE(at);
    case kInt2: return b.readInt16BE(at);
    case kInt8: return b.readBigInt64BE(at).toString();
    case kBool: return b[at] !== 0;
    case kText: case kVarchar: case kName: case kBpchar: case kChar: case kUnknown:
      return b.toString('utf8', at, at + len);
    case kFloat8: return b.readDoubleBE(at);
    case kFloat4: return b.readFloatBE(at);
    case kOid: return b.readUInt32BE(at);
    case kNumeric: return numericText(b, at);
    case kVoid: return '';
  }
  const element = kArrays[type];
  if (element !== undefined) return decodeArray(element, b, at, len);
  throw new TypeError(`result column of type OID ${type} has no JS mapping (core/engine/pg-driver/typed-rows.ts)`);
}

/** Binary array: ndim, hasnull, element oid, then (length, lbound) per dimension, then (len, bytes)… */
function decodeArray(element: number, b: Buffer, at: number, len: number): unknown[] {
  const ndim = b.readInt32BE(at);
  if (ndim === 0) return [];
  if (ndim !== 1) throw new TypeError(`arrays of ${ndim} dimensions have no JS mapping`);
  const n = b.readInt32BE(at + 12);
  const out = new Array<unknown>(n);
  let p = at + 20;
  const end = at + len;
  for (let i = 0; i < n; i++) {
    const l = b.readInt32BE(p);
    p += 4;
    if (l < 0) { out[i] = null; continue; }
    if (p + l > end) throw new RangeError('truncated binary array');
    out[i] = decode(element, b, p, l);
    p += l;
  }
  return out;
}

/**
 * Binary numeric (numeric_send): ndigits, weight, sign, dscale (int16 each), then ndigits base-10000
 * digits; the value is Σ digit[i] · 10000^(weight − i), printed with dscale decimals like numeric_out.
 */
export function numericText(b: Buffer, at: number): string {
  const ndigits = b.readInt16BE(at);
  const weight = b.readInt16BE(at + 2);
  const sign = b.readUInt16BE(at + 4);
  const dscale = b.readInt16BE(at + 6);
  if (sign === 0xc000) return 'NaN';
  if (sign === 0xd000) return 'Infinity';
  if (sign === 0xf000) return '-Infinity';
  const digit = (i: number): number => (i >= 0 && i < ndigits ? b.readInt16BE(at + 8 + 2 * i) : 0);
  let int = '';
  for (let i = 0; i <= weight; i++) {
    const d = digit(i);
    int += i === 0 ? String(d) : String(d).padStart(4, '0');
  }
  if (int === '') int = '0';
  let text = int;
  if (dscale > 0) {
    let frac = '';
    for (let i = weight + 1; frac.length < dscale; i++) frac += String(digit(i)).padStart(4, '0');
    text += '.' + frac.slice(0, dscale);
  }
  return sign === 0x4000 ? '-' + text : text;
}
