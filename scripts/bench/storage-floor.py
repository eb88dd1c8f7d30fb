#!/usr/bin/env python3
"""Issue 18's storage pairings in one run, with the floor of each (docs/BENCHMARKS.md "Storage floors").

usage: storage-floor.py ROUNDS [PAIRING ...]   (default: every pairing)
  seed-unlogged   -c 20 -P 1 -d 3 -r 10000 SETs, --storage-mode unlogged ↔ redis-server without persistence
  seed-logged     the same, --storage-mode logged ↔ appendonly yes + appendfsync always
  heavy-logged    -c 50 -P 16 -d 1024 -r 100000 SETs, logged ↔ appendfsync always
  heavy-unlogged  the same, unlogged ↔ no persistence, and after every PostRESP run the driver-bench
                  ceiling on its Postgres (the lane driver's upsert, 256 rows a statement, 2 connections,
                  2 and 4 in flight: the best of the two)
Per run: req/s and redis-benchmark's p50 / p99; CPU µs per request (utime+stime) of the server process
(node, or redis-server), of every Postgres process, and of redis-benchmark itself (it shares the cores);
"busy cores" = req/s × all that CPU (2.0 on this 2-core machine means nothing was left to give); commits,
WAL flushes and WAL bytes per request (pg_stat_database, pg_stat_wal); Postgres CPU split by process
(client backends, walwriter, checkpointer…) into user and kernel time; ops per lane batch, a batch's
time in flight (sent → answered) and "lanes busy" = time in flight summed over lanes / the run's wall time
(/metrics): 1.0 with one lane means Postgres always had that lane's next batch, below it the lane waited.
Medians over the rounds; each round runs PostRESP and redis-server in turn, reversed every other round.
env: TREE (this tree: its dist/ is run), PORT_BASE (27900: below the ephemeral range, where a client's own port can take a listener's), OUT (/tmp/postresp-storage-floor), ARGS
(more PostRESP options, e.g. '--batch-gather-ms 2')."""
import json, os, re, resource, signal, statistics, subprocess, sys, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from procstat import cpu
from pgstat import snapshot, per_request

SEED = '-t set -n 200000 -c 20 -P 1 -d 3 -r 10000'
HEAVY = '-t set -n 300000 -c 50 -P 16 -d 1024 -r 100000'
PAIRINGS = {  # name: (storage mode, redis-server persistence, redis-benchmark args, ceiling)
    'seed-unlogged': ('unlogged', 'none', SEED, False),
    'seed-logged': ('logged', 'always', SEED, False),
    'heavy-logged': ('logged', 'always', HEAVY, False),
    'heavy-unlogged': ('unlogged', 'none', HEAVY, True),
}
reps = int(sys.argv[1]); names = sys.argv[2:] or list(PAIRINGS)
tree = os.path.abspath(os.environ.get('TREE', os.path.join(os.path.dirname(os.path.abspath(__file__)), '../..')))
base = int(os.environ.get('PORT_BASE', '27900')); out = os.environ.get('OUT', '/tmp/postresp-storage-floor')
extra = os.environ.get('ARGS', '').split()
cores = os.cpu_count()

def child_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN); return r.ru_utime + r.ru_stime

def start_postresp(mode, port, d):
    subprocess.run(['rm', '-rf', d])
    p = subprocess.Popen(['node', f'{tree}/dist/core/primary/main.js', '--port', str(port), '--http-port', str(port + 1), '--bind', '127.0.0.1',
                          '--storage-mode', mode, '--data-dir', d] + extra, stdout=open(f'{d}.log', 'w'), stderr=subprocess.STDOUT,
                         cwd=tree, start_new_session=True)
    return dict(name='postresp', p=p, port=port, http=port + 1, d=d, redis=False)

def start_redis(persist, port):
    d = f'{out}/redis-{port}'; subprocess.run(['rm', '-rf', d]); os.makedirs(d)
    aof = ['--appendonly', 'yes', '--appendfsync', 'always'] if persist == 'always' else ['--appendonly', 'no']
    p = subprocess.Popen(['redis-server', '--port', str(port), '--bind', '127.0.0.1', '--save', '', '--dir', d] + aof,
                         stdout=subprocess.DEVNULL, start_new_session=True)
    return dict(name=f'redis ({persist})', p=p, port=port, redis=True)

def wait_ready(s):
    for _ in range(180):
        if subprocess.run(['redis-cli', '-p', str(s['port']), 'ping'], capture_output=True, text=True).stdout.strip() == 'PONG': break
        time.sleep(1)
    else: raise SystemExit(f"{s['name']} did not answer on port {s['port']}")
    if not s['redis']:
        s['pgport'] = int(re.search(r'port (\d+)', open(f"{s['d']}.log").read()).group(1))
        s['pw'] = open(f"{s['d']}/postresp-password").read().strip()

def bench(s, bargs, n):
    c0 = cpu(s['p'].pid)
    before = None if s['redis'] else snapshot(s['d'], s['pgport'], s['http'])
    r0 = child_cpu(); t0 = time.time()
    o = subprocess.run(['redis-benchmark', '-p', str(s['port']), '--csv'] + bargs.split(), capture_output=True, text=True).stdout
    wall = time.time() - t0; client = (child_cpu() - r0) * 1e6 / n
    row = dict(node=(cpu(s['p'].pid) - c0) * 1e6 / n, pg=0.0, client=client, commits=0.0, flushes=0.0, walb=0.0, batch=0.0, flight=0.0, busy=0.0)
    m = re.search(r'^"SET","([\d.]+)","[\d.]+","[\d.]+","([\d.]+)","[\d.]+","([\d.]+)"', o, re.M)
    row.update(rps=float(m.group(1)), p50=float(m.group(2)), p99=float(m.group(3)))
    if before: row.update(per_request(before, s['d'], s['pgport'], s['http'], n, wall))
    row['cores'] = row['rps'] * (row['node'] + row['pg'] + row['client']) / 1e6
    return row

