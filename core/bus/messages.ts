/**
 * Bus messages between a worker's MessageBus (core/bus/bus.ts) and the primary's BusHub
 * (core/bus/hub.ts), on the worker's MessagePort. Data between workers goes on a
 * BroadcastChannel instead (LocalFrame); these carry interest and what crosses instances.
 *
 *   worker ──hello──────────────────▶ hub     (started: forget this index's old interest)
 *   worker ──count{id,key,n}────────▶ hub ──view{key,others,remote,id}──▶ every other worker
 *   worker ◀─done{id}──────────────── hub ◀─ack{id}──────────────────────  (each of them)
 *   worker ──out{items}─────────────▶ hub ──▶ Postgres (other instances)
 *   worker ◀─in{items}─────────────── hub ◀── Postgres
 *   worker ──kill{kind}─────────────▶ hub ──▶ Postgres ──▶ other instances' hubs: stop their scripts
 *   a push waiting for other instances' woken clients (wakeServed): its 'w' item in 'out' carries
 *   the ask id; their hubs hand it to their workers ('in', a token id), which answer served{id};
 *   the answer comes back through Postgres (S) and reaches the asking worker as served{ids}
 */
import type { BusItem, ItemKind } from './codec';

/** A bus item flattened for structured clone: kind, db, a, b (Buffers arrive as Uint8Array). */
export type WireItems = (ItemKind | number | Uint8Array)[];

export type BusToHub =
  /** slots: this worker's socket slots (socket-slots.ts), for the other workers to write its subscribers */
  | { type: 'bus'; op: 'hello'; slots?: SharedArrayBuffer }
  /** direct: the socket slots of key's n subscribers that have one (channel keys only) */
  | { type: 'bus'; op: 'count'; id: number; key: string; n: number; direct?: number[] }
  | { type: 'bus'; op: 'ack'; id: number }
  | { type: 'bus'; op: 'out'; items: WireItems }
  | { type: 'bus'; op: 'kill'; kind: ScriptKind }
  /** the clients woken by another instance's push (the 'in' item's token id) tried again */
  | { type: 'bus'; op: 'served'; id: number };

/** SCRIPT KILL stops EVAL scripts, FUNCTION KILL functions */
export type ScriptKind = 'script' | 'function';

/** others: subscriptions (or blocked clients) for key in the other workers of this process;
 * holders: those workers as bits (indexes 0–30; PUBLISH asks them for their count);
 * remote: whether another instance has any. id: acknowledge once applied.
 * direct (channel keys): per other worker holding key, flat [worker, subscribers without a socket
 * slot, k, slot × k]: the publishing worker writes the slotted ones' sockets itself. */
export interface ViewEntry { key: string; others: number; holders: number; remote: boolean; direct?: number[] }

export type HubToBus =
  | { type: 'bus'; op: 'view'; entries: ViewEntry[]; id?: number }
  | { type: 'bus'; op: 'done'; id: number }
  | { type: 'bus'; op: 'in'; items: WireItems }
  /** the socket slot tables of the workers (index → buffer; a gone worker's is absent) */
  | { type: 'bus'; op: 'slots'; tables: (SharedArrayBuffer | undefined)[] }
  /** the other instances served the clients that these wakeServed asks woke there (or gave up) */
  | { type: 'bus'; op: 'served'; ids: number[] };

/**
 * On the process's BroadcastChannel: one publishing worker's items, in its order, packed into
 * one byte array (local-frame.ts). asks: flat [item index, ask id, holder bits…] of the items
 * whose receivers PUBLISH waits to count: each worker whose bit is set answers with a
 * CountFrame to `from`.
 */
export interface LocalFrame {
  from: number;
  bytes: Uint8Array;
  asks?: number[];
  /** [item index, worker, slot …]: the publisher wrote that item to that subscriber itself (socket-slots.ts) */
  skip?: number[];
  /** [worker, slot …]: slots whose pending count this frame raised by one (its items for them come this way) */
  counted?: number[];
  /** the rest of a short direct send, to be written first, for restTo's [worker, slot …] */
  rest?: Uint8Array[];
  restTo?: number[];
}

/** The answer to a frame's asks: flat [ask id, receivers here…], for worker `to` alone. */
export interface CountFrame { from: number; to: number; counts: number[] }

/** A Buffer over a structured-cloned Uint8Array, without copying. */
export function asBuffer(u: Uint8Array): Buffer {
  return Buffer.isBuffer(u) ? u : Buffer.from(u.buffer, u.byteOffset, u.byteLength);
}

export function itemsFromWire(items: WireItems): BusItem[] {
  const out: BusItem[] = [];
  for (let i = 0; i + 3 < items.length; i += 4) {
    out.push({ kind: items[i] as ItemKind, db: items[i + 1] as number, a: asBuffer(items[i + 2] as Uint8Array), b: asBuffer(items[i + 3] as Uint8Array) });
  }
  return out;
}

export function itemsToWire(items: readonly BusItem[]): WireItems {
  const out: WireItems = [];
  for (const it of items) out.push(it.kind, it.db, it.a, it.b);
  return compactWire(out);
}

/** views up to this size are packed together; a larger one that is a whole ArrayBuffer goes as is */
const kPackMax = 64 * 1024;

/**
 * Before a postMessage: structured clone copies the whole ArrayBuffer under each view, and the
 * parser's arguments are views into a 16 KiB read slab (workers/read-slab.ts), Buffer.allocUnsafe
 * ones into an 8 KiB pool. A 1 KB PUBLISH cloned 16 KiB and the receiving worker allocated as
 * much per frame: 12 µs of postMessage and 11 µs of GC per message at 5k msgs/s (profiles in
 * docs/messaging.md). So the frame's byte views are copied, in place, into one ArrayBuffer of
 * exactly their size: one clone of that, one allocation on the other side. Returns items.
 */
export function compactWire(items: WireItems): WireItems {
  let total = 0;
  for (let i = 2; i < items.length; i += (i & 3) === 2 ? 1 : 3) {
    const u = items[i] as Uint8Array;
    if (u.byteLength <= kPackMax || u.byteOffset !== 0 || u.byteLength !== u.buffer.byteLength) total += u.byteLength;
  }
  if (total === 0) return items;
  const arena = Buffer.allocUnsafeSlow(total);
  let at = 0;
  for (let i = 2; i < items.length; i += (i & 3) === 2 ? 1 : 3) {
    const u = items[i] as Uint8Array;
    if (u.byteLength > kPackMax && u.byteOffset === 0 && u.byteLength === u.buffer.byteLength) continue;
    arena.set(u, at);
    items[i] = arena.subarray(at, at + u.byteLength);
    at += u.byteLength;
  }
  return items;
}
