/**
 * A stream in Redis 7.0's DUMP serialization (rdb.c rdbSaveObject / rdbLoadObject):
 *
 *   type 19 (RDB_TYPE_STREAM_LISTPACKS_2; 15 is 5.0–6.2's, read only)
 *   nodes: n, then per node its master id (a 16-byte string, ms and seq big-endian) and its listpack
 *   length, last id (ms seq), [v2: first id, max-deleted-entry-id, entries-added]   (RDB lengths)
 *   groups: n, then per group: name, last-delivered id, [v2: entries-read, 2^64-1 = unknown],
 *     its PEL: n × (16-byte raw id, delivery time i64 LE ms, delivery count),
 *     its consumers: n × (name, seen-time i64 LE ms, its PEL: n × 16-byte raw id)
 *
 * A node's listpack (t_stream.c): the master entry `count deleted nfields field… 0`, then per
 * entry `flags ms-diff seq-diff [nfields field value … | value …] lp-count`, SAMEFIELDS (2)
 * when the entry's fields are the master's, DELETED (1) for an XDELed entry still in the node.
 *
 * Reading checks everything the storage relies on (ids in order, counts, the length, every PEL
 * entry owned by one consumer): a payload that fails is "Bad data format", never half a key.
 */
import { KeyType } from '../../key-store';
import { compareIds, type StreamId } from '../stream/id';
import { canonicalInt, ListpackWriter } from './listpack-write';
import { BadFormat, listpackEntries } from './packed';
import { saveLen, type Reader } from './rdb';

export const kStreamV1 = 15;
export const kStreamV2 = 19;

export interface StreamEntry { id: StreamId; fv: Buffer[] }
/** a listpack node: total counts its XDELed entries too, bytes is node-limits.ts's estimate */
export interface StreamNode { master: StreamId; entries: StreamEntry[]; total: number; bytes: number; last: StreamId }
export interface StreamPending { id: StreamId; delivered: bigint; count: bigint; consumer: Buffer }
export interface StreamConsumer { name: Buffer; seen: bigint }
export interface StreamGroup { name: Buffer; last: StreamId; entriesRead: bigint | null; pel: StreamPending[]; consumers: StreamConsumer[] }
export interface StreamValue {
  type: KeyType.Stream; nodes: StreamNode[]; length: bigint; last: StreamId; first: StreamId; maxDel: StreamId; added: bigint;
  groups: StreamGroup[];
}

const kSameFields = 2;
const kDeleted = 1;
const kU64Max = 2n ** 64n - 1n;
const kI64Max = 2n ** 63n - 1n;
const bad = (): never => { throw new BadFormat('bad data format'); };

// ---- writing

function idBytes(id: StreamId): Buffer {
  const b = Buffer.alloc(16);
  b.writeBigUInt64BE(id.ms, 0);
  b.writeBigUInt64BE(id.seq, 8);
  return b;
}

function i64(v: bigint): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigInt64LE(v);
  return b;
}

/** rdbSaveRawString without compression: an int-looking string of ≤ 11 bytes as an integer */
function rawString(s: Buffer): Buffer[] {
  const v = s.length <= 11 ? canonicalInt(s) : undefined;
  if (v !== undefined && v >= -128n && v <= 127n) return [Buffer.from([0xc0, Number(v) & 0xff])];
  if (v !== undefined && v >= -32768n && v <= 32767n) { const b = Buffer.alloc(3); b[0] = 0xc1; b.writeInt16LE(Number(v), 1); return [b]; }
  if (v !== undefined && v >= -2147483648n && v <= 2147483647n) { const b = Buffer.alloc(5); b[0] = 0xc2; b.writeInt32LE(Number(v), 1); return [b]; }
  return [saveLen(s.length), s];
}

function sameFields(fv: Buffer[], master: Buffer[]): boolean {
  if (fv.length !== master.length * 2) return false;
  for (let i = 0; i < master.length; i++) if (!fv[2 * i].equals(master[i])) return false;
  return true;
}

