/**
 * The stream family's statements: reads return kv.type first (no row = missing key); writes and
 * the group commands call ./functions.ts and ./functions-groups.ts. $1 db, $2 key, the last $n
 * now. Ids are passed and returned shifted (./id.ts toSql / fromSql).
 */
import { KeyType, type Statement } from '../../key-store';
import { call } from '../function-call';
import { liveKey } from '../collection/sql';

export const kStreamType = KeyType.Stream;

/** entries of key $2 in [($3, $4), ($5, $6)], at most $7 (NULL: all), in `dir` order */
const range = (dir: 'ASC' | 'DESC'): Statement => ({
  text: `SELECT k.type, e.ms, e.seq, e.fv FROM kv k LEFT JOIN LATERAL (
           SELECT x.ms, x.seq, x.fv FROM stream_entries x WHERE x.db = k.db AND x.key = k.key
             AND (x.ms, x.seq) >= ($3::int8, $4::int8) AND (x.ms, x.seq) <= ($5::int8, $6::int8)
           ORDER BY x.ms ${dir}, x.seq ${dir} LIMIT $7::int8) e ON k.type = ${kStreamType}
         WHERE ${liveKey(8)} ORDER BY e.ms ${dir}, e.seq ${dir}`,
});

const kTrim = ['int2', 'bool', 'int8', 'int8', 'int8', 'int8'];

