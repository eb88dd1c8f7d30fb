/**
 * FUNCTION DUMP / RESTORE payloads in Redis 7.0's format, so a dump moves between PostRESP and
 * redis-server both ways: per library the RDB_OPCODE_FUNCTION2 byte (245) and its code as an RDB
 * string, then the RDB version (2 bytes, little-endian; 10 in 7.0) and the CRC-64 of all of it
 * (8 bytes, little-endian). Ours writes strings uncompressed (Redis compresses long ones with
 * LZF; both read either).
 */
import { RespError, type Reply } from '../../reply';
import { kOk } from '../../shared-replies';
import type { Session } from '../../session';
import { eqIgnoreCase } from '../args';
import { applyLibraries } from './libraries';
import { changeLibraries } from './library-change';
import { crc64 } from '../dump/crc64';
import { kRdbVersion, payloadOk, saveLen } from '../dump/rdb';
import { loadString } from './rdb-string';

const kOpcodeFunction2 = 245;
const kBadPayload = new RespError('ERR DUMP payload version or checksum are wrong');
const kBadPolicy = new RespError('ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.');
const kNotFunction = new RespError('ERR given type is not a function');

export function dumpLibraries(codes: Buffer[]): Buffer {
  const parts: Buffer[] = [];
  for (const code of codes) parts.push(Buffer.from([kOpcodeFunction2]), saveLen(code.length), code);
  const body = Buffer.concat([...parts, Buffer.from([kRdbVersion, 0])]);
  return Buffer.concat([body, crc64(body)]);
}

/** The libraries' codes in a payload, or the error Redis answers. */
export function parseDump(p: Buffer): Buffer[] | RespError {
  if (!payloadOk(p)) return kBadPayload;
  const codes: Buffer[] = [];
  const end = p.length - 10;
  for (let at = 0; at < end;) {
    if (p[at] !== kOpcodeFunction2) return kNotFunction;
    const s = loadString(p, at + 1);
    if (s === undefined || s.next > end) return kBadPayload;
    codes.push(Buffer.from(s.value));
    at = s.next;
  }
  return codes;
}

export async function restore(s: Session, argv: Buffer[]): Promise<Reply> {
  let policy: 'flush' | 'append' | 'replace' = 'append';
  if (argv.length > 4) {
    return new RespError(`ERR unknown subcommand or wrong number of arguments for '${argv[1].toString('latin1')}'. Try FUNCTION HELP.`);
  }
  if (argv.length === 4) {
    const p = (['flush', 'append', 'replace'] as const).find((w) => eqIgnoreCase(argv[3], w));
    if (p === undefined) return kBadPolicy;
    policy = p;
  }
  const codes = parseDump(argv[2]);
  if (codes instanceof RespError) return codes;
  return changeLibraries(s, async (engine) => {
    const before = engine.listLibraries().map((l) => ({ name: l.name, code: l.code }));
    if (policy === 'flush') engine.flushLibraries();
    for (const code of codes) {
      const r = await engine.loadLibrary(code, policy === 'replace');
      if (r[0] === 45 /* - */) {
        // all or nothing, as Redis (it loads into a new context and merges)
        await applyLibraries(engine, before);
        // RESTORE words a clash as libraryJoin does: no quotes around the name
        return new RespError(r.toString('latin1', 1, r.length - 2).replace(/^ERR Library '(.*)' already exists$/, 'ERR Library $1 already exists'));
      }
    }
    return kOk;
  });
}