/** a node as streamAppendItem builds it: the master fields are those of its first entry */
function nodeListpack(n: StreamNode): Buffer {
  const lp = new ListpackWriter();
  const master = n.entries[0].fv.filter((_, i) => i % 2 === 0);
  lp.int(n.entries.length);
  lp.int(0);
  lp.int(master.length);
  for (const f of master) lp.element(f);
  lp.int(0);
  for (const e of n.entries) {
    const same = sameFields(e.fv, master);
    lp.int(same ? kSameFields : 0);
    lp.int(BigInt.asIntN(64, e.id.ms - n.master.ms));
    lp.int(BigInt.asIntN(64, e.id.seq - n.master.seq));
    if (same) {
      for (let i = 1; i < e.fv.length; i += 2) lp.element(e.fv[i]);
      lp.int(master.length + 3);
    } else {
      lp.int(e.fv.length / 2);
      for (const x of e.fv) lp.element(x);
      lp.int(e.fv.length + 4);
    }
  }
  return lp.finish();
}

/** the stream's serialization after its type byte */
export function writeStream(v: StreamValue, out: Buffer[]): void {
  const id = (x: StreamId) => out.push(saveLen(x.ms), saveLen(x.seq));
  out.push(Buffer.from([kStreamV2]), saveLen(v.nodes.length));
  for (const n of v.nodes) out.push(...rawString(idBytes(n.master)), ...rawString(nodeListpack(n)));
  out.push(saveLen(v.length));
  id(v.last);
  id(v.first);
  id(v.maxDel);
  out.push(saveLen(v.added), saveLen(v.groups.length));
  for (const g of v.groups) {
    out.push(...rawString(g.name));
    id(g.last);
    out.push(saveLen(g.entriesRead ?? kU64Max), saveLen(g.pel.length));
    for (const p of g.pel) out.push(idBytes(p.id), i64(p.delivered), saveLen(p.count));
    out.push(saveLen(g.consumers.length));
    const owned = new Map<string, StreamPending[]>();
    for (const p of g.pel) {
      const k = p.consumer.toString('latin1');
      const list = owned.get(k);
      if (list === undefined) owned.set(k, [p]); else list.push(p);
    }
    for (const c of g.consumers) {
      const mine = owned.get(c.name.toString('latin1')) ?? [];
      out.push(...rawString(c.name), i64(c.seen), saveLen(mine.length));
      for (const p of mine) out.push(idBytes(p.id));
    }
  }
}

// ---- reading

const key = (id: StreamId) => `${id.ms}-${id.seq}`;

function readId16(b: Buffer): StreamId {
  if (b.length !== 16) bad();
  return { ms: b.readBigUInt64BE(0), seq: b.readBigUInt64BE(8) };
}

/** one node's listpack; `prev` is the last id of the node before (ids rise across the stream) */
function readNode(master: StreamId, lp: Buffer, prev: StreamId | null): StreamNode {
  const items = listpackEntries(lp);
  let i = 0;
  const next = (): Buffer => (i < items.length ? items[i++] : bad());
  const num = (): bigint => canonicalInt(next()) ?? bad();
  const small = (): number => { const v = num(); return v < 0n || v > BigInt(items.length) ? bad() : Number(v); };
  const count = small();
  const deleted = small();
  const fields = Array.from({ length: small() }, next);
  if (num() !== 0n) bad();
  const entries: StreamEntry[] = [];
  let dead = 0;
  let bytes = 0;
  let last = prev;
  while (i < items.length) {
    const flags = num();
    if (flags < 0n || flags > 3n) bad();
    const id = { ms: BigInt.asUintN(64, master.ms + num()), seq: BigInt.asUintN(64, master.seq + num()) };
    if ((last !== null && compareIds(id, last) <= 0) || compareIds(id, master) < 0) bad();
    last = id;
    let fv: Buffer[];
    if (flags & BigInt(kSameFields)) fv = fields.flatMap((f) => [f, next()]);
    else fv = Array.from({ length: small() * 2 }, next);
    if (num() !== BigInt(flags & BigInt(kSameFields) ? fields.length + 3 : fv.length + 4)) bad();
    bytes += 8;
    for (const x of fv) bytes += x.length + 2;
    if (flags & BigInt(kDeleted)) dead++;
    else entries.push({ id, fv: fv.length === 0 ? bad() : fv });
  }
  if (entries.length !== count || dead !== deleted || last === null || last === prev) bad();
  return { master, entries, total: count + deleted, bytes, last: last as StreamId };
}

