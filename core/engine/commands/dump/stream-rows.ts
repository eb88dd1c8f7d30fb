/**
 * A stream between its RDB form (./rdb-stream.ts) and its rows: DUMP reads dump_rows's stream
 * kinds (./functions.ts), RESTORE packs restore_stream's arrays. Ids are stored shifted
 * (stream/id.ts toSql / fromSql).
 */
import { KeyType, type Rows } from '../../key-store';
import { int8Array } from '../../pg-driver/binary-array';
import { encodeBufferArray } from '../exec';
import { compareIds, fromSql, toSql, type StreamId } from '../stream/id';
import type { StreamGroup, StreamNode, StreamValue } from './rdb-stream';

const id = (ms: unknown, seq: unknown): StreamId => ({ ms: fromSql(ms), seq: fromSql(seq) });
const big = (v: unknown): bigint => BigInt(v as string);

/** dump_rows's rows of a stream (column 4 the kind) as the value DUMP serializes */
export function streamFromRows(rows: Rows): StreamValue {
  const v: StreamValue = { type: KeyType.Stream, nodes: [], length: 0n, last: { ms: 0n, seq: 0n }, first: { ms: 0n, seq: 0n },
    maxDel: { ms: 0n, seq: 0n }, added: 0n, groups: [] };
  const masters: StreamId[] = [];
  const groups = new Map<string, StreamGroup>();
  let node: StreamNode | undefined;
  let m = 0;
  for (const r of rows) {
    switch (r[4] as number) {
      case 0: v.last = id(r[5], r[6]); v.added = big(r[7]); v.length = big(r[8]); break;
      case 1: v.maxDel = id(r[5], r[6]); break;
      case 2: masters.push(id(r[5], r[6])); break;
      case 3: {
        // an entry joins the last node whose first id is not above it (stream_nodes' key)
        const e = { id: id(r[5], r[6]), fv: r[9] as Buffer[] };
        let moved = false;
        while (m < masters.length && compareIds(masters[m], e.id) <= 0) { m++; moved = true; }
        if (node === undefined || moved) {
          node = { master: m > 0 ? masters[m - 1] : e.id, entries: [], total: 0, bytes: 0, last: e.id };
          v.nodes.push(node);
        }
        node.entries.push(e);
        break;
      }
      case 4: {
        const g: StreamGroup = { name: r[1] as Buffer, last: id(r[5], r[6]), entriesRead: r[7] === null ? null : big(r[7]), pel: [], consumers: [] };
        groups.set(g.name.toString('latin1'), g);
        v.groups.push(g);
        break;
      }
      case 5: groups.get((r[1] as Buffer).toString('latin1'))?.consumers.push({ name: r[2] as Buffer, seen: big(r[7]) }); break;
      default:
        groups.get((r[1] as Buffer).toString('latin1'))?.pel.push({ id: id(r[5], r[6]), delivered: big(r[7]), count: big(r[8]), consumer: r[2] as Buffer });
    }
  }
  if (v.nodes.length > 0) v.first = v.nodes[0].entries[0].id;
  return v;
}

const ids = (xs: StreamId[]) => xs.flatMap((x) => [toSql(x.ms), toSql(x.seq)]);

/** restore_stream's parameters after (db, key, replace, expiry, now) */
export function streamParams(v: StreamValue): unknown[] {
  const nodes = v.nodes.flatMap((n) => [...ids([n.master]), BigInt(n.entries.length), BigInt(n.total), BigInt(n.bytes), ...ids([n.last])]);
  const entries = v.nodes.flatMap((n) => n.entries);
  const fe: bigint[] = [];
  entries.forEach((e, i) => { for (let k = 0; k < e.fv.length; k++) fe.push(BigInt(i + 1)); });
  const consumers = v.groups.flatMap((g) => g.consumers.map((c) => ({ g: g.name, ...c })));
  const pel = v.groups.flatMap((g) => g.pel.map((p) => ({ g: g.name, ...p })));
  // typed binary arrays: an empty plain JS array would go as bytea[]
  return [
    int8Array([v.length, ...ids([v.last]), v.added, ...ids([v.maxDel])]),
    int8Array(nodes), int8Array(ids(entries.map((e) => e.id))), encodeBufferArray(entries.flatMap((e) => e.fv)), int8Array(fe),
    encodeBufferArray(v.groups.map((g) => g.name)), int8Array(v.groups.flatMap((g) => [...ids([g.last]), g.entriesRead])),
    encodeBufferArray(consumers.map((c) => c.g)), encodeBufferArray(consumers.map((c) => c.name)), int8Array(consumers.map((c) => c.seen)),
    encodeBufferArray(pel.map((p) => p.g)), encodeBufferArray(pel.map((p) => p.consumer)),
    int8Array(pel.flatMap((p) => [...ids([p.id]), p.delivered, p.count])),
  ];
}
