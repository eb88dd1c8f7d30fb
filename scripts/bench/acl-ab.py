#!/usr/bin/env python3
"""ACL check cost on the hot path (docs/BENCHMARKS.md): one PostRESP, the default user vs a restricted
one (-@all +ping +get +set ~key:*), alternating redis-benchmark runs, node CPU per request from
/proc/PID/stat (all its threads), medians.
usage: acl-ab.py TREE PORT REPS N [tests, default ping_mbulk,get]"""
import os, subprocess, sys, time, statistics
tree, port, reps, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
tests = (sys.argv[5] if len(sys.argv) > 5 else 'ping_mbulk,get').split(',')
tck = os.sysconf('SC_CLK_TCK')

def cpu(pid):
    f = open(f'/proc/{pid}/stat').read().rsplit(')', 1)[1].split()
    return (int(f[11]) + int(f[12])) / tck

env = dict(os.environ, POSTRESP_ACTIVE_EXPIRE='no')
data = f'/tmp/acl-ab-{port}'
subprocess.run(['rm', '-rf', data])
log = open(f'{data}.log', 'w')
p = subprocess.Popen(['node', f'{tree}/dist/core/primary/main.js', '--port', str(port), '--workers', '2', '--storage-mode', 'unlogged',
                      '--data-dir', data], stdout=log, stderr=subprocess.STDOUT, cwd=tree, env=env, start_new_session=True)
try:
    for _ in range(120):
        if subprocess.run(['redis-cli', '-p', str(port), 'ping'], capture_output=True, text=True).stdout.strip() == 'PONG': break
        time.sleep(1)
    subprocess.run(['redis-cli', '-p', str(port), 'ACL', 'SETUSER', 'bench', 'on', '>pw', '-@all', '+ping', '+get', '+set', '~key:*'], check=True, capture_output=True)
    # GET finds its keys (-r 1000: key:000000000000 … key:000000000999)
    subprocess.run(['redis-benchmark', '-p', str(port), '-t', 'set', '-n', '20000', '-r', '1000', '-c', '50', '-P', '16', '-q'], check=True, capture_output=True)
    users = {'default': [], 'restricted': ['--user', 'bench', '-a', 'pw']}
    res = {(t, u): [] for t in tests for u in users}
    for r in range(reps):
        for t in tests:
            for u in (users if r % 2 == 0 else reversed(list(users))):
                c0 = cpu(p.pid); t0 = time.time()
                out = subprocess.run(['redis-benchmark', '-p', str(port), '-t', t, '-n', str(n), '-r', '1000', '-c', '50', '-P', '16', '--csv']
                                     + users[u], capture_output=True, text=True).stdout
                el = time.time() - t0; c1 = cpu(p.pid)
                res[(t, u)].append(((c1 - c0) * 1e6 / n, n / el))
                print(t, u, f'{(c1 - c0) * 1e6 / n:.3f} us/req', f'{n / el:,.0f} req/s', flush=True)
    la = open('/proc/loadavg').read().split()[:3]
    print('load average', ' '.join(la))
    for t in tests:
        d = statistics.median(x[0] for x in res[(t, 'default')]); rr = statistics.median(x[0] for x in res[(t, 'restricted')])
        print(f'{t}: node us/req default {d:.3f} restricted {rr:.3f} ({(rr / d - 1) * 100:+.1f}%); runs default',
              ' '.join(f'{x[0]:.3f}' for x in res[(t, 'default')]), 'restricted', ' '.join(f'{x[0]:.3f}' for x in res[(t, 'restricted')]))
finally:
    os.killpg(p.pid, 15)
    p.wait()
