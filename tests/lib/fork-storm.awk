# A fork storm as an ftrace text trace (schedreplay metadata of kernel
# 6.12.117, topology preset 1x2x1): nw workers W0.. take turns on CPU 0, each
# runs wrun us, forks a child, sleeps; the child runs life us, exits and wakes
# its parent, and the next worker (woken by its own child's exit before)
# runs.  A hog Q (prio qprio) runs on CPU 1 throughout.  Every child is put
# on CPU 0 (sched_wakeup_new target_cpu=000).  groups=1 puts the workers in
# autogroup 10 (their children with them), else in the root task group.
# dur ms of storm from 0.5 s.
#   awk -v groups=0 -v nw=1 -v qprio=139 -v life=800 -v wrun=100 -v dur=300 -f fork-storm.awk
function ln(comm, pid, cpu, fl, t, body) {
	printf "%16s-%-5d [%03d] %s %12.6f: %s\n", comm, pid, cpu, fl, t / 1e6, body
}
function sw(cpu, t, pc, pp, ps, nc, np, pprio, nprio) {
	ln(pp ? pc : "<idle>", pp, cpu, "d..2.", t,
	   sprintf("sched_switch: prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s ==> " \
		   "next_comm=%s next_pid=%d next_prio=%d", pc, pp, pprio, ps, nc, np, nprio))
}
function mark(t, s) {
	ln("schedreplay", 399, 1, "d..3.", t, "tracing_mark_write: schedreplay: " s)
}
BEGIN {
	print "# tracer: nop"
	t0 = 500000
	n = 0
	m[n++] = "meta version 1"
	m[n++] = "kernel 6.12.117 hz 250"
	if (groups)
		m[n++] = "autogroup 1"
	for (i = 0; i < nw; i++)
		m[n++] = sprintf("task pid %d tgid %d comm W%d kthread 0 cpus 0-1 policy 0 nice 0 " \
				 "prio 120 rtprio 0 cpu 0%s cgroup /", 400 + i, 400 + i, i,
				 groups ? " autogroup 10 agnice 0" : "")
	m[n++] = sprintf("task pid 300 tgid 300 comm Q kthread 0 cpus 0-1 policy 0 nice %d " \
			 "prio %d rtprio 0 cpu 1 cgroup /", qprio - 120, qprio)
	m[n] = sprintf("meta end tasks %d lines %d", nw + 1, n + 1)
	for (i = 0; i <= n; i++)
		mark(t0 - 100 + i, m[i])
	sw(1, t0, "swapper/1", 0, "R", "Q", 300, 120, qprio)
	sw(0, t0 + 1, "swapper/0", 0, "R", "W0", 400, 120, 120)
	for (i = 1; i < nw; i++) {
		ln("W0", 400, 0, "d..3.", t0 + 2,
		   sprintf("sched_waking: comm=W%d pid=%d prio=120 target_cpu=000", i, 400 + i))
		ln("W0", 400, 0, "d..3.", t0 + 3,
		   sprintf("sched_wakeup: comm=W%d pid=%d prio=120 target_cpu=000", i, 400 + i))
	}
	t = t0 + 4
	c = 1000
	for (k = 0; t < t0 + dur * 1000; k++) {
		w = k % nw
		comm = "W" w
		pid = 400 + w
		t += wrun
		ln(comm, pid, 0, ".....", t, sprintf("sched_process_fork: comm=%s pid=%d " \
		   "child_comm=%s child_pid=%d", comm, pid, comm, c))
		ln(comm, pid, 0, "d..3.", t + 1,
		   sprintf("sched_wakeup_new: comm=%s pid=%d prio=120 target_cpu=000", comm, c))
		sw(0, t + 2, comm, pid, "S", comm, c, 120, 120)
		t += 2 + life
		ln(comm, c, 0, ".....", t, sprintf("sched_process_exit: comm=%s pid=%d prio=120", comm, c))
		ln(comm, c, 0, "d..3.", t + 1,
		   sprintf("sched_waking: comm=%s pid=%d prio=120 target_cpu=000", comm, pid))
		ln(comm, c, 0, "d..3.", t + 2,
		   sprintf("sched_wakeup: comm=%s pid=%d prio=120 target_cpu=000", comm, pid))
		nx = (k + 1) % nw
		sw(0, t + 3, comm, c, "X", "W" nx, 400 + nx, 120, 120)
		t += 3
		c++
	}
}
