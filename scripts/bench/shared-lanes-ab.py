#!/usr/bin/env python3
"""--shared-lanes off / on against redis-server, alternating (docs/BENCHMARKS.md "Batching across worker threads").

usage: shared-lanes-ab.py ROUNDS MODE 'BENCH ARGS' [TREE]
  e.g. shared-lanes-ab.py 3 unlogged '-t set -n 100000 -c 20 -P 1 -d 3 -r 10000'
MODE unlogged pairs with redis-server without persistence, logged with appendonly yes + appendfsync always.
Each PostRESP (TREE/dist, default this tree; 2 workers) runs its own embedded Postgres. Per run: req/s;
CPU us per request of the node process, of every Postgres process (postmaster and children) and of
redis-server (utime+stime from /proc); commits (pg_stat_database xact_commit), WAL flushes
(pg_stat_wal wal_sync) and WAL writes (wal_write: with wal_sync_method open_datasync every write is
a sync and wal_sync stays 0) per request; redis-benchmark's p50 / p99; ops per lane batch (/metrics). Medians of the rounds, runs in
reversed order every other round. env: PORT_BASE (27700, below the ephemeral ports), OUT (/tmp/postresp-shared-lanes-ab)."""
import os, re, signal, statistics, subprocess, sys, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from procstat import cpu
from pgstat import snapshot, per_request
reps = int(sys.argv[1]); mode = sys.argv[2]; bargs = sys.argv[3]
tree = os.path.abspath(sys.argv[4] if len(sys.argv) > 4 else os.path.join(os.path.dirname(__file__), '../..'))
base = int(os.environ.get('PORT_BASE', '27700')); out = os.environ.get('OUT', '/tmp/postresp-shared-lanes-ab')
n = int(re.search(r'-n (\d+)', bargs).group(1))

os.makedirs(out, exist_ok=True)
servers = []
specs = [('off', [], tree, {}), ('on', ['--shared-lanes', 'yes'], tree, {}), ('redis', None, tree, {})]
if os.environ.get('SERVERS'):
    # NAME=TREE|ARGS|ENV;… instead of off/on (redis always last)
    specs = [(nm, a.split(), t, dict(kv.split('=', 1) for kv in e.split(',') if kv)) for nm, (t, a, e) in
             ((x.split('=', 1)[0], (x.split('=', 1)[1].split('|') + ['', ''])[:3]) for x in os.environ['SERVERS'].split(';'))] + [('redis', None, tree, {})]
try:
    for i, (name, extra, tree_i, env_i) in enumerate(specs):
        port = base + 2 * i
        if extra is None:
            persist = ['--appendonly', 'yes', '--appendfsync', 'always', '--dir', out] if mode == 'logged' else ['--appendonly', 'no']
            subprocess.run(['rm', '-f', f'{out}/appendonly.aof'], check=False); subprocess.run(['rm', '-rf', f'{out}/appendonlydir'], check=False)
            p = subprocess.Popen(['redis-server', '--port', str(port), '--save', ''] + persist, stdout=open(f'{out}/redis.log', 'w'), stderr=subprocess.STDOUT, start_new_session=True)
            servers.append(dict(name=name, p=p, port=port, redis=True)); continue
        d = f'{out}/pg-{name}'; subprocess.run(['rm', '-rf', d])
        p = subprocess.Popen(['node', f'{tree_i}/dist/core/primary/main.js', '--port', str(port), '--http-port', str(port + 1), '--workers', '2',
                              '--storage-mode', mode, '--data-dir', d] + extra, stdout=open(f'{out}/{name}.log', 'w'), stderr=subprocess.STDOUT,
                             cwd=tree_i, start_new_session=True, env=dict(os.environ, POSTRESP_ACTIVE_EXPIRE='no', **env_i))
        servers.append(dict(name=name, p=p, port=port, redis=False, d=d, http=port + 1))
    for s in servers:
        for _ in range(180):
            if subprocess.run(['redis-cli', '-p', str(s['port']), 'ping'], capture_output=True, text=True).stdout.strip() == 'PONG': break
            time.sleep(1)
        else: raise SystemExit(f"{s['name']} did not answer on port {s['port']}")
        if not s['redis']: s['pgport'] = int(re.search(r'port (\d+)', open(f"{out}/{s['name']}.log").read()).group(1))
        subprocess.run(['redis-benchmark', '-p', str(s['port']), '-q'] + bargs.replace(f'-n {n}', '-n 20000').split(), capture_output=True)
    res = {s['name']: [] for s in servers}; loads = []
    for r in range(reps):
        for s in (servers if r % 2 == 0 else servers[::-1]):
            c0 = cpu(s['p'].pid)
            before = None if s['redis'] else snapshot(s['d'], s['pgport'], s['http']); t0 = time.time()
            o = subprocess.run(['redis-benchmark', '-p', str(s['port']), '--csv'] + bargs.split(), capture_output=True, text=True).stdout
            c1 = cpu(s['p'].pid)
            rps = float(re.search(r'^"[^"]+","([\d.]+)"', o.split('\n', 1)[1], re.M).group(1))
            lat = re.search(r'^"[^"]+","[\d.]+","[\d.]+","[\d.]+","([\d.]+)","[\d.]+","([\d.]+)"', o.split('\n', 1)[1], re.M)
            row = dict(p50=float(lat.group(1)), p99=float(lat.group(2)), rps=rps, node=(c1 - c0) * 1e6 / n, pg=0.0, commits=0.0, flushes=0.0, writes=0.0, batch=0.0)
            if before:
                f = per_request(before, s['d'], s['pgport'], s['http'], n, time.time() - t0)
                row.update({k: f[k] for k in ('pg', 'commits', 'flushes', 'writes', 'batch')})
            res[s['name']].append(row); loads.append(os.getloadavg()[0])
            print(s['name'], {k: round(v, 3) for k, v in row.items()}, file=sys.stderr)
    print(f'`redis-benchmark {bargs}`, {mode}, {reps} rounds, load {min(loads):.1f}-{max(loads):.1f}')
    print('| server | req/s | x redis | node/redis µs/req | Postgres µs/req | commits/req | WAL flushes/req | WAL writes/req | ops/batch | p50 / p99 ms |')
    print('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
    ref = statistics.median(x['rps'] for x in res['redis'])
    for s in servers:
        md = lambda k: statistics.median(x[k] for x in res[s['name']])
        print(f"| {s['name']} | {md('rps'):.0f} | {md('rps') / ref:.2f} | {md('node'):.1f} | {md('pg'):.1f} | {md('commits'):.3f} | {md('flushes'):.3f} | {md('writes'):.3f} | {md('batch'):.1f} | {md('p50'):.2f} / {md('p99'):.2f} |")
finally:
    for s in servers:
        try: os.killpg(s['p'].pid, signal.SIGTERM)
        except Exception: pass
