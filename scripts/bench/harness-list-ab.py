#!/usr/bin/env python3
"""The harness's default-list tests against redis-server and PostRESP builds (docs/BENCHMARKS.md "The default
list's single-key writes: where a push's time goes").

usage: harness-list-ab.py ROUNDS TESTS NAME=TREE[|ARGS] ...
  e.g. harness-list-ab.py 3 set,get,incr,lpush,rpush,lpop,rpop,sadd,hset,spop,zadd,zpopmin,mset main=.
redis-server (--save '' --appendonly no) plus one PostRESP per NAME (TREE/dist, its own embedded Postgres,
unlogged). Each round: FLUSHALL everywhere, then the tests in the given order (so the pops find what the
pushes left, as in the default list), each as `node dist/harness/cli.js -t TEST -P 16 -d 1024 -n N --csv`
on every server in turn (order reversed every other round). Prints per test the medians of req/s, the
ratio to redis-server and CPU us per request (utime+stime from /proc of the server process; of the
postmaster and all its children), and each server's sum of n / rate (the list's time).
env: N (requests per test, 100000), PORT_BASE (26700, below the ephemeral ports), OUT (/tmp/harness-list-ab: data dirs, logs)."""
import os, subprocess, sys, time, re, statistics, signal
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from procstat import cpu, children
reps = int(sys.argv[1]); tests = sys.argv[2].split(','); specs = ['redis=redis'] + sys.argv[3:]
base = int(os.environ.get('PORT_BASE', '26700')); out = os.environ.get('OUT', '/tmp/harness-list-ab'); n = int(os.environ.get('N', '100000'))
H = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'dist', 'harness', 'cli.js')
os.makedirs(out, exist_ok=True)
def pg_pids(pid):
    pms = [c for c in children(pid) if 'postgres' in open(f'/proc/{c}/cmdline').read()]
    return pms + [x for pm in pms for x in children(pm)]
servers = []
for i, s in enumerate(specs):
    name, rest = s.split('=', 1); tree, args = (rest.split('|') + [''])[:2]
    port = base + i; d = f'{out}/pg-{name}'; subprocess.run(['rm', '-rf', d])
    if tree == 'redis':
        p = subprocess.Popen(['redis-server', '--port', str(port), '--save', '', '--appendonly', 'no'], stdout=subprocess.DEVNULL, start_new_session=True)
    else:
        p = subprocess.Popen(['node', f'{tree}/dist/core/primary/main.js', '--port', str(port), '--storage-mode', 'unlogged', '--data-dir', d] + args.split(),
                             stdout=open(f'{out}/{name}.log', 'w'), stderr=subprocess.STDOUT, cwd=tree, start_new_session=True)
    servers.append((name, p, port, tree == 'redis'))
res = {}; loads = []
try:
    for name, p, port, _ in servers:
        for _ in range(180):
            if subprocess.run(['redis-cli', '-p', str(port), 'ping'], capture_output=True, text=True).stdout.strip() == 'PONG': break
            time.sleep(1)
        else:  # a port taken by someone else: stop, or the harness would retry the refused port forever
            sys.exit(f'{name} did not answer on port {port} (see {out}/{name}.log)')
    for r in range(reps):
        for name, p, port, _ in servers: subprocess.run(['redis-cli', '-p', str(port), 'flushall'], capture_output=True)
        for t in tests:
            for name, p, port, isr in (servers if r % 2 == 0 else servers[::-1]):
                pg = [] if isr else pg_pids(p.pid)
                c0 = cpu(p.pid); g0 = sum(cpu(x) for x in pg); w0 = time.time()
                o = subprocess.run(['node', H, '--no-autostart', '-p', str(port), '-t', t, '-P', '16', '-d', '1024', '-n', str(n), '--csv'], capture_output=True, text=True).stdout
                c1 = cpu(p.pid); g1 = 0 if isr else sum(cpu(x) for x in pg_pids(p.pid))
                m = re.search(r'^"[^"]+","([\d.]+)"', o.split('\n', 1)[1] if '\n' in o else '', re.M)
                res.setdefault((t, name), []).append((float(m.group(1)) if m else 0, (c1 - c0) * 1e6 / n, (g1 - g0) * 1e6 / n))
                loads.append(os.getloadavg()[0])
            print(t, r, {name: round(res[(t, name)][-1][0]) for name, *_ in servers}, flush=True)
    print(f'{tests}; {reps} rounds; n {n}; load {min(loads):.1f}-{max(loads):.1f}')
    for t in tests:
        ref = statistics.median(x[0] for x in res[(t, 'redis')])
        if ref == 0:  # a step that prints no rate (lrange_fill only fills the list for the LRANGE tests)
            print(f'{t:>8}: no rate (a fill step)', flush=True); continue
        line = f'{t:>8}: redis {ref:8.0f} (cpu {statistics.median(x[1] for x in res[(t,"redis")]):.2f})'
        for name, *_ in servers[1:]:
            xs = res[(t, name)]; md = lambda i: statistics.median(x[i] for x in xs)
            line += f' | {name} {md(0):8.0f} {md(0)/ref:.3f}x node {md(1):5.2f} pg {md(2):5.2f} raw {[round(x[0]/1000,1) for x in xs]}'
        print(line, flush=True)
    for name, *_ in servers:
        print(name, 'sum n/rate', round(sum(n / statistics.median(x[0] for x in res[(t, name)]) for t in tests if statistics.median(x[0] for x in res[(t, name)]) > 0), 2))
finally:
    for _, p, _, _ in servers: os.killpg(p.pid, signal.SIGTERM)
