/**
 * Redis 7.0's DUMP payload (RDB version 10): one object — its RDB type byte and serialization —
 * then the RDB version (2 bytes, little-endian) and the CRC-64 of everything before (8 bytes).
 *
 * Writing, we pick encodings every Redis since 2.x loads and that need no packing: a raw string
 * (0), a list as a linked list (1), a set (2), a hash (4), a zset with binary doubles (5).
 * Reading, we take every encoding redis-server 7.0 writes or still loads for these types: int
 * and LZF strings, ziplists, listpacks, intsets, quicklists of both generations. Streams are
 * written and read as 7.0 does (./rdb-stream.ts); modules, functions and the pre-2.6 zipmap are
 * "Bad data format" here.
 */
import { KeyType } from '../../key-store';
import { string2d } from '../collection/strtod';
import { crc64 } from './crc64';
import { lzfDecompress } from './lzf';
import { BadFormat, intsetEntries, listpackEntries, ziplistEntries } from './packed';
import { kStreamV1, kStreamV2, readStream, writeStream, type StreamValue } from './rdb-stream';

export const kRdbVersion = 10;

export type RdbValue =
  | { type: KeyType.String; value: Buffer }
  | { type: KeyType.List | KeyType.Set; items: Buffer[] }
  | { type: KeyType.Hash; fields: Buffer[]; values: Buffer[] }
  | { type: KeyType.Zset; members: Buffer[]; scores: number[] }
  | StreamValue;

const enum T {
  String = 0, List = 1, Set = 2, Zset = 3, Hash = 4, Zset2 = 5, ListZiplist = 10, SetIntset = 11, ZsetZiplist = 12,
  HashZiplist = 13, ListQuicklist = 14, HashListpack = 16, ZsetListpack = 17, ListQuicklist2 = 18,
}

// ---- writing

/** an RDB length (rdbSaveLen): 6 bits, 14 bits, 0x80 and 32 bits or 0x81 and 64 bits, big-endian */
export function saveLen(n: number | bigint): Buffer {
  if (n < 64) return Buffer.from([Number(n)]);
  if (n < 16384) return Buffer.from([0x40 | (Number(n) >> 8), Number(n) & 0xff]);
  if (n <= 0xffffffff) {
    const b = Buffer.alloc(5);
    b[0] = 0x80;
    b.writeUInt32BE(Number(n), 1);
    return b;
  }
  const b = Buffer.alloc(9);
  b[0] = 0x81;
  b.writeBigUInt64BE(BigInt(n), 1);
  return b;
}

const str = (b: Buffer): Buffer[] => [saveLen(b.length), b];

/** the DUMP payload of a value */
export function dumpPayload(v: RdbValue): Buffer {
  const parts: Buffer[] = [];
  switch (v.type) {
    case KeyType.String: parts.push(Buffer.from([T.String]), ...str(v.value)); break;
    case KeyType.List: case KeyType.Set:
      parts.push(Buffer.from([v.type === KeyType.List ? T.List : T.Set]), saveLen(v.items.length), ...v.items.flatMap(str));
      break;
    case KeyType.Hash:
      parts.push(Buffer.from([T.Hash]), saveLen(v.fields.length), ...v.fields.flatMap((f, i) => [...str(f), ...str(v.values[i])]));
      break;
    case KeyType.Zset:
      parts.push(Buffer.from([T.Zset2]), saveLen(v.members.length));
      // Redis writes a zset's elements from the highest score down (its loader's fast path)
      for (let i = v.members.length - 1; i >= 0; i--) {
        const d = Buffer.allocUnsafe(8);
        d.writeDoubleLE(v.scores[i]);
        parts.push(...str(v.members[i]), d);
      }
      break;
    case KeyType.Stream: writeStream(v, parts); break;
  }
  parts.push(Buffer.from([kRdbVersion, 0]));
  const body = Buffer.concat(parts);
  return Buffer.concat([body, crc64(body)]);
}

// ---- reading

/** the payload's version and checksum hold (verifyDumpPayload) */
export function payloadOk(p: Buffer): boolean {
  if (p.length < 10) return false;
  if (p.readUInt16LE(p.length - 10) > kRdbVersion) return false;
  return crc64(p.subarray(0, p.length - 8)).equals(p.subarray(p.length - 8));
}

const bad = (): never => { throw new BadFormat('bad data format'); };

export class Reader {
  private p = 0;
  constructor(private readonly b: Buffer, private readonly end: number) {}

  byte(): number {
    if (this.p >= this.end) bad();
    return this.b[this.p++];
  }

  take(n: number): Buffer {
    if (n < 0 || this.p + n > this.end) bad();
    const out = this.b.subarray(this.p, this.p + n);
    this.p += n;
    return out;
  }

  /** an RDB length; `special` is set for the 11xxxxxx string encodings */
  len(): { n: number; special: boolean } {
    const first = this.byte();
    const kind = first >> 6;
    if (kind === 0) return { n: first & 0x3f, special: false };
    if (kind === 1) return { n: ((first & 0x3f) << 8) | this.byte(), special: false };
    if (kind === 3) return { n: first & 0x3f, special: true };
    if (first === 0x80) return { n: this.take(4).readUInt32BE(0), special: false };
    if (first === 0x81) {
      const n = this.take(8).readBigUInt64BE(0);
      return { n: n > BigInt(this.end) ? bad() : Number(n), special: false };
    }
    return bad();
  }