function readId(r: Reader): StreamId {
  return { ms: r.u64(), seq: r.u64() };
}

/** a counter stored as int8 here */
function counter(v: bigint): bigint {
  return v > kI64Max ? bad() : v;
}

/** streamEstimateDistanceFromFirstEverEntry, for v1 payloads (no entries-read; max-deleted 0-0) */
function estimate(v: StreamValue, id: StreamId): bigint | null {
  if (v.added === 0n) return 0n;
  const cmpLast = compareIds(id, v.last);
  if (v.length === 0n && cmpLast <= 0) return v.added;
  if (cmpLast === 0) return v.added;
  if (cmpLast > 0) return null;
  const cmpFirst = compareIds(id, v.first);
  if (cmpFirst < 0) return v.added - v.length;
  return cmpFirst === 0 ? v.added - v.length + 1n : null;
}

/** the stream after its type byte (15 or 19) */
export function readStream(r: Reader, type: number): StreamValue {
  const nodes: StreamNode[] = [];
  const seenNodes = new Set<string>();
  let prev: StreamId | null = null;
  for (let n = r.u64(); n > 0n; n--) {
    const master = readId16(r.string());
    if (seenNodes.has(key(master)) || (prev !== null && compareIds(master, prev) <= 0)) bad();
    seenNodes.add(key(master));
    const node = readNode(master, r.string(), prev);
    prev = node.last;
    // a node whose entries were all XDELed holds nothing here (x_del removes such a node)
    if (node.entries.length > 0) nodes.push(node);
  }
  const length = counter(r.u64());
  let live = 0n;
  for (const n of nodes) live += BigInt(n.entries.length);
  const last = readId(r);
  if (live !== length || (prev !== null && compareIds(prev, last) > 0)) bad();
  const firstLive = nodes.length > 0 ? nodes[0].entries[0].id : { ms: 0n, seq: 0n };
  const v: StreamValue = { type: KeyType.Stream, nodes, length, last, first: firstLive, maxDel: { ms: 0n, seq: 0n }, added: length, groups: [] };
  if (type === kStreamV2) {
    readId(r); // the recorded first id: derived from the entries here (stream/functions.ts x_first)
    v.maxDel = readId(r);
    v.added = counter(r.u64());
  }
  const names = new Set<string>();
  for (let n = r.u64(); n > 0n; n--) {
    const name = r.string();
    if (names.has(name.toString('latin1'))) bad();
    names.add(name.toString('latin1'));
    const gLast = readId(r);
    let entriesRead: bigint | null;
    if (type === kStreamV2) {
      const er = r.u64();
      entriesRead = er === kU64Max ? null : counter(er);
    } else entriesRead = estimate(v, gLast);
    const pel = new Map<string, StreamPending & { owned: boolean }>();
    for (let k = r.u64(); k > 0n; k--) {
      const id = readId16(r.take(16));
      const p = { id, delivered: r.i64(), count: counter(r.u64()), consumer: Buffer.alloc(0), owned: false };
      if (pel.has(key(id))) bad();
      pel.set(key(id), p);
    }
    const consumers: StreamConsumer[] = [];
    const cnames = new Set<string>();
    for (let k = r.u64(); k > 0n; k--) {
      const cname = r.string();
      if (cnames.has(cname.toString('latin1'))) bad();
      cnames.add(cname.toString('latin1'));
      consumers.push({ name: cname, seen: r.i64() });
      for (let m = r.u64(); m > 0n; m--) {
        const p = pel.get(key(readId16(r.take(16))));
        if (p === undefined || p.owned) return bad(); // not in the group's PEL, or owned twice
        p.owned = true;
        p.consumer = cname;
      }
    }
    const list = [...pel.values()];
    if (list.some((p) => !p.owned)) bad(); // a pending entry with no consumer
    list.sort((a, b) => compareIds(a.id, b.id));
    v.groups.push({ name, last: gLast, entriesRead, consumers,
      pel: list.map((p) => ({ id: p.id, delivered: p.delivered, count: p.count, consumer: p.consumer })) });
  }
  return v;
}
