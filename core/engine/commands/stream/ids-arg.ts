/** A run of id arguments (XDEL, XACK, XCLAIM) as the int8[] pair the functions take. */
import { RespError } from '../../reply';
import { parseFullId, toSql } from './id';

export interface IdArrays { ms: BigInt64Array; seq: BigInt64Array }

/** argv[from … to) as strict ids (missing seq 0); the first invalid one's error */
export function idArrays(argv: Buffer[], from: number, to = argv.length): IdArrays | RespError {
  const ms = new BigInt64Array(to - from);
  const seq = new BigInt64Array(to - from);
  for (let i = from; i < to; i++) {
    const id = parseFullId(argv[i], 0n, true);
    if (id instanceof RespError) return id;
    ms[i - from] = toSql(id.ms);
    seq[i - from] = toSql(id.seq);
  }
  return { ms, seq };
}
