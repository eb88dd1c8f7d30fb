"""What a PostRESP run cost its embedded Postgres, for the A/B drivers: CPU of the postmaster and its
children (/proc), commits and WAL counters (pg_stat_database, pg_stat_wal), ops per lane batch (/metrics)."""
import os, re, subprocess, urllib.request
from procstat import cpu, children

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
