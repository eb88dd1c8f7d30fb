#!/usr/bin/env python3
"""Any number of servers, one redis-benchmark line, medians (docs/BENCHMARKS.md "Read cache on by default").

usage: server-ab.py ROUNDS 'BENCH ARGS' NAME=TREE|SERVER ARGS|ENV ... (TREE 'redis' starts redis-server without persistence, 'redis-always' with appendfsync always)
  e.g. server-ab.py 7 '-t set -n 200000 -c 50 -P 16 -d 1024 -r 100000' off='.|--cache off' on='.|--cache exclusive'
Each PostRESP runs TREE/dist with its own embedded Postgres (unlogged); the runs alternate, reversed
every other round. Prints req/s, node CPU and Postgres CPU us per request (utime+stime from /proc).
env: PORT_BASE (27600: below the ephemeral range 32768–60999, where a client's own port can take a listener's), OUT (/tmp/h17-abx: data dirs, logs), PREFILL (benchmark args run once on each
first), SHARED_PG=1 (every PostRESP after the first uses the first one's Postgres, a schema each: the
two embedded servers' own differences drop out), CONCURRENT=1 (all servers loaded at the same time
each round: other load on the machine hits them alike; Postgres CPU not split then), HARNESS=TREE (run
TREE/dist/harness/cli.js instead of redis-benchmark, for its --key-distribution zipf:S; same CSV)."""
import os, subprocess, sys, time, re, statistics, signal
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from procstat import cpu, children
reps = int(sys.argv[1]); bargs = sys.argv[2]; specs = sys.argv[3:]
tck = os.sysconf('SC_CLK_TCK'); base = int(os.environ.get('PORT_BASE', '27600')); out = os.environ.get('OUT', '/tmp/h17-abx')
prefill = os.environ.get('PREFILL', '')
harness = os.environ.get('HARNESS')
def bench_cmd(port, extra):
    if harness: return ['node', f'{harness}/dist/harness/cli.js', '--no-autostart', '-p', str(port)] + extra
    return ['redis-benchmark', '-p', str(port)] + extra
def pg_pids(pid):
    pms = [c for c in children(pid) if 'postgres' in open(f'/proc/{c}/cmdline').read()]
    return pms + [x for pm in pms for x in children(pm)]
servers = []
os.makedirs(out, exist_ok=True)
for i, s in enumerate(specs):
    name, rest = s.split('=', 1); tree, args, env = (rest.split('|') + ['', ''])[:3]
    port = base + i; d = f'{out}/pg-{name}'; subprocess.run(['rm', '-rf', d])
    e = dict(os.environ); [e.__setitem__(*kv.split('=', 1)) for kv in env.split(',') if kv]
    if os.environ.get('SHARED_PG') and i > 0 and tree not in ('redis', 'redis-always'):
        # one Postgres for every PostRESP: the first one's embedded server, a schema each
        first = servers[0]
        for _ in range(120):
            m = re.search(r'port (\d+)', open(f'{out}/{first[0]}.log').read())
            if m: break
            time.sleep(1)
        pw = open(f'{out}/pg-{first[0]}/postresp-password').read().strip()
        args = args + f' --pg-url postgres://postgres:{pw}@127.0.0.1:{m.group(1)}/postgres --schema ab_{name}'
    if tree in ('redis', 'redis-always'):
        # redis-always: the durable peer of `--storage-mode logged` (an fsync before every reply)
        persist = ['--appendonly', 'yes', '--appendfsync', 'always', '--dir', f'{out}/redis-{name}'] if tree == 'redis-always' else ['--appendonly', 'no']
        if tree == 'redis-always': subprocess.run(['rm', '-rf', f'{out}/redis-{name}']); os.makedirs(f'{out}/redis-{name}')
        p = subprocess.Popen(['redis-server', '--port', str(port), '--save', ''] + persist, stdout=subprocess.DEVNULL, start_new_session=True)
    else:
        p = subprocess.Popen(['node', f'{tree}/dist/core/primary/main.js', '--port', str(port), '--storage-mode', 'unlogged', '--data-dir', d] + args.split(),
                         stdout=open(f'{out}/{name}.log', 'w'), stderr=subprocess.STDOUT, cwd=tree, start_new_session=True, env=e)
    servers.append((name, p, port, tree in ('redis', 'redis-always')))
