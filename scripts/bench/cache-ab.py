#!/usr/bin/env python3
"""Read cache (docs/cache.md): PostRESP --cache exclusive vs --cache off vs redis-server, alternating redis-benchmark runs;
usage: bench.py TREE reps 'name|prefill-args|bench-args' ... ; env CACHE_MEM (default 64mb), PORT_BASE (default 27411:
on, off, redis-server on three ports from it, old on the fourth), OUT (default /tmp/i17: data dirs and logs), OLD (a
second tree, e.g. main's worktree, run with --cache exclusive too as 'old': before/after in the same minutes)"""
import os, subprocess, sys, time, re, statistics, signal
tree = sys.argv[1]; reps = int(sys.argv[2]); cases = [c.split('|') for c in sys.argv[3:]]
mem = os.environ.get('CACHE_MEM', '64mb')
base = int(os.environ.get('PORT_BASE', '27411'))
out = os.environ.get('OUT', '/tmp/i17')
os.makedirs(out, exist_ok=True)
tck = os.sysconf('SC_CLK_TCK')
def cpu(pid):
    try:
        f = open(f'/proc/{pid}/stat').read().rsplit(')', 1)[1].split()
        return (int(f[11]) + int(f[12])) / tck
    except (FileNotFoundError, ProcessLookupError): return 0.0
def children(pid):
    out = []
    for p in os.listdir('/proc'):
        if not p.isdigit(): continue
        try:
            f = open(f'/proc/{p}/stat').read().rsplit(')', 1)[1].split()
            if int(f[1]) == pid: out.append(int(p))
        except Exception: pass
    return out
def pg_pids(pid):
    pms = [c for c in children(pid) if 'postgres' in open(f'/proc/{c}/cmdline').read()]
    pids = list(pms)
    for pm in pms: pids += children(pm)
    return pids
servers = {}
old = os.environ.get('OLD')
for name, port, extra in (('on', base, ['--cache', 'exclusive', '--cache-max-memory', mem]), ('off', base + 1, ['--cache', 'off'])) + (
        (('old', base + 3, ['--cache', 'exclusive', '--cache-max-memory', mem]),) if old else ()):
    d = f'{out}/pg-{name}'
    subprocess.run(['rm', '-rf', d])
    log = open(f'{out}/{name}.log', 'w')
    p = subprocess.Popen(['node', f'{old if name == "old" else tree}/dist/core/primary/main.js', '--port', str(port), '--storage-mode', 'unlogged', '--data-dir', d] + extra,
                         stdout=log, stderr=subprocess.STDOUT, cwd=tree, start_new_session=True)
    servers[name] = (p, port)
rp = subprocess.Popen(['redis-server', '--port', str(base + 2), '--save', '', '--appendonly', 'no'], stdout=subprocess.DEVNULL, start_new_session=True)
servers['redis'] = (rp, base + 2)
for name, (p, port) in servers.items():
    for _ in range(120):
        if subprocess.run(['redis-cli', '-p', str(port), 'ping'], capture_output=True, text=True).stdout.strip() == 'PONG': break
        time.sleep(1)
def bench(port, args):
    return subprocess.run(['redis-benchmark', '-p', str(port), '--csv'] + args.split(), capture_output=True, text=True).stdout
res = {}
loads = []
try:
    for cname, prefill, args in cases:
        if prefill:
            for name, (p, port) in servers.items():
                subprocess.run(['redis-cli', '-p', str(port), 'flushall'], capture_output=True)
                bench(port, prefill)
        def hm():
            t = subprocess.run(['redis-cli', '-p', str(base), 'info', 'cache'], capture_output=True, text=True).stdout
            g = lambda k: int(re.search(k + r':(\d+)', t).group(1)) if re.search(k + r':(\d+)', t) else 0
            return g('cache_hits'), g('cache_misses'), g('cache_rejected'), g('cache_entries')
        h0 = hm()
        n = int(re.search(r'-n (\d+)', args).group(1))
        order = ['on', 'off', 'redis'] + (['old'] if old else [])
        for r in range(reps):
            for name in (order if r % 2 == 0 else order[::-1]):
                p, port = servers[name]
                pg = pg_pids(p.pid) if name != 'redis' else []
                c0 = cpu(p.pid); g0 = sum(cpu(x) for x in pg)
                out = bench(port, args)
                c1 = cpu(p.pid); g1 = sum(cpu(x) for x in pg_pids(p.pid)) if name != 'redis' else 0
                m = re.search(r'^"[^"]+","([\d.]+)"', out.split('\n', 1)[1], re.M)
                rps = float(m.group(1)) if m else 0
                res.setdefault((cname, name), []).append((rps, (c1 - c0) * 1e6 / n, (g1 - g0) * 1e6 / n))
                loads.append(os.getloadavg()[0])
        h1 = hm()
        hits, miss = h1[0] - h0[0], h1[1] - h0[1]
        res[(cname, 'info')] = f"hit ratio {hits / max(1, hits + miss):.3f} ({hits} hits, {miss} misses), rejected {h1[2] - h0[2]}, entries {h1[3]}"
    med = lambda xs, i: statistics.median(x[i] for x in xs)
    print(f'cache-max-memory {mem}; load average during runs {min(loads):.1f}-{max(loads):.1f}')
    print('| case | redis rps | on rps | off rps | on/redis | off/redis | on/off | on node µs | off node µs | on pg µs | off pg µs |')
    print('|---|---|---|---|---|---|---|---|---|---|---|')
    for cname, _, _ in cases:
        on, off, rd = res[(cname, 'on')], res[(cname, 'off')], res[(cname, 'redis')]
        print(f'| {cname} | {med(rd,0):.0f} | {med(on,0):.0f} | {med(off,0):.0f} | {med(on,0)/med(rd,0):.2f} | {med(off,0)/med(rd,0):.2f} | {med(on,0)/med(off,0):.3f} | {med(on,1):.1f} | {med(off,1):.1f} | {med(on,2):.1f} | {med(off,2):.1f} |')
        if old:
            o = res[(cname, 'old')]
            print(f'|  old {cname}: {med(o,0):.0f} rps ({med(o,0)/med(off,0):.3f} of off), node {med(o,1):.1f} us, pg {med(o,2):.1f} us, raw {[round(x[0]) for x in o]}')
        print(f'|  raw {cname}: on {[round(x[0]) for x in on]} off {[round(x[0]) for x in off]} redis {[round(x[0]) for x in rd]} ; {res[(cname, "info")]}')
finally:
    for p, _ in servers.values():
        os.killpg(p.pid, signal.SIGTERM)
