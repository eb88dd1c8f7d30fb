#!/usr/bin/env python3
"""A read-cache hit against a PING on the same server (docs/BENCHMARKS.md "A cache hit at a PING's cost").

usage: hit-vs-ping.py ROUNDS NAME=TREE ... (TREE 'redis' starts redis-server)
Each PostRESP runs TREE/dist with --cache exclusive --cache-max-memory $CACHE_MEM (256mb), unlogged,
its own embedded Postgres. Per config (seed: -c 20 -P 1 -d 3 -r 10000; heavy: -c 50 -P 16 -d 1024
-r 100000; CONFIGS=seed,heavy picks): FLUSHALL, prefill every key (--sequential), then GET the
keyspace twice (a key is kept on its second miss) so the measured GETs are (nearly) all hits. Then
ROUNDS rounds, the servers alternating (reversed every other round), each running GET then PING
(-t ping_mbulk). Prints medians of req/s, node CPU and Postgres CPU us per request (utime+stime
from /proc, the node process; its postmaster and children) and the hit ratio of the measured GETs.
The prefill and warm-up use the first PostRESP tree's harness (dist/harness/cli.js --sequential).
env: PORT_BASE (26710, below the ephemeral ports), OUT (/tmp/hit-vs-ping), N_SEED (200000), N_HEAVY (400000), ARGS (more server
options for every PostRESP, e.g. '--workers 1')."""
import os, subprocess, sys, time, re, statistics, signal
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from procstat import cpu, children
reps = int(sys.argv[1]); specs = sys.argv[2:]
base = int(os.environ.get('PORT_BASE', '26710')); out = os.environ.get('OUT', '/tmp/hit-vs-ping')
mem = os.environ.get('CACHE_MEM', '256mb')
n_seed = int(os.environ.get('N_SEED', '200000')); n_heavy = int(os.environ.get('N_HEAVY', '400000'))
configs = {
    'seed': ('-c 20 -P 1 -d 3', 10000, n_seed),
    'heavy': ('-c 50 -P 16 -d 1024', 100000, n_heavy),
}
picked = os.environ.get('CONFIGS', 'seed,heavy').split(',')
def pg_pids(pid):
    pms = [c for c in children(pid) if 'postgres' in open(f'/proc/{c}/cmdline').read()]
    return pms + [x for pm in pms for x in children(pm)]
os.makedirs(out, exist_ok=True)
servers = []
for i, s in enumerate(specs):
    name, tree = s.split('=', 1); port = base + i
    if tree == 'redis':
        p = subprocess.Popen(['redis-server', '--port', str(port), '--save', '', '--appendonly', 'no'],
                             stdout=subprocess.DEVNULL, start_new_session=True)
    else:
        d = f'{out}/pg-{name}'; subprocess.run(['rm', '-rf', d])
        p = subprocess.Popen(['node', f'{tree}/dist/core/primary/main.js', '--port', str(port), '--storage-mode', 'unlogged',
                              '--data-dir', d, '--cache', 'exclusive', '--cache-max-memory', mem] + os.environ.get('ARGS', '').split(),
                             stdout=open(f'{out}/{name}.log', 'w'), stderr=subprocess.STDOUT, start_new_session=True)
    servers.append((name, p, port, tree == 'redis'))
def cli(port, *a):
    return subprocess.run(['redis-cli', '-p', str(port)] + list(a), capture_output=True, text=True).stdout
def bench(port, a):
    return subprocess.run(['redis-benchmark', '-p', str(port), '--csv'] + a.split(), capture_output=True, text=True).stdout
harness = next(s.split('=', 1)[1] for s in specs if not s.endswith('=redis'))
def sequential(port, a):
    # redis-benchmark has no --sequential: the harness (same options) visits every key once
    subprocess.run(['node', f'{harness}/dist/harness/cli.js', '--no-autostart', '-p', str(port), '-q', '--sequential'] + a.split(),
                   capture_output=True, text=True, check=True)
def hits(port):
    t = cli(port, 'info', 'cache')
    g = lambda k: int(re.search(k + r':(\d+)', t).group(1)) if re.search(k + r':(\d+)', t) else 0
    return g('cache_hits'), g('cache_misses')
res = {}
try:
    for name, p, port, _ in servers:
        for _ in range(120):
            if cli(port, 'ping').strip() == 'PONG': break
            time.sleep(1)
    for cfg in picked:
        shape, keys, n = configs[cfg]
        for name, p, port, rd in servers:
            cli(port, 'flushall')
            sequential(port, f'-t set -n {keys} -r {keys} {shape}')
            for _ in range(2): sequential(port, f'-t get -n {keys} -r {keys} {shape}')
            if not rd: print(f'{cfg} {name} after warm-up: dbsize {cli(port, "dbsize").strip()}, hits/misses {hits(port)}', flush=True)
        for r in range(reps):
            for name, p, port, rd in (servers if r % 2 == 0 else servers[::-1]):
                for test in ('get', 'ping_mbulk'):
                    h0 = None if rd else hits(port)
                    pg = [] if rd else pg_pids(p.pid)
                    c0 = cpu(p.pid); g0 = sum(cpu(x) for x in pg)
                    o = bench(port, f'-t {test} -n {n} -r {keys} {shape}')
                    c1 = cpu(p.pid); g1 = sum(cpu(x) for x in pg)
                    m = re.search(r'^"[^"]+","([\d.]+)"', o.split('\n', 1)[1] if '\n' in o else '', re.M)
                    hr = None
                    if not rd and test == 'get':
                        h1 = hits(port); dh, dm = h1[0] - h0[0], h1[1] - h0[1]; hr = dh / max(1, dh + dm)
                    res.setdefault((cfg, name, test), []).append((float(m.group(1)) if m else 0, (c1 - c0) * 1e6 / n, (g1 - g0) * 1e6 / n, hr))
    med = lambda xs, i: statistics.median(x[i] for x in xs)
    print(f'cache-max-memory {mem}; load average now {os.getloadavg()[0]:.1f}')
    print('| config | server | GET req/s | PING req/s | GET node µs | PING node µs | GET pg µs | hit ratio | GET raw req/s | GET raw node µs |')
    print('|---|---|---:|---:|---:|---:|---:|---:|---|---|')
    for cfg in picked:
        for name, _, _, rd in servers:
            g = res[(cfg, name, 'get')]; pi = res[(cfg, name, 'ping_mbulk')]
            hr = '—' if rd else f'{min(x[3] for x in g):.3f}'
            print(f'| {cfg} | {name} | {med(g,0):.0f} | {med(pi,0):.0f} | {med(g,1):.2f} | {med(pi,1):.2f} | {med(g,2):.2f} | {hr} | '
                  f'{" / ".join(str(round(x[0])) for x in g)} | {" / ".join(f"{x[1]:.2f}" for x in g)} |')
finally:
    for _, p, _, _ in servers:
        try: os.killpg(p.pid, signal.SIGTERM)
        except ProcessLookupError: pass
