// Replies encoded once at load, like Redis's `shared` objects (server.c createSharedObjects):
// a hot command copies 5 bytes instead of formatting. Errors that carry a command's words
// live in core's catalogue; these are the protocol-level ones every command shares.

const enc = (s: string): Buffer => Buffer.from(s, 'latin1');

export const kReplies = {
  ok: enc('+OK\r\n'),
  pong: enc('+PONG\r\n'),
  queued: enc('+QUEUED\r\n'),
  /** RESP2 null bulk; RESP3 uses null3 (the writer's nullValue() picks) */
  nullBulk: enc('$-1\r\n'),
  /** RESP2 null array; RESP3 uses null3 (the writer's nullArray() picks) */
  nullArray: enc('*-1\r\n'),
  null3: enc('_\r\n'),
  emptyArray: enc('*0\r\n'),
  emptyBulk: enc('$0\r\n\r\n'),
  zero: enc(':0\r\n'),
  one: enc(':1\r\n'),
  minusOne: enc(':-1\r\n'),
  minusTwo: enc(':-2\r\n'),
  crlf: enc('\r\n'),
  syntaxErr: enc('-ERR syntax error\r\n'),
  wrongType: enc('-WRONGTYPE Operation against a key holding the wrong kind of value\r\n'),
  notInteger: enc('-ERR value is not an integer or out of range\r\n'),
} as const;
