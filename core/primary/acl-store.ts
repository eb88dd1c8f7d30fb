/**
 * The ACL users in Postgres (schema v10: acl_users, acl_version), shared by every instance on the
 * schema. A change is one statement on the bus connection, committed only if the version is still
 * the one the change was judged against (another instance's change in between: nothing is
 * written, the caller reads again and judges again), and it notifies the other instances in the
 * same transaction:
 *
 *   read (version n, op, lines) ─▶ judge the mutation ─▶ UPDATE … WHERE version = n
 *        ▲                                                   │ 0 rows: lost the race
 *        └───────────────────────────────────────────────────┘ 1 row: users written, U<n+1> notified
 */
import type { PgResult } from '../engine/pg-driver/result';
import type { PgParam } from '../engine/pg-driver/native-conn';
import type { PgStmt } from '../bus/pg-link';

export interface AclState {
  version: number;
  /** the op that made this version: setuser, deluser, requirepass or load */
  op: string;
  /** ACL LIST lines, `user <name> <rules>` */
  lines: string[];
}

/** What the store needs of the bus link (core/bus/pg-link.ts PgLink) */
export interface AclStoreLink {
  readonly channel: string;
  query(sql: string, params: PgParam[]): Promise<PgResult>;
  exec(build: (head: (type: string) => string) => PgStmt[]): Promise<PgResult[]>;
}

// one snapshot: the version and the users it describes
const kRead = `SELECT v.version::text, v.op, u.line FROM acl_version v LEFT JOIN acl_users u ON true`;

// the users become exactly `lines`: rows not named are deleted, the others upserted (unchanged
// rows are not rewritten); all of it only when the version is still $1. The notification goes
// out either way (empty version when nothing was written): its head took a sequence number, and
// a gap in an instance's sequence counts as lost notifications (pg-link.ts)
const kWrite = `WITH v AS (UPDATE acl_version SET version = version + 1, op = $2 WHERE version = $1::int8 RETURNING version),
  d AS (DELETE FROM acl_users WHERE EXISTS (SELECT FROM v) AND NOT (name = ANY($3::text[]))),
  u AS (INSERT INTO acl_users (name, line) SELECT n, l FROM v, unnest($3::text[], $4::text[]) AS t(n, l)
        ON CONFLICT (name) DO UPDATE SET line = excluded.line WHERE acl_users.line IS DISTINCT FROM excluded.line)
  SELECT (SELECT version FROM v)::text, pg_notify($5, $6 || coalesce((SELECT version FROM v)::text, ''))`;

export class AclStore {
  constructor(private readonly link: AclStoreLink) {}

  async read(): Promise<AclState> {
    const r = await this.link.query(kRead, []);
    // no row: the schema predates v10's row (never: the migration inserts it); as a fresh one
    if (r.rowCount === 0) return { version: 0, op: 'load', lines: [] };
    const lines: string[] = [];
    for (let i = 0; i < r.rowCount; i++) {
      const line = r.text(i, 2);
      if (line !== null) lines.push(line);
    }
    return { version: Number(r.text(0, 0)), op: r.text(0, 1)!, lines };
  }

  /** Writes lines as version expected + 1; false when another instance changed the users first. */
  async write(expected: number, op: string, lines: string[]): Promise<boolean> {
    const names = lines.map((l) => l.split(' ', 2)[1]!);
    const [r] = await this.link.exec((head) => [[kWrite, [String(expected), op, names, lines, this.link.channel, head('U')]]]);
    return r!.text(0, 0) !== null;
  }
}