  /** an RDB length as the full unsigned 64-bit value (stream ids, counters) */
  u64(): bigint {
    const first = this.byte();
    if (first === 0x81) return this.take(8).readBigUInt64BE(0);
    if (first === 0x80) return BigInt(this.take(4).readUInt32BE(0));
    const kind = first >> 6;
    if (kind === 0) return BigInt(first & 0x3f);
    if (kind === 1) return BigInt(((first & 0x3f) << 8) | this.byte());
    return bad();
  }

  /** rdbLoadMillisecondTime: a signed 64-bit little-endian integer */
  i64(): bigint {
    return this.take(8).readBigInt64LE(0);
  }

  atEnd(): boolean {
    return this.p === this.end;
  }

  count(): number {
    const { n, special } = this.len();
    if (special || n === 0) bad(); // an empty collection is no key (Redis: "empty keys")
    return n;
  }

  string(): Buffer {
    const { n, special } = this.len();
    if (!special) return this.take(n);
    if (n === 0) return Buffer.from(String(this.take(1).readInt8(0)), 'latin1');
    if (n === 1) return Buffer.from(String(this.take(2).readInt16LE(0)), 'latin1');
    if (n === 2) return Buffer.from(String(this.take(4).readInt32LE(0)), 'latin1');
    if (n === 3) {
      const clen = this.len();
      const olen = this.len();
      if (clen.special || olen.special) bad();
      return lzfDecompress(this.take(clen.n), olen.n) ?? bad();
    }
    return bad();
  }

  /** RDB_TYPE_ZSET's scores: a length byte, 253 nan, 254 +inf, 255 -inf, else that many ASCII bytes */
  textDouble(): number {
    const n = this.byte();
    if (n === 253) return NaN;
    if (n === 254) return Infinity;
    if (n === 255) return -Infinity;
    return string2d(this.take(n)) ?? bad();
  }

  binaryDouble(): number {
    return this.take(8).readDoubleLE(0);
  }
}

function pairs(items: Buffer[]): [Buffer[], Buffer[]] {
  if (items.length === 0 || items.length % 2 !== 0) bad();
  const a: Buffer[] = [];
  const b: Buffer[] = [];
  for (let i = 0; i < items.length; i += 2) { a.push(items[i]); b.push(items[i + 1]); }
  return [a, b];
}

const score = (b: Buffer): number => string2d(b) ?? bad();

function distinct(xs: Buffer[]): void {
  const seen = new Set<string>();
  for (const x of xs) {
    const k = x.toString('latin1');
    if (seen.has(k)) bad();
    seen.add(k);
  }
}

function nonEmpty<T>(xs: T[]): T[] {
  if (xs.length === 0) bad();
  return xs;
}

/** The value of a payload that passed payloadOk; throws BadFormat ("Bad data format"). */
export function readPayload(p: Buffer): RdbValue {
  const r = new Reader(p, p.length - 10);
  const type = r.byte();
  let v: RdbValue;
  switch (type) {
    case T.String: return { type: KeyType.String, value: Buffer.from(r.string()) };
    case T.List: { const n = r.count(); v = { type: KeyType.List, items: Array.from({ length: n }, () => r.string()) }; break; }
    case T.ListZiplist: v = { type: KeyType.List, items: nonEmpty(ziplistEntries(r.string())) }; break;
    case T.ListQuicklist: case T.ListQuicklist2: {
      const items: Buffer[] = [];
      for (let n = r.count(); n > 0; n--) {
        if (type === T.ListQuicklist) { items.push(...ziplistEntries(r.string())); continue; }
        const container = r.len();
        if (container.special || (container.n !== 1 && container.n !== 2)) bad();
        const node = r.string();
        if (container.n === 1) items.push(node); else items.push(...nonEmpty(listpackEntries(node)));
      }
      v = { type: KeyType.List, items: nonEmpty(items) };
      break;
    }
    case T.Set: { const n = r.count(); v = { type: KeyType.Set, items: Array.from({ length: n }, () => r.string()) }; break; }
    case T.SetIntset: v = { type: KeyType.Set, items: nonEmpty(intsetEntries(r.string())) }; break;
    case T.Hash: {
      const fields: Buffer[] = [];
      const values: Buffer[] = [];
      for (let n = r.count(); n > 0; n--) { fields.push(r.string()); values.push(r.string()); }
      v = { type: KeyType.Hash, fields, values };
      break;
    }
    case T.HashZiplist: case T.HashListpack: {
      const [fields, values] = pairs((type === T.HashZiplist ? ziplistEntries : listpackEntries)(r.string()));
      v = { type: KeyType.Hash, fields, values };
      break;
    }
    case T.Zset: case T.Zset2: {
      const members: Buffer[] = [];
      const scores: number[] = [];
      for (let n = r.count(); n > 0; n--) {
        members.push(r.string());
        scores.push(type === T.Zset ? r.textDouble() : r.binaryDouble());
      }
      v = { type: KeyType.Zset, members, scores };
      break;
    }
    case T.ZsetZiplist: case T.ZsetListpack: {
      const [members, s] = pairs((type === T.ZsetZiplist ? ziplistEntries : listpackEntries)(r.string()));
      v = { type: KeyType.Zset, members, scores: s.map(score) };
      break;
    }
    case kStreamV1: case kStreamV2: return readStream(r, type);
    default: return bad();
  }
  if (v.type === KeyType.Set) distinct(v.items);
  if (v.type === KeyType.Hash) distinct(v.fields);
  if (v.type === KeyType.Zset) {
    distinct(v.members);
    if (v.scores.some(Number.isNaN)) bad();
  }
  return v;
}
