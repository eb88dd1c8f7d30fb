#!/usr/bin/env python3
"""One running PostRESP, one mutable option flipped by CONFIG SET between runs (docs/BENCHMARKS.md
"Node CPU per SET at the seed config"): the same process and Postgres for every value, so only the
option differs. Runs alternate over the values, reversed every other round; medians.

usage: config-ab.py PID PORT HTTP_PORT OPTION V1,V2,... ROUNDS 'BENCH ARGS'
  e.g. config-ab.py 1234 6379 6380 batch-gather-ms 0,2 5 '-t set -n 40000 -c 20 -P 1 -d 3 -r 10000'
PID: the server process (node); HTTP_PORT: its --http-port (ops per batch from /metrics).
Prints req/s, CPU us per request of the node process and of Postgres (the postmaster and all its
children, utime+stime), ops per batch, voluntary context switches of the node process per request."""
import glob, os, re, statistics, subprocess, sys, urllib.request
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from procstat import cpu, children
pid, port, http, option, values, rounds, bargs = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5].split(','), int(sys.argv[6]), sys.argv[7]
n = int(re.search(r'-n (\d+)', bargs).group(1))
def pg():
    pms = [c for c in children(pid) if 'postgres' in open(f'/proc/{c}/cmdline').read()]
    return pms + [x for pm in pms for x in children(pm)]
def switches():
    v = 0
    for t in glob.glob(f'/proc/{pid}/task/*/status'):
        try: v += int(re.search(r'\bvoluntary_ctxt_switches:\s+(\d+)', open(t).read()).group(1))
        except Exception: pass
    return v
def batches():
    t = urllib.request.urlopen(f'http://127.0.0.1:{http}/metrics').read().decode()
    s = sum(float(x) for x in re.findall(r'^postresp_batch_size_sum\{[^}]*\} (\S+)', t, re.M))
    c = sum(float(x) for x in re.findall(r'^postresp_batch_size_count\{[^}]*\} (\S+)', t, re.M))
    return s, c
res = {v: [] for v in values}; loads = []
for r in range(rounds):
    for v in (values if r % 2 == 0 else values[::-1]):
        subprocess.run(['redis-cli', '-p', port, 'config', 'set', option, v], capture_output=True, check=True)
        x0 = switches(); b0 = batches(); c0 = cpu(pid); g0 = sum(cpu(x) for x in pg())
        o = subprocess.run(['redis-benchmark', '-p', port, '--csv'] + bargs.split(), capture_output=True, text=True).stdout
        b1 = batches(); c1 = cpu(pid); g1 = sum(cpu(x) for x in pg()); x1 = switches()
        rps = float(re.search(r'^"[^"]+","([\d.]+)"', o.split('\n', 1)[1], re.M).group(1))
        res[v].append((rps, (c1 - c0) * 1e6 / n, (g1 - g0) * 1e6 / n, (b1[0] - b0[0]) / max(1, b1[1] - b0[1]), (x1 - x0) / n))
        loads.append(os.getloadavg()[0])
print(f'{bargs}; {option}; {rounds} rounds; load {min(loads):.1f}-{max(loads):.1f}')
for v in values:
    xs = res[v]; md = lambda i: statistics.median(x[i] for x in xs)
    print(f'{option}={v:>6}: {md(0):8.0f} req/s  node {md(1):5.2f} us  pg {md(2):5.2f} us  sum {md(1) + md(2):5.2f}  ops/batch {md(3):5.1f}'
          f'  vcs/req {md(4):.3f}  raw {[(round(x[0]), round(x[1], 1), round(x[2], 1)) for x in xs]}')
