/**
 * Argument parsing the stream commands share: XADD/XTRIM's trimming options, COUNT, and range
 * bounds with `(` for exclusive ends (redis-server 7.0.15's texts).
 */
import { RespError } from '../../reply';
import { Err } from '../../resp-errors';
import { eqIgnoreCase, parseI64 } from '../args';
import { kInvalidId, nextId, parseFullId, parseId, prevId, type StreamId } from './id';

export const enum Trim { None = 0, MaxLen = 1, MinId = 2 }

export interface TrimArgs {
  trim: Trim;
  approx: boolean;
  maxlen: bigint;
  minid: StreamId;
  /** 0: no limit; undefined: not given (~ then limits to 100 × stream-node-max-entries) */
  limit: bigint | undefined;
}

export interface AddArgs extends TrimArgs {
  /** position of the id argument */
  idAt: number;
  noMkStream: boolean;
}

const kTrimBoth = new RespError('ERR syntax error, MAXLEN and MINID options at the same time are not compatible');
const kMaxlenNeg = new RespError('ERR The MAXLEN argument must be >= 0.');
const kLimitNeg = new RespError('ERR The LIMIT argument must be >= 0.');
const kLimitNoTrim = new RespError('ERR syntax error, LIMIT cannot be used without specifying a trimming strategy');
const kXtrimNoTrim = new RespError('ERR syntax error, XTRIM must be called with a trimming strategy');
const kLimitNoApprox = new RespError('ERR syntax error, LIMIT cannot be used without the special ~ option');
export const kInvalidStart = new RespError('ERR invalid start ID for the interval');
export const kInvalidEnd = new RespError('ERR invalid end ID for the interval');

const isWord = (b: Buffer, c: string) => b.length === 1 && b[0] === c.charCodeAt(0);

/** streamParseAddOrTrimArgsOrReply: options from argv[2]; for XADD stops at the id */
export function parseTrimArgs(argv: Buffer[], xadd: boolean): AddArgs | RespError {
  const a: AddArgs = { trim: Trim.None, approx: false, maxlen: 0n, minid: { ms: 0n, seq: 0n }, limit: undefined, idAt: argv.length, noMkStream: false };
  let i = 2;
  let limit = 0n;
  for (; i < argv.length; i++) {
    const more = argv.length - 1 - i;
    const o = argv[i];
    if (xadd && isWord(o, '*')) break;
    if ((eqIgnoreCase(o, 'maxlen') || eqIgnoreCase(o, 'minid')) && more > 0) {
      if (a.trim !== Trim.None) return kTrimBoth;
      a.approx = false;
      const next = argv[i + 1];
      if (more >= 2 && isWord(next, '~')) { a.approx = true; i++; } else if (more >= 2 && isWord(next, '=')) i++;
      if (eqIgnoreCase(o, 'maxlen')) {
        const n = parseI64(argv[i + 1]);
        if (n === undefined) return Err.notInteger;
        if (n < 0n) return kMaxlenNeg;
        a.maxlen = n;
        a.trim = Trim.MaxLen;
      } else {
        const id = parseFullId(argv[i + 1], 0n, true);
        if (id instanceof RespError) return id;
        a.minid = id;
        a.trim = Trim.MinId;
      }
      i++;
    } else if (eqIgnoreCase(o, 'limit') && more > 0) {
      const n = parseI64(argv[i + 1]);
      if (n === undefined) return Err.notInteger;
      if (n < 0n) return kLimitNeg;
      limit = n;
      a.limit = n;
      i++;
    } else if (xadd && eqIgnoreCase(o, 'nomkstream')) {
      a.noMkStream = true;
    } else if (xadd) {
      if (parseId(o, 0n, true, true) === undefined) return kInvalidId;
      break;
    } else {
      return Err.syntax;
    }
  }
  a.idAt = i;
  if (limit !== 0n && a.trim === Trim.None) return kLimitNoTrim;
  if (!xadd && a.trim === Trim.None) return kXtrimNoTrim;
  if (a.limit !== undefined && !a.approx) return kLimitNoApprox;
  return a;
}

/** the work limit Redis applies: LIMIT as given, else 100 nodes' worth with ~, none when exact */
export function trimLimit(a: TrimArgs, nodeMaxEntries: number): bigint {
  if (!a.approx) return 0n;
  return a.limit ?? BigInt(100 * nodeMaxEntries);
}

/** COUNT's value (getLongLongFromObjectOrReply) */
export function parseCount(b: Buffer): bigint | RespError {
  const n = parseI64(b);
  return n === undefined ? Err.notInteger : n;
}

/**
 * A range start (inclusive; `(id` exclusive): streamParseIntervalIDOrReply, then the next id
 * for an exclusive one.
 */
export function parseStart(b: Buffer): StreamId | RespError {
  const ex = b.length > 1 && b[0] === 40; // (
  const id = parseFullId(ex ? b.subarray(1) : b, 0n, ex);
  if (id instanceof RespError || !ex) return id;
  return nextId(id) ?? kInvalidStart;
}

/** A range end (missing seq = the largest; `(id` exclusive) */
export function parseEnd(b: Buffer): StreamId | RespError {
  const ex = b.length > 1 && b[0] === 40; // (
  const id = parseFullId(ex ? b.subarray(1) : b, 0xffffffffffffffffn, ex);
  if (id instanceof RespError || !ex) return id;
  return prevId(id) ?? kInvalidEnd;
}
