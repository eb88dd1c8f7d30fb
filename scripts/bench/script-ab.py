#!/usr/bin/env python3
"""Script calls, two PostRESP builds side by side (docs/BENCHMARKS.md "Scripts: undeclared keys
locked"): each tree's server on its own embedded Postgres, alternating redis-benchmark runs of
GET + SET + EXPIRE by EVALSHA, with the key declared (KEYS[1]) and not declared (ARGV[1]). Per run:
requests/s, CPU µs per call of the server process and of its Postgres (postmaster, live backends,
reaped backends), and INFO's script re-runs and lock restarts per call. Medians at the end.
usage: script-ab.py OLD_TREE NEW_TREE PORT REPS N [storage mode, default unlogged]"""
import os, subprocess, sys, time, statistics, shutil
old, new, port, reps, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
mode = sys.argv[6] if len(sys.argv) > 6 else 'unlogged'
tck = os.sysconf('SC_CLK_TCK')
kBodies = {
    'declared': "redis.call('get', KEYS[1]); redis.call('set', KEYS[1], ARGV[1]); return redis.call('expire', KEYS[1], 100)",
    'undeclared': "redis.call('get', ARGV[1]); redis.call('set', ARGV[1], ARGV[2]); return redis.call('expire', ARGV[1], 100)",
}

def stats():
    out = {}
    for name in os.listdir('/proc'):
        if not name.isdigit(): continue
        try: text = open(f'/proc/{name}/stat').read()
        except OSError: continue
        comm = text[text.index('(') + 1:text.rindex(')')]
        f = text[text.rindex(')') + 2:].split()
        out[int(name)] = (int(f[1]), comm, (int(f[11]) + int(f[12])) / tck, (int(f[13]) + int(f[14])) / tck)
    return out

def cpu(pid):
    """(server s, postgres s): the server's own time; its postgres descendants' own time plus the postmaster's reaped children"""
    st = stats()
    tree, pg, grew = {pid}, 0.0, True
    while grew:
        grew = False
        for p, (pp, comm, own, kids) in st.items():
            if p in tree or pp not in tree: continue
            tree.add(p); grew = True
            if comm == 'postgres': pg += own + (kids if pp == pid else 0)
    return st[pid][2], pg

def cli(*args):
    return subprocess.run(['redis-cli', '-p', str(args[0]), *map(str, args[1:])], capture_output=True, text=True).stdout.strip()

def info(p):
    text = cli(p, 'INFO', 'stats')
    get = lambda k: int(next((l.split(':')[1] for l in text.splitlines() if l.startswith(k + ':')), '0'))
    return get('postresp_script_calls'), get('postresp_script_retries'), get('postresp_script_lock_restarts')

procs = {}
try:
    for i, (label, tree) in enumerate((('old', old), ('new', new))):
        p = port + i
        data = f'/tmp/script-ab-{p}'
        shutil.rmtree(data, ignore_errors=True)
        log = open(f'{data}.log', 'w')
        procs[label] = (p, subprocess.Popen(['node', f'{tree}/dist/core/primary/main.js', '--port', str(p), '--workers', '2',
                                             '--storage-mode', mode, '--data-dir', data], stdout=log, stderr=subprocess.STDOUT, cwd=tree,
                                            start_new_session=True))
    for label, (p, _) in procs.items():
        for _ in range(180):
            if cli(p, 'ping') == 'PONG': break
            time.sleep(1)
    shas = {label: {b: cli(p, 'SCRIPT', 'LOAD', body) for b, body in kBodies.items()} for label, (p, _) in procs.items()}
    for label, (p, _) in procs.items():  # warm-up: keys exist, plans cached
        for b in kBodies:
            subprocess.run(['redis-benchmark', '-p', str(p), '-n', '3000', '-c', '50', '-P', '16', '-r', '100000', '-q', 'evalsha', shas[label][b],
                            '1' if b == 'declared' else '0', 'key:__rand_int__', 'v'], capture_output=True)
    res = {}
    for r in range(reps):
        for b in kBodies:
            for label in (('old', 'new') if r % 2 == 0 else ('new', 'old')):
                p, proc = procs[label]
                s0, g0 = cpu(proc.pid); i0 = info(p); t0 = time.time()
                out = subprocess.run(['redis-benchmark', '-p', str(p), '-n', str(n), '-c', '50', '-P', '16', '-r', '100000', '--csv', 'evalsha',
                                      shas[label][b], '1' if b == 'declared' else '0', 'key:__rand_int__', 'v'], capture_output=True, text=True).stdout
                el = time.time() - t0; s1, g1 = cpu(proc.pid); i1 = info(p)
                calls = max(1, i1[0] - i0[0])
                row = (n / el, (s1 - s0) * 1e6 / n, (g1 - g0) * 1e6 / n, (i1[1] - i0[1]) / calls, (i1[2] - i0[2]) / calls)
                res.setdefault((b, label), []).append(row)
                print(f'round {r} {b} {label}: {row[0]:,.0f} calls/s, server {row[1]:.0f} µs/call, postgres {row[2]:.0f} µs/call,'
                      f' re-runs {row[3]:.3f}/call, lock restarts {row[4]:.3f}/call', flush=True)
    print('load average', open('/proc/loadavg').read().split()[:3])
    for (b, label), rows in sorted(res.items()):
        med = [statistics.median(x[i] for x in rows) for i in range(5)]
        print(f'{b} {label}: median {med[0]:,.0f} calls/s, server {med[1]:.0f}, postgres {med[2]:.0f} µs/call, re-runs {med[3]:.3f},'
              f' lock restarts {med[4]:.3f} per call ({len(rows)} runs)')
finally:
    for p, proc in procs.values():
        os.killpg(proc.pid, 15)
        proc.wait()
