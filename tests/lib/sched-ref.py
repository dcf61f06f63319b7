#!/usr/bin/env python3
# An independent computation of scheduling latency, timehist rows and idle
# time from the text of "trace-cmd report -t", to hold schedreplay's slice
# tables to (tests/t6300-slices.sh).  It reads only trace-cmd's output and
# the topology file, and follows the definitions of schedreplay-db(5)
# (perf sched latency's for the wakeups): nothing here comes from
# schedreplay's code.
#
#   sched-ref.py latency|timehist|idle TOPO < report.txt
import re
import sys

LINE = re.compile(r'^\s*(.*)-(\d+)\s+\[(\d+)\]\s+(\d+)\.(\d+):\s+(\S+):\s+(.*)$')
SWITCH = re.compile(r'^(.*):(\d+) \[(-?\d+)\] (\S+) ==> (.*):(\d+) \[(-?\d+)\]$')
WAKEUP = re.compile(r'^(.*):(\d+) \[(-?\d+)\](?: success=(\d+))? CPU:(\d+)$')
MIGRATE = re.compile(r'pid=(\d+) prio=\S+ orig_cpu=(\d+) dest_cpu=(\d+)$')


def nodes_of(topo):
    node = {}
    for line in open(topo):
        f = line.split()
        if len(f) >= 2 and f[0] == 'cpu':
            kv = dict(zip(f[2::2], f[3::2]))
            node[int(f[1])] = int(kv.get('node', 0))
    return node


def main():
    what, topo = sys.argv[1], sys.argv[2]
    node = nodes_of(topo)
    ncpu = max(node) + 1
    curr = [None] * ncpu          # None unknown, 0 idle, else tid
    idle_since = [None] * ncpu
    idle = [[0, 0, 0, 0, 0, 0] for _ in range(ncpu)]  # ns, n, wait ns, n, node ns, n
    acc = [[0, 0] for _ in range(ncpu)]    # this idle period's waiting, node waiting
    state = {}                    # tid -> 'run', 'runnable', 'sleep'
    queued = {}                   # runnable tid -> cpu
    ready = {}                    # runnable tid -> since when
    woken = {}                    # counted wakeup -> its ts
    run_in = {}                   # running tid -> (cpu, ts, wait, delay)
    last_out = {}
    comm = {}
    delays = {}
    rows = []
    last = None
    clk = [None]                  # the waiting clocks advanced to here

    def advance(ts):
        if clk[0] is None or ts <= clk[0]:
            clk[0] = ts if clk[0] is None else clk[0]
            return
        prev, clk[0] = clk[0], ts
        busy = [c for c in range(ncpu)
                if curr[c] and sum(1 for q in queued.values() if q == c)]
        for c in range(ncpu):
            if idle_since[c] is None:
                continue
            if busy:
                acc[c][0] += ts - prev
            if any(node[b] == node[c] for b in busy):
                acc[c][1] += ts - prev

    def idle_end(c, ts):
        i = idle[c]
        i[0] += ts - idle_since[c]
        i[1] += 1
        i[2] += acc[c][0]
        i[3] += acc[c][0] > 0
        i[4] += acc[c][1]
        i[5] += acc[c][1] > 0
        idle_since[c] = None
        acc[c] = [0, 0]

    for line in sys.stdin:
        m = LINE.match(line)
        if not m:
            continue
        cpu = int(m.group(3))
        ts = int(m.group(4)) * 1000000000 + int(m.group(5).ljust(9, '0')[:9])
        ev, body = m.group(6), m.group(7)
        if ev == 'sched_switch':
            s = SWITCH.match(body)
            if not s:
                continue
            advance(ts)
            pc, prev, pst, nc, nxt = s.group(1), int(s.group(2)), s.group(4), \
                s.group(5), int(s.group(6))
            if prev:
                comm[prev] = pc
                r = run_in.pop(prev, None)
                if r and r[0] == cpu:
                    rows.append((ts, cpu, prev, r[2], r[3], ts - r[1],
                                 'R' if pst.startswith('R') else 'S'))
                last_out[prev] = ts
                if pst.startswith('R'):
                    state[prev] = 'runnable'
                    queued[prev] = cpu
                    ready[prev] = ts
                else:
                    state[prev] = 'sleep'
            if nxt:
                comm[nxt] = nc
                wait = ts - last_out[nxt] if nxt in last_out else None
                delay = ts - ready[nxt] if state.get(nxt) == 'runnable' else None
                if nxt in woken:
                    delays.setdefault(nxt, []).append(ts - woken.pop(nxt))
                queued.pop(nxt, None)
                ready.pop(nxt, None)
                state[nxt] = 'run'
                run_in[nxt] = (cpu, ts, wait, delay)
            if curr[cpu] == 0 and nxt != 0 and idle_since[cpu] is not None:
                idle_end(cpu, ts)
            curr[cpu] = nxt
            if nxt == 0 and idle_since[cpu] is None:
                idle_since[cpu] = ts
        elif ev in ('sched_wakeup', 'sched_wakeup_new'):
            w = WAKEUP.match(body)
            if not w or w.group(4) == '0':
                continue
            advance(ts)
            tid, target = int(w.group(2)), int(w.group(5))
            comm[tid] = w.group(1)
            if state.get(tid) in ('run', 'runnable'):
                pass
            else:
                state[tid] = 'runnable'
                queued[tid] = target
                ready[tid] = ts
                woken[tid] = ts
        elif ev == 'sched_migrate_task':
            g = MIGRATE.search(body)
            if not g:
                continue
            advance(ts)
            tid = int(g.group(1))
            if tid in queued:
                queued[tid] = int(g.group(3))
        last = ts if last is None or ts > last else last

    if what == 'latency':
        for tid, d in delays.items():
            d.sort()
            n = len(d)
            p95 = next(x for k, x in enumerate(d, 1) if k * 100 >= n * 95)
            p99 = next(x for k, x in enumerate(d, 1) if k * 100 >= n * 99)
            print('%d,%s,%d,%.6f,%d,%d,%d' % (tid, comm.get(tid, ''), n, sum(d) / n / 1000.0,
                                              p95, p99, d[-1]))
    elif what == 'timehist':
        for r in rows:
            print('%d,%d,%d,%s,%s,%d,%s' % (r[0], r[1], r[2],
                                            '' if r[3] is None else r[3],
                                            '' if r[4] is None else r[4], r[5], r[6]))
    elif what == 'idle':
        advance(last)
        for c in range(ncpu):
            if idle_since[c] is not None:
                idle_end(c, last)
            print('%d,%s' % (c, ','.join(str(x) for x in idle[c])))


main()