export const kStreamSql = {
  range: range('ASC'),
  revRange: range('DESC'),
  add: call('x_add', 'status, ms, seq, trimmed', 'int2', 'bytea', 'int2', 'int8', 'int8', 'bytea[]', 'bool', ...kTrim,
    'int8', 'int8', 'int8', 'int8', 'int8'),
  trim: call('x_trim', 'status, n', 'int2', 'bytea', ...kTrim, 'int8'),
  del: call('x_del', 'status, n', 'int2', 'bytea', 'int8[]', 'int8[]', 'int8'),
  setId: call('x_setid', 'status', 'int2', 'bytea', 'int8', 'int8', 'int8', 'int8', 'int8', 'int8'),
  /** $2 keys, $3/$4 ids (NULL: '$'), $5 count */
  read: call('x_read', 'i, type, ms, seq, fv', 'int2', 'bytea[]', 'int8[]', 'int8[]', 'int8', 'int8'),
  /** each key's last id (NULL: no such stream), i = its position: XREAD BLOCK's '$' */
  lastIds: {
    text: `SELECT t.i::int4, k.x_last_ms, k.x_last_seq FROM unnest($2::bytea[]) WITH ORDINALITY AS t(key, i)
           LEFT JOIN kv k ON k.db = $1::int2 AND k.key = t.key AND k.type = ${kStreamType} AND (k.expires_at IS NULL OR k.expires_at > $3::int8)`,
  },
  groupCreate: call('x_group_create', 'status, created', 'int2', 'bytea', 'bytea', 'int8', 'int8', 'bool', 'int8', 'int8'),
  groupOp: call('x_group_op', 'status, n', 'int2', 'bytea', 'bytea', 'int2', 'int8', 'int8', 'int8', 'bytea', 'int8'),
  /** … $10 now, $11 the waiter's number (NULL: none yet), $12 BLOCK '>' (status 0: registered, 9: entries left) */
  readGroup: call('x_readgroup', 'status, i, ms, seq, fv', 'int2', 'bytea[]', 'int8[]', 'int8[]', 'bytea', 'bytea', 'int8',
    'bool', 'int4', 'int8', 'int8', 'bool'),
  ack: call('x_ack', 'status, n', 'int2', 'bytea', 'bytea', 'int8[]', 'int8[]', 'int8'),
  pendingSum: call('x_pending_sum', 'status, consumer, n, lo_ms, lo_seq, hi_ms, hi_seq', 'int2', 'bytea', 'bytea', 'int8'),
  pending: call('x_pending', 'status, ms, seq, consumer, idle, deliveries', 'int2', 'bytea', 'bytea', 'int8', 'int8', 'int8',
    'int8', 'int8', 'int8', 'bytea', 'int8'),
  claim: call('x_claim', 'status, ms, seq, fv', 'int2', 'bytea', 'bytea', 'bytea', 'int8', 'int8[]', 'int8[]', 'int8', 'int8',
    'bool', 'bool', 'int8', 'int8', 'int8'),
  autoClaim: call('x_autoclaim', 'status, ms, seq, fv', 'int2', 'bytea', 'bytea', 'bytea', 'int8', 'int8', 'int8', 'int8',
    'bool', 'int8'),
  /** the type of key $2, for the errors Redis checks after WRONGTYPE */
  type: { text: `SELECT k.type FROM kv k WHERE ${liveKey(3)}` },
  /** XINFO STREAM: the stream's state, its first and last entries, nodes and groups */
  info: {
    text: `SELECT k.type, k.card, k.x_last_ms, k.x_last_seq, k.x_maxdel_ms, k.x_maxdel_seq, k.x_added,
             f.ms, f.seq, f.fv, l.ms, l.seq, l.fv,
             (SELECT count(*) FROM stream_nodes t WHERE t.db = k.db AND t.key = k.key),
             (SELECT count(*) FROM stream_groups g WHERE g.db = k.db AND g.key = k.key)
           FROM kv k
           LEFT JOIN LATERAL (SELECT x.ms, x.seq, x.fv FROM stream_entries x WHERE x.db = k.db AND x.key = k.key
             ORDER BY x.ms, x.seq LIMIT 1) f ON true
           LEFT JOIN LATERAL (SELECT x.ms, x.seq, x.fv FROM stream_entries x WHERE x.db = k.db AND x.key = k.key
             ORDER BY x.ms DESC, x.seq DESC LIMIT 1) l ON true
           WHERE ${liveKey(3)}`,
  },
  /**
   * XINFO STREAM FULL's lists, the first $3 of each (NULL: all), one kind per row: 1 entries
   * (ms, seq, fv), 2 groups (grp, last id, a entries_read, b pending), 3 a group's pending
   * entries (grp, consumer, id, a delivered, b deliveries; in id order whatever the consumer), 4 consumers (grp, consumer, a seen,
   * b pending), 5 a consumer's pending entries (grp, consumer, id, a delivered, b deliveries)
   */
  infoFull: {
    text: `SELECT * FROM (SELECT 1 AS kind, NULL::bytea AS grp, NULL::bytea AS consumer, x.ms, x.seq, x.fv, NULL::int8 AS a, NULL::int8 AS b
             FROM (SELECT x.ms, x.seq, x.fv FROM stream_entries x WHERE x.db = $1::int2 AND x.key = $2::bytea
               ORDER BY x.ms, x.seq LIMIT $3::int8) x
           UNION ALL SELECT 2, g.grp, NULL, g.last_ms, g.last_seq, NULL, g.entries_read,
             (SELECT count(*) FROM stream_pel p WHERE p.db = g.db AND p.key = g.key AND p.grp = g.grp)
             FROM stream_groups g WHERE g.db = $1::int2 AND g.key = $2::bytea
           UNION ALL SELECT 3, g.grp, p.consumer, p.ms, p.seq, NULL, p.delivered, p.deliveries
             FROM stream_groups g CROSS JOIN LATERAL (SELECT p.consumer, p.ms, p.seq, p.delivered, p.deliveries FROM stream_pel p
               WHERE p.db = g.db AND p.key = g.key AND p.grp = g.grp ORDER BY p.ms, p.seq LIMIT $3::int8) p
             WHERE g.db = $1::int2 AND g.key = $2::bytea
           UNION ALL SELECT 4, c.grp, c.consumer, NULL, NULL, NULL, c.seen,
             (SELECT count(*) FROM stream_pel p WHERE p.db = c.db AND p.key = c.key AND p.grp = c.grp AND p.consumer = c.consumer)
             FROM stream_consumers c WHERE c.db = $1::int2 AND c.key = $2::bytea
           UNION ALL SELECT 5, c.grp, c.consumer, p.ms, p.seq, NULL, p.delivered, p.deliveries
             FROM stream_consumers c CROSS JOIN LATERAL (SELECT p.ms, p.seq, p.delivered, p.deliveries FROM stream_pel p
               WHERE p.db = c.db AND p.key = c.key AND p.grp = c.grp AND p.consumer = c.consumer ORDER BY p.ms, p.seq LIMIT $3::int8) p
             WHERE c.db = $1::int2 AND c.key = $2::bytea) u
           ORDER BY kind, grp, CASE WHEN kind = 3 THEN NULL ELSE consumer END, ms, seq`,
  },
  /** XINFO GROUPS: each group with its consumer count, pending count and lag inputs */
  groups: {
    text: `SELECT k.type, g.grp, g.last_ms, g.last_seq, g.entries_read,
             (SELECT count(*) FROM stream_consumers c WHERE c.db = g.db AND c.key = g.key AND c.grp = g.grp),
             (SELECT count(*) FROM stream_pel p WHERE p.db = g.db AND p.key = g.key AND p.grp = g.grp),
             k.card, k.x_last_ms, k.x_last_seq, k.x_added, k.x_maxdel_ms, k.x_maxdel_seq, f.ms, f.seq
           FROM kv k LEFT JOIN stream_groups g ON g.db = k.db AND g.key = k.key AND k.type = ${kStreamType}
           LEFT JOIN LATERAL x_first(k.db, k.key) f ON true
           WHERE ${liveKey(3)} ORDER BY g.grp`,
  },
  /** XINFO CONSUMERS key $3: type, whether the group exists, then its consumers with pending counts */
  consumers: {
    text: `SELECT k.type, g.grp IS NOT NULL, c.consumer, c.seen,
             (SELECT count(*) FROM stream_pel p WHERE p.db = c.db AND p.key = c.key AND p.grp = c.grp AND p.consumer = c.consumer)
           FROM kv k LEFT JOIN stream_groups g ON g.db = k.db AND g.key = k.key AND g.grp = $3::bytea AND k.type = ${kStreamType}
           LEFT JOIN stream_consumers c ON c.db = g.db AND c.key = g.key AND c.grp = g.grp
           WHERE ${liveKey(4)} ORDER BY c.consumer`,
  },
} satisfies Record<string, Statement>;