def ceiling(s):
    """The driver bench's upsert on the same Postgres, 2 and 4 statements in flight: (best rows/s, its CPU µs/row)."""
    best = (0.0, 0.0)
    for inflight in (2, 4):
        j = f'{out}/driver-{inflight}.json'
        subprocess.run(['node', f'{tree}/dist/harness/driver-bench/index.js', '--url', f"postgres://postgres:{s['pw']}@127.0.0.1:{s['pgport']}/postgres",
                        '--drivers', 'lane', '--workloads', 'upsert', '--batch', '256', '--connections', '2', '--inflight', str(inflight),
                        '--keys', '100000', '--duration', '6', '--warmup', '1', '--json', j], cwd=tree, capture_output=True)
        r = json.load(open(j))['results'][0]
        rate = r['rows'] * 1000 / r['wallMs']
        if rate > best[0]: best = (rate, (r['userUs'] + r['systemUs']) / r['rows'])
    return best

os.makedirs(out, exist_ok=True)
for i, name in enumerate(names):
    mode, persist, bargs, with_ceiling = PAIRINGS[name]
    n = int(re.search(r'-n (\d+)', bargs).group(1))
    servers = []
    try:
        servers = [start_postresp(mode, base + 4 * i, f'{out}/pg-{name}'), start_redis(persist, base + 4 * i + 2)]
        for s in servers:
            wait_ready(s)
            # warm-up: heavy runs fill the 100k keys first (a table that grows is slower than one that is full)
            warm = bargs.replace(f'-n {n}', '-n 200000' if 'P 16' in bargs else '-n 20000')
            subprocess.run(['redis-benchmark', '-p', str(s['port']), '-q'] + warm.split(), capture_output=True)
        res = {s['name']: [] for s in servers}; ceil = []; loads = []
        for r in range(reps):
            for s in (servers if r % 2 == 0 else servers[::-1]):
                row = bench(s, bargs, n); res[s['name']].append(row); loads.append(os.getloadavg()[0])
                print(name, s['name'], {k: (round(v, 3) if isinstance(v, float) else v) for k, v in row.items()}, file=sys.stderr, flush=True)
                if with_ceiling and not s['redis']:
                    c = ceiling(s); ceil.append((row['rps'] / c[0], c[0], c[1]))
                    print(name, 'ceiling', [round(x, 3) for x in ceil[-1]], file=sys.stderr, flush=True)
        print(f'\n**{name}**: `redis-benchmark {bargs}`, PostRESP `--storage-mode {mode}` ↔ redis-server {persist}, '
              f'{reps} rounds, load {min(loads):.1f}–{max(loads):.1f}\n')
        print('| server | req/s (rounds) | × redis | server µs/req | Postgres µs/req | client µs/req | busy cores | commits/req | WAL flushes/req | WAL B/req | ops/batch | µs/batch in flight | lanes busy | p50 / p99 ms |')
        print('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
        ref = statistics.median(x['rps'] for x in res[servers[1]['name']])
        for s in servers:
            xs = res[s['name']]; md = lambda k: statistics.median(x[k] for x in xs)
            rounds = ' / '.join(format(x['rps'], ',.0f') for x in xs)
            print(f"| {s['name']} | {md('rps'):,.0f} ({rounds}) | {md('rps') / ref:.2f} | {md('node'):.1f} | "
                  f"{md('pg'):.1f} | {md('client'):.1f} | {md('cores'):.2f} | {md('commits'):.3f} | {md('flushes'):.3f} | {md('walb'):.0f} | "
                  f"{md('batch'):.1f} | {md('flight'):.0f} | {md('busy'):.2f} | {md('p50'):.2f} / {md('p99'):.2f} |")
        split = {}
        for x in res[servers[0]['name']]:
            for role, (u, k) in x['roles'].items(): split.setdefault(role, []).append((u, k))
        print('\nPostgres CPU by process, µs per request, user + kernel (medians): ' + ', '.join(
            f'{role} {statistics.median(v[0] for v in vs):.1f} + {statistics.median(v[1] for v in vs):.1f}'
            for role, vs in sorted(split.items(), key=lambda kv: -sum(map(sum, kv[1]))) if sum(map(sum, vs)) / len(vs) >= 0.05))
        if ceil:
            print(f"\nDriver-bench ceiling after each PostRESP run: {' / '.join(f'{c[1]:,.0f}' for c in ceil)} rows/s "
                  f"(driver CPU {statistics.median(c[2] for c in ceil):.1f} µs/row); PostRESP / ceiling "
                  f"{' / '.join(f'{c[0]:.2f}' for c in ceil)}, median **{statistics.median(c[0] for c in ceil):.2f}×**")
        sys.stdout.flush()
    finally:
        for s in servers:
            try: os.killpg(s['p'].pid, signal.SIGTERM)
            except Exception: pass
        time.sleep(2)
