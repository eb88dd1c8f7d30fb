"""CPU seconds of a process and its children from /proc (utime+stime): the A/B drivers' CPU per request."""
import os
tck = os.sysconf('SC_CLK_TCK')
def cpu(pid):
    try:
        f = open(f'/proc/{pid}/stat').read().rsplit(')', 1)[1].split(); return (int(f[11]) + int(f[12])) / tck
    except Exception: return 0.0
def children(pid):
    r = []
    for p in os.listdir('/proc'):
        if not p.isdigit(): continue
        try:
            if int(open(f'/proc/{p}/stat').read().rsplit(')', 1)[1].split()[1]) == pid: r.append(int(p))
        except Exception: pass
    return r
