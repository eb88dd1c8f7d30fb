"""What a PostRESP run cost its embedded Postgres, for the A/B drivers: CPU of the postmaster and its
children (/proc), commits and WAL counters (pg_stat_database, pg_stat_wal), ops per lane batch (/metrics)."""
import os, re, subprocess, time, urllib.request
from procstat import cpu, children, tck

def pg_cpu(data_dir):
    """CPU seconds of the postmaster of DATA_DIR and every process under it."""
    pm = int(open(f'{data_dir}/postmaster.pid').readline())
    return sum(cpu(x) for x in [pm] + children(pm))

def pg_counts(data_dir, port):
    """[commits, WAL syncs, WAL writes, WAL bytes] so far. Backends report them at most once a second."""
    env = dict(os.environ, PGPASSWORD=open(f'{data_dir}/postresp-password').read().strip())
    q = ("SELECT (SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()),"
         " wal_sync, wal_write, wal_bytes::int8 FROM pg_stat_wal")
    o = subprocess.run(['psql', '-h', '127.0.0.1', '-p', str(port), '-U', 'postgres', '-At', '-c', q], capture_output=True, text=True, env=env).stdout
    return [int(x) for x in o.strip().split('|')]

def batches(http_port):
    """(ops, batches, seconds in flight) every lane sent so far, from the server's /metrics (needs --http-port)."""
    t = urllib.request.urlopen(f'http://127.0.0.1:{http_port}/metrics').read().decode()
    total = lambda name: sum(float(x) for x in re.findall(r'^' + name + r'(?:\{[^}]*\})? (\S+)', t, re.M))
    return total('postresp_batch_size_sum'), total('postresp_batch_size_count'), total('postresp_batch_duration_seconds_sum')

def pg_cpu_by_role(data_dir):
    """{pid: (role, user s, kernel s)} of the postmaster and its children; role 'backend' for a
    client connection (a lane, the bus, the cache lock…), else the process title (walwriter…)."""
    pm = int(open(f'{data_dir}/postmaster.pid').readline())
    r = {}
    for pid in [pm] + children(pm):
        try:
            title = open(f'/proc/{pid}/cmdline').read().replace('\0', ' ').strip()
            f = open(f'/proc/{pid}/stat').read().rsplit(')', 1)[1].split()
        except OSError: continue
        role = 'backend' if title.startswith('postgres: postgres ') else title.replace('postgres: ', '') if pid != pm else 'postmaster'
        r[pid] = (role, int(f[11]) / tck, int(f[12]) / tck)
    return r

def snapshot(data_dir, pgport, http_port):
    """Everything a run's Postgres figures are the difference of: CPU, counters, lane batches."""
    return dict(cpu=pg_cpu(data_dir), roles=pg_cpu_by_role(data_dir), counts=pg_counts(data_dir, pgport), batches=batches(http_port))

def per_request(before, data_dir, pgport, http_port, n, wall):
    """What the run since BEFORE cost per request (n requests in wall seconds): Postgres CPU µs (and
    by role: {role: [user, kernel]}), commits, WAL syncs / writes / bytes, ops per batch, µs per batch in flight, lanes busy."""
    pg = (pg_cpu(data_dir) - before['cpu']) * 1e6 / n
    roles = {}  # role: [user µs, kernel µs] per request
    for pid, (role, u, k) in pg_cpu_by_role(data_dir).items():
        _, u0, k0 = before['roles'].get(pid, (role, 0.0, 0.0))
        acc = roles.setdefault(role, [0.0, 0.0]); acc[0] += (u - u0) * 1e6 / n; acc[1] += (k - k0) * 1e6 / n
    time.sleep(1.2)  # backends report their counters at most once a second
    k0, k1 = before['counts'], pg_counts(data_dir, pgport)
    b0, b1 = before['batches'], batches(http_port)
    sent = max(1, b1[1] - b0[1])
    return dict(pg=pg, roles=roles, commits=(k1[0] - k0[0]) / n, flushes=(k1[1] - k0[1]) / n, writes=(k1[2] - k0[2]) / n,
                walb=(k1[3] - k0[3]) / n, batch=(b1[0] - b0[0]) / sent, flight=(b1[2] - b0[2]) * 1e6 / sent,
                busy=(b1[2] - b0[2]) / wall)
