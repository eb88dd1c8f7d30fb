/**
 * Every configuration option: one row each. Flags (`--port 6380`), environment (`POSTRESP_PORT`),
 * the config file (`port 6380`), CONFIG GET/SET and the README's reference all read this table.
 * Option names are Redis's where Redis has the option.
 */
import os from 'node:os';

export type OptionType = 'int' | 'bytes' | 'bool' | 'enum' | 'string' | 'octal';

export interface OptionSpec {
  name: string;
  type: OptionType;
  default: string;
  description: string;
  /** CONFIG SET may change it while running */
  mutable: boolean;
  /** accepted for compatibility with Redis tooling; changes nothing here */
  noop?: boolean;
  /** CONFIG GET/SET never show it (e.g. options that only exist at start) */
  startOnly?: boolean;
  min?: number;
  max?: number;
  values?: readonly string[];
}

const kCores = Math.max(1, os.availableParallelism?.() ?? os.cpus().length);

const opt = (o: OptionSpec): OptionSpec => o;

export const kOptions: readonly OptionSpec[] = [
  // network
  opt({ name: 'bind', type: 'string', default: '127.0.0.1', mutable: false, description: 'addresses to listen on, space separated; * = every IPv4 address, ::* = every IPv6 address, a leading - = skip it if this host lacks it' }),
  opt({ name: 'port', type: 'int', default: '6379', min: 0, max: 65535, mutable: false, description: 'TCP port; 0 picks a free port, 0 with unixsocket or tls-port set disables plain TCP' }),
  opt({ name: 'unixsocket', type: 'string', default: '', mutable: false, description: 'path of a Unix socket to listen on as well' }),
  opt({ name: 'unixsocketperm', type: 'octal', default: '0', min: 0, max: 0o777, mutable: false, description: 'permissions of the Unix socket, octal (0 = umask default)' }),
  opt({ name: 'tcp-keepalive', type: 'int', default: '300', min: 0, max: 2147483647, mutable: true, description: 'TCP keepalive interval in seconds (0 = off)' }),
  opt({ name: 'timeout', type: 'int', default: '0', min: 0, max: 2147483647, mutable: true, description: 'close a client idle this many seconds (0 = never)' }),
  opt({ name: 'maxclients', type: 'int', default: '10000', min: 1, max: 1000000, mutable: true, description: 'connected clients at most; one more gets an error and is closed' }),
  opt({ name: 'http-port', type: 'int', default: '0', min: 0, max: 65535, mutable: false, description: 'admin HTTP port for /metrics, /healthz, /info (0 = off)' }),
  opt({ name: 'http-bind', type: 'string', default: '127.0.0.1', mutable: false, description: 'address of the admin HTTP listener' }),
  opt({ name: 'http-tls', type: 'bool', default: 'no', mutable: false, description: 'serve the admin HTTP over TLS with tls-cert-file, tls-key-file and tls-key-file-pass (read at start)' }),
  // TLS (Redis 7.0's names and defaults; docs/tls.md): handshakes run in the worker that owns the socket
  opt({ name: 'tls-port', type: 'int', default: '0', min: 0, max: 65535, mutable: false, description: 'TLS port on the --bind addresses (0 = no TLS listener)' }),
  opt({ name: 'tls-cert-file', type: 'string', default: '', mutable: true, description: 'server certificate (PEM, chain allowed); CONFIG SET reloads it for new connections' }),
  opt({ name: 'tls-key-file', type: 'string', default: '', mutable: true, description: 'private key of tls-cert-file (PEM)' }),
  opt({ name: 'tls-key-file-pass', type: 'string', default: '', mutable: true, description: 'passphrase of an encrypted tls-key-file' }),
  opt({ name: 'tls-ca-cert-file', type: 'string', default: '', mutable: true, description: 'CA certificates (PEM) that client certificates must chain to' }),
  opt({ name: 'tls-ca-cert-dir', type: 'string', default: '', mutable: true, description: 'folder of CA certificates (PEM files), like tls-ca-cert-file' }),
  opt({ name: 'tls-auth-clients', type: 'enum', default: 'yes', values: ['no', 'yes', 'optional'], mutable: true, description: 'client certificates: yes = required, optional = verified when sent, no = not asked for' }),
  opt({ name: 'tls-protocols', type: 'string', default: '', mutable: true, description: 'protocols allowed, space separated: TLSv1 TLSv1.1 TLSv1.2 TLSv1.3 (empty = TLSv1.2 TLSv1.3)' }),
  opt({ name: 'tls-ciphers', type: 'string', default: '', mutable: true, description: 'OpenSSL cipher list for TLSv1.2 and below (empty = Node\'s default)' }),
  opt({ name: 'tls-ciphersuites', type: 'string', default: '', mutable: true, description: 'TLSv1.3 cipher suites, colon separated (empty = Node\'s default)' }),
  opt({ name: 'tls-prefer-server-ciphers', type: 'bool', default: 'no', mutable: true, description: 'choose the cipher by the server\'s order, not the client\'s' }),
  opt({ name: 'tls-session-caching', type: 'bool', default: 'yes', mutable: true, description: 'let clients resume TLS sessions (session tickets)' }),
  opt({ name: 'tls-session-cache-timeout', type: 'int', default: '300', min: 0, max: 2147483647, mutable: true, description: 'seconds a TLS session may be resumed' }),
  opt({ name: 'tls-dh-params-file', type: 'string', default: '', mutable: true, description: 'DH parameters (PEM) for DHE ciphers; empty = none (ECDHE only)' }),
  // Redis's TLS options for replication, cluster and their outgoing connections: nothing here uses them
  ...[['tls-session-cache-size', 'int', '20480'], ['tls-client-cert-file', 'string', ''], ['tls-client-key-file', 'string', ''],
    ['tls-client-key-file-pass', 'string', ''], ['tls-replication', 'bool', 'no'], ['tls-cluster', 'bool', 'no']].map(([name, type, def]) =>
    opt({ name, type: type as OptionType, default: def, min: 0, max: 2147483647, mutable: true, noop: true, description: 'accepted for compatibility; no effect' })),
  // threads
  opt({ name: 'workers', type: 'int', default: String(kCores), min: 1, max: 256, mutable: false, description: 'worker threads that own client connections (default: available cores)' }),
  // security
  opt({ name: 'requirepass', type: 'string', default: '', mutable: true, description: 'password of the default user (AUTH / HELLO AUTH); empty = no password' }),
  opt({ name: 'aclfile', type: 'string', default: '', mutable: false, description: 'ACL users file (Redis format: one `user <name> <rules>` line each), read at start and by ACL LOAD, written by ACL SAVE' }),
  opt({ name: 'protected-mode', type: 'bool', default: 'yes', mutable: true, description: 'while the default user has no password, refuse (DENIED) clients not on 127.0.0.1, ::1 or the Unix socket' }),
  // protocol limits
  opt({ name: 'proto-max-bulk-len', type: 'bytes', default: '512mb', min: 1024 * 1024, max: 2 ** 53, mutable: true, description: 'largest bulk string a client may send' }),
  opt({ name: 'client-query-buffer-limit', type: 'bytes', default: '1gb', min: 1024 * 1024, max: 2 ** 53, mutable: true, description: 'largest incomplete request held for a client before it is closed' }),
  opt({ name: 'client-output-buffer-limit', type: 'string', default: 'normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60', mutable: true, description: 'per class: hard limit, soft limit, soft seconds; for normal clients 0 0 0 = unlimited, like Redis' }),
  // keyspace
  opt({ name: 'notify-keyspace-events', type: 'string', default: '', mutable: true, description: 'keyspace notifications: Redis\'s class letters (K E g $ l s h z x e t m d n A); empty = off' }),
  opt({ name: 'tracking-table-max-keys', type: 'int', default: '1000000', min: 0, max: 2 ** 53, mutable: true, description: 'CLIENT TRACKING: keys remembered at most per process (split between workers); past it the oldest are invalidated; 0 = no limit' }),
  opt({ name: 'hll-sparse-max-bytes', type: 'bytes', default: '3000', min: 0, max: 2 ** 31 - 1, mutable: true, description: 'a HyperLogLog in the sparse encoding longer than this turns dense (header included), as in Redis' }),
  opt({ name: 'databases', type: 'int', default: '16', min: 1, max: 32767, mutable: false, description: 'number of logical databases (SELECT 0..n-1)' }),
  // operations
  opt({ name: 'enable-debug-command', type: 'enum', default: 'no', values: ['no', 'yes', 'local'], mutable: false, description: 'allow DEBUG (tests use it to crash a worker); local = loopback and Unix socket clients only' }),
  opt({ name: 'shutdown-timeout', type: 'int', default: '10', min: 0, max: 3600, mutable: true, description: 'seconds SHUTDOWN/SIGTERM wait for in-flight replies before closing clients' }),
  opt({ name: 'loglevel', type: 'enum', default: 'notice', values: ['debug', 'verbose', 'notice', 'warning', 'nothing'], mutable: true, description: 'log verbosity (stderr)' }),
  // Postgres
  opt({ name: 'pg-url', type: 'string', default: '', mutable: false, startOnly: true, description: 'PostgreSQL connection URL; else DATABASE_URL, else libpq PG* variables, else embedded' }),
  opt({ name: 'pg-password-file', type: 'string', default: '', mutable: false, startOnly: true, description: 'file whose first line is the Postgres password (becomes PGPASSWORD; a password in the URL wins); TLS to Postgres: sslmode, sslrootcert, sslcert, sslkey in the URL' }),
  opt({ name: 'data-dir', type: 'string', default: './.postresp/pg', mutable: false, startOnly: true, description: 'data folder of the embedded PostgreSQL' }),
  opt({ name: 'schema', type: 'string', default: 'postresp', mutable: false, description: 'Postgres schema holding the keyspace' }),
  opt({ name: 'storage-mode', type: 'enum', default: 'logged', values: ['unlogged', 'logged-async', 'logged'], mutable: false, description: 'unlogged tables, logged with synchronous_commit=off, or logged and synchronous' }),
  opt({ name: 'convert-storage-mode', type: 'bool', default: 'no', mutable: false, startOnly: true, description: 'allow changing the storage mode of an existing keyspace (ALTER TABLE … SET LOGGED/UNLOGGED)' }),
  opt({ name: 'pg-connections', type: 'int', default: '1', min: 1, max: 64, mutable: false, description: 'Postgres connections (lanes) per worker' }),
  opt({ name: 'script-connections', type: 'int', default: '4', min: 1, max: 64, mutable: false, description: 'Postgres connections per worker kept for EVAL/FCALL transactions (opened on first use); more concurrent scripts wait' }),
  opt({ name: 'script-batch-ms', type: 'int', default: '0', min: 0, max: 60000, mutable: true, description: 'script calls queued together share one transaction until they have run this long (ms), the rest go to the next (every reply waits for its batch\'s COMMIT); 0 = each call its own transaction (docs/scripting.md)' }),
  opt({ name: 'batch-max-commands', type: 'int', default: '256', min: 1, max: 65536, mutable: true, description: 'commands at most in one batched statement' }),
  opt({ name: 'shared-lanes', type: 'bool', default: 'no', mutable: false, description: 'worker 0\'s lanes also batch the plain SETs of the other workers\' clients (handed over through shared rings): larger batches, fewer commits at low pipeline depth (docs/BENCHMARKS.md "Batching across worker threads")' }),
  opt({ name: 'batch-transaction', type: 'bool', default: 'yes', mutable: true, description: 'a batch of several statements commits once (one transaction), retried statement by statement after an error' }),
  opt({ name: 'batch-max-bytes', type: 'bytes', default: '4mb', min: 1024, max: 2 ** 31, mutable: true, description: 'argument bytes at most in one batched statement' }),
  opt({ name: 'worker-fill', type: 'int', default: '24', min: 0, max: 1 << 20, mutable: true, description: 'a new connection goes to the first worker with fewer than this many connections, then to the one with the fewest (0: always the fewest): up to this many clients share one thread, its lanes and batches' }),
  opt({ name: 'lane-spill', type: 'int', default: '0', min: 0, max: 65536, mutable: true, description: 'a client with nothing unanswered goes to the first lane unless that lane has a batch in Postgres and this many ops queued, then to the next (large batches at low pipeline depth, a second backend under load); 0: each client pinned to a lane round robin' }),
  opt({ name: 'batch-pipeline-min', type: 'int', default: '64', min: 0, max: 65536, mutable: true, description: 'ops queued behind a one-statement batch in flight that go out at once, pipelined behind it (0: never)' }),
  opt({ name: 'batch-gather-ms', type: 'int', default: '0', min: 0, max: 100, mutable: true, description: 'with commands queued when a lane\'s batch answers, wait up to this long (ms) for its clients\' next commands so both go out as one batch (0: send at once)' }),
  opt({ name: 'cache', type: 'enum', default: 'exclusive', values: ['exclusive', 'shared', 'off'], mutable: false, description: 'read cache of GET/MGET in each process: exclusive (the default) = exact, on only while this is the only instance serving the schema (an advisory lock, said in the log; a second instance, whatever its --cache, turns it off for all until restart; a worker whose lookups hit under a quarter of the time looks up one read in 8); shared = every shared instance caches, writes of the others arrive over the bus (stale by at most the notification delay, under a 250 ms lease); off = never; use it where SQL changes the tables directly behind PostRESP (docs/cache.md)' }),
  opt({ name: 'cache-max-memory', type: 'bytes', default: '64mb', min: 0, max: 2 ** 40, mutable: true, description: 'read cache bytes at most per process (one arena shared by the workers; CONFIG SET can lower it, not raise it past the value at the start); values over 64kb are not cached' }),
  // accepted, no effect: Redis parameters tools set (encoding thresholds, persistence, eviction)
  // maxmemory is checked as Redis checks it: the 7.0 suite's unit/multi expects `CONFIG SET maxmemory bla` to fail
  opt({ name: 'maxmemory', type: 'bytes', default: '0', min: 0, max: 2 ** 53, mutable: true, noop: true, description: 'accepted for compatibility; no effect' }),
  // Redis's policies in its order (its CONFIG SET error lists them so); nothing is evicted, but
  // OBJECT FREQ and IDLETIME answer or refuse by whether it names an LFU policy, as in Redis
  opt({ name: 'maxmemory-policy', type: 'enum', default: 'noeviction', values: ['volatile-lru', 'volatile-lfu', 'volatile-random',
    'volatile-ttl', 'allkeys-lru', 'allkeys-lfu', 'allkeys-random', 'noeviction'], mutable: true, noop: true,
  description: 'accepted for compatibility: no eviction; an LFU policy makes OBJECT FREQ answer and OBJECT IDLETIME refuse' }),
  ...[
    ['save', '3600 1 300 100 60 10000'], ['appendonly', 'no'], ['appendfsync', 'everysec'],
    ['maxmemory-samples', '5'],
    ['hash-max-listpack-entries', '128'], ['hash-max-listpack-value', '64'],
    ['hash-max-ziplist-entries', '128'], ['hash-max-ziplist-value', '64'],
    ['list-max-listpack-size', '-2'], ['list-max-ziplist-size', '-2'], ['list-compress-depth', '0'],
    ['set-max-intset-entries', '512'], ['set-max-listpack-entries', '128'],
    ['zset-max-listpack-entries', '128'], ['zset-max-listpack-value', '64'],
    ['zset-max-ziplist-entries', '128'], ['zset-max-ziplist-value', '64'],
    ['stream-node-max-bytes', '4096'], ['stream-node-max-entries', '100'],
    ['hz', '10'], ['dynamic-hz', 'yes'], ['activerehashing', 'yes'], ['activedefrag', 'no'],
    ['lazyfree-lazy-eviction', 'no'], ['lazyfree-lazy-expire', 'no'], ['lazyfree-lazy-server-del', 'no'],
    ['lazyfree-lazy-user-del', 'no'], ['lazyfree-lazy-user-flush', 'no'],
    ['slowlog-log-slower-than', '10000'], ['slowlog-max-len', '128'],
    ['latency-monitor-threshold', '0'], ['latency-tracking', 'yes'], ['lua-time-limit', '5000'],
    ['busy-reply-threshold', '5000'], ['dir', ''], ['dbfilename', 'dump.rdb'],
    ['appendfilename', 'appendonly.aof'], ['io-threads', '1'], ['io-threads-do-reads', 'no'],
    ['replica-read-only', 'yes'], ['maxmemory-clients', '0'],
  ].map(([name, def]) =>
    opt({ name, type: 'string', default: def, mutable: true, noop: true, description: 'accepted for compatibility; no effect' })),
];

export const kOptionsByName: ReadonlyMap<string, OptionSpec> = new Map(kOptions.map((o) => [o.name, o]));