try:
    for name, p, port, _ in servers:
        for _ in range(120):
            if subprocess.run(['redis-cli', '-p', str(port), 'ping'], capture_output=True, text=True).stdout.strip() == 'PONG': break
            time.sleep(1)
        if prefill: subprocess.run(bench_cmd(port, ['-q'] + prefill.split()), capture_output=True)
    n = int(re.search(r'-n (\d+)', bargs).group(1)); res = {}; loads = []
    if os.environ.get('CONCURRENT'):
        # every server loaded at the same time: the machine's other load hits them alike
        for r in range(reps):
            owner = servers[0][1].pid if os.environ.get('SHARED_PG') else None
            c0 = {name: cpu(p.pid) for name, p, _, _ in servers}
            ps = {name: subprocess.Popen(bench_cmd(port, ['--csv'] + bargs.split()), stdout=subprocess.PIPE, text=True) for name, p, port, _ in servers}
            outs = {name: q.communicate()[0] for name, q in ps.items()}
            for name, p, port, isr in servers:
                m = re.search(r'^"[^"]+","([\d.]+)"', outs[name].split('\n', 1)[1], re.M)
                res.setdefault(name, []).append((float(m.group(1)) if m else 0, (cpu(p.pid) - c0[name]) * 1e6 / n, 0))
            loads.append(os.getloadavg()[0])
        reps = 0
    for r in range(reps):
        for name, p, port, isr in (servers if r % 2 == 0 else servers[::-1]):
            owner = servers[0][1].pid if os.environ.get('SHARED_PG') else p.pid
            pg = [] if isr else pg_pids(owner)
            c0 = cpu(p.pid); g0 = sum(cpu(x) for x in pg)
            o = subprocess.run(bench_cmd(port, ['--csv'] + bargs.split()), capture_output=True, text=True).stdout
            c1 = cpu(p.pid); g1 = 0 if isr else sum(cpu(x) for x in pg_pids(owner))
            m = re.search(r'^"[^"]+","([\d.]+)"', o.split('\n', 1)[1], re.M)
            res.setdefault(name, []).append((float(m.group(1)) if m else 0, (c1 - c0) * 1e6 / n, (g1 - g0) * 1e6 / n))
            loads.append(os.getloadavg()[0])
    print(f'{bargs}; {reps} rounds; load {min(loads):.1f}-{max(loads):.1f}')
    ref = statistics.median(x[0] for x in res[servers[0][0]])
    for name, *_ in servers:
        xs = res[name]; md = lambda i: statistics.median(x[i] for x in xs)
        print(f'{name:>10}: {md(0):9.0f} req/s ({md(0)/ref:.3f} of {servers[0][0]})  node {md(1):5.2f} us  pg {md(2):5.2f} us   raw {[round(x[0]) for x in xs]} node {[round(x[1],2) for x in xs]}')
    for name, p, port, isr in servers:
        if isr: continue
        t = subprocess.run(['redis-cli', '-p', str(port), 'info', 'cache'], capture_output=True, text=True).stdout
        g = lambda k: int(re.search(k + r':(\d+)', t).group(1)) if re.search(k + r':(\d+)', t) else 0
        if g('cache_hits') + g('cache_misses') > 0:
            print(f'{name:>10}: cache hit ratio {g("cache_hits") / (g("cache_hits") + g("cache_misses")):.3f} over every run ({g("cache_hits")} hits,'
                  f' {g("cache_misses")} misses), fills {g("cache_fills")}, evictions {g("cache_evictions")}, entries {g("cache_entries")}, bytes {g("cache_bytes")}')
finally:
    for _, p, _, _ in servers: os.killpg(p.pid, signal.SIGTERM)
