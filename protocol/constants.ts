// Bytes and limits of the RESP wire protocol, with the Redis 7 names they mirror.

export const CR = 13; // \r
export const LF = 10; // \n
export const SPACE = 32; // ' '
export const TAB = 9; // \t
export const VTAB = 11; // \v
export const FORMFEED = 12; // \f
export const NUL = 0; // \0
export const STAR = 42; // *
export const DOLLAR = 36; // $
export const PLUS = 43; // +
export const MINUS = 45; // -
export const COLON = 58; // :
export const COMMA = 44; // ,
export const HASH = 35; // #
export const UNDERSCORE = 95; // _
export const PERCENT = 37; // %
export const TILDE = 126; // ~
export const GREATER = 62; // >
export const EQUALS = 61; // =
export const LPAREN = 40; // (
export const DQUOTE = 34; // "
export const SQUOTE = 39; // '
export const BACKSLASH = 92; // \\
export const DIGIT_0 = 48; // 0
export const DIGIT_1 = 49; // 1
export const DIGIT_9 = 57; // 9
export const LOWER_X = 120; // x

/** Redis PROTO_INLINE_MAX_SIZE: an inline line, or a `*`/`$` header line, may hold 64 KiB before its terminator. */
export const kMaxInlineLen = 64 * 1024;
/** Redis `proto-max-bulk-len` default (512 MiB). */
export const kProtoMaxBulkLen = 512 * 1024 * 1024;
/** Redis `client-query-buffer-limit` default (1 GiB). */
export const kClientQueryBufferLimit = 1024 * 1024 * 1024;
/** Redis 7 refuses a multibulk count above INT_MAX (`ll > INT_MAX` in processMultibulkBuffer). */
export const kMaxMultibulkLen = 2147483647;
/** Redis 7 authRequired() limits: 10 arguments and 16 KiB per argument before AUTH. */
export const kUnauthMaxMultibulkLen = 10;
export const kUnauthMaxBulkLen = 16384;
/** Redis string2ll refuses strings of LONG_STR_SIZE (21) bytes or more. */
export const kLongStrSize = 21;
/** Replies at least this long go to the socket by reference instead of being copied (Redis PROTO_REPLY_CHUNK_BYTES is 16 KiB too). */
export const kReplyByReference = 16 * 1024;
