#!/usr/bin/env python3
"""CLIENT TRACKING cost (docs/tracking.md): redis-benchmark with idle RESP3 tracking clients (default one on each of 2 workers) vs none, two trees alternating;
node and Postgres (postmaster and its children) CPU µs per request from /proc/PID/stat;
usage: tracking-cost.py PORT_BASE reps "redis-benchmark args" NEW_TREE OLD_TREE [TRACKING_CLIENTS=2] [WORKERS=2]"""
import os, socket, subprocess, sys, time, re, statistics, signal
trees = {'new': sys.argv[4], 'main': sys.argv[5]}
tck = os.sysconf('SC_CLK_TCK')
def cpu(pid):
    f = open(f'/proc/{pid}/stat').read().rsplit(')', 1)[1].split()
    return (int(f[11]) + int(f[12])) / tck
servers = {}
base = int(sys.argv[1]); reps = int(sys.argv[2]); args = sys.argv[3]
nclients = int(sys.argv[6]) if len(sys.argv) > 6 else 2
workers = sys.argv[7] if len(sys.argv) > 7 else '2'
def pg_cpu(datadir):
    """the embedded Postgres's postmaster and its children"""
    pm = int(open(f'{datadir}/postmaster.pid').readline())
    total = 0.0
    for d in os.listdir('/proc'):
        if not d.isdigit(): continue
        try:
            f = open(f'/proc/{d}/stat').read().rsplit(')', 1)[1].split()
        except OSError:
            continue
        if int(d) == pm or int(f[1]) == pm: total += (int(f[11]) + int(f[12])) / tck
    return total
for i, (name, tree) in enumerate(trees.items()):
    d = f'/tmp/tracking-cost/pg-{name}'; subprocess.run(['rm', '-rf', d]); os.makedirs('/tmp/tracking-cost', exist_ok=True)
    p = subprocess.Popen(['node', f'{tree}/dist/core/primary/main.js', '--port', str(base + i), '--workers', workers, '--storage-mode', 'unlogged', '--data-dir', d],
                         stdout=open(f'/tmp/tracking-cost/{name}.log', 'w'), stderr=subprocess.STDOUT, cwd=tree, start_new_session=True)
    servers[name] = (p, base + i)
for name, (p, port) in servers.items():
    for _ in range(120):
        if subprocess.run(['redis-cli', '-p', str(port), 'ping'], capture_output=True, text=True).stdout.strip() == 'PONG': break
        time.sleep(1)
n = int(re.search(r'-n (\d+)', args).group(1))
res = {}
try:
    for r in range(reps):
        for name in (['new', 'main'] if r % 2 == 0 else ['main', 'new']):
            p, port = servers[name]
            for tracking in ([False, True] if r % 2 == 0 else [True, False]):
                socks = []
                if tracking:
                    # two tracking clients: connections are dealt to workers in turn, so one is on each worker
                    for _ in range(nclients):
                        s = socket.create_connection(('127.0.0.1', port)); s.sendall(b'HELLO 3\r\nCLIENT TRACKING on\r\n'); time.sleep(0.3); s.recv(65536); socks.append(s)
                d = f'/tmp/tracking-cost/pg-{name}'
                c0, g0 = cpu(p.pid), pg_cpu(d)
                out = subprocess.run(['redis-benchmark', '-p', str(port), '--csv'] + args.split(), capture_output=True, text=True).stdout
                c1, g1 = cpu(p.pid), pg_cpu(d)
                for s in socks: s.close()
                m = re.search(r'^"[^"]+","([\d.]+)"', out.split('\n', 1)[1], re.M)
                res.setdefault((name, tracking), []).append((float(m.group(1)) if m else 0, (c1 - c0) * 1e6 / n, (g1 - g0) * 1e6 / n))
                time.sleep(0.5)
    print(f'load {os.getloadavg()[0]:.1f}; redis-benchmark {args}; {nclients} tracking clients, --workers {workers}')
    for k, v in res.items():
        print(k, 'median rps', round(statistics.median(x[0] for x in v)), 'node µs/req', round(statistics.median(x[1] for x in v), 2),
              'pg µs/req', round(statistics.median(x[2] for x in v), 2), 'raw', [round(x[0]) for x in v], [round(x[1], 2) for x in v])
finally:
    for p, _ in servers.values(): os.killpg(p.pid, signal.SIGTERM)
