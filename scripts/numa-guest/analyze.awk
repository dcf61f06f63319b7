# SPDX-License-Identifier: GPL-2.0
#
# Summary of a numa-guest recording, from "trace-cmd report -R" (raw fields):
#   trace-cmd report -R -i FILE.dat | awk -v nodes=0:0,1:0,2:1,3:1 -f analyze.awk
# (POSIX awk; mawk is enough.)  nodes= maps CPUs to NUMA nodes, for the
# cross-node counts.
#
# Pairing of the schedreplay probes (schedreplay-models(7) §9b):
#   select_rq (entry: prev_cpu, wake_flags[, pid]) and select_rq_ret (cpu) on
#   the same CPU make one placement decision.  The task is the pid field when
#   recorded, else: for WF_TTWU the last sched_waking on that CPU, for
#   WF_FORK the last sched_process_fork child on that CPU, for WF_EXEC the
#   current task.  A TTWU/FORK decision is then matched with the next
#   sched_wakeup / sched_wakeup_new of that pid and the returned CPU compared
#   with its target_cpu.
function field(s, name,    i, r) {
	if (!match(s, " " name "=[^ ]*"))
		return ""
	r = substr(s, RSTART + length(name) + 2, RLENGTH - length(name) - 2)
	return r
}
function node(c) { return (c in nodeof) ? nodeof[c] : -1 }
function flagname(f,    s, v) {
	v = f + 0; s = ""
	if (v >= 32) { s = s "|MIGRATED"; v -= 32 }
	if (v >= 16) { s = s "|SYNC"; v -= 16 }
	if (v >= 8) { s = s "|TTWU"; v -= 8 }
	if (v >= 4) { s = s "|FORK"; v -= 4 }
	if (v >= 2) { s = s "|EXEC"; v -= 2 }
	if (v >= 1) { s = s "|BALANCE"; v -= 1 }
	return substr(s, 2)
}
function hex2dec(h,    i, c, v) {
	h = tolower(h); sub(/^0x/, "", h); v = 0
	for (i = 1; i <= length(h); i++) {
		c = index("0123456789abcdef", substr(h, i, 1)) - 1
		v = v * 16 + c
	}
	return v
}
function pct(a, b) { return b ? sprintf("%.1f%%", 100 * a / b) : "-" }
BEGIN {
	n = split(nodes, a, ",")
	for (i = 1; i <= n; i++) { split(a[i], b, ":"); nodeof[b[1]] = b[2] }
}
!match($0, / \[[0-9]+\] +[0-9.]+: [a-z_]+: /) { next }
{
	hdr = substr($0, RSTART, RLENGTH)
	rest = " " substr($0, RSTART + RLENGTH)
	split(hdr, h, " ")
	cpu = substr(h[1], 2, length(h[1]) - 2) + 0
	ts = h[2]; sub(/:$/, "", ts)
	ev = h[3]; sub(/:$/, "", ev)
	# current task: "comm-pid" before the cpu
	cur = substr($0, 1, RSTART - 1); sub(/^.*-/, "", cur); cur += 0
	if (first == "") first = ts
	last = ts
	count[ev]++
	total++
}
ev == "sched_waking" {
	p = field(rest, "pid"); t = field(rest, "target_cpu") + 0
	waking_cpu_pid[cpu] = p
	waking_target[p] = t
	waking_open[p] = 1
	nwaking++
	next
}
ev == "sched_process_fork" {
	fork_child[cpu] = field(rest, "child_pid")
	next
}
ev == "select_rq" {
	prev = field(rest, "prev_cpu") + 0
	wf = hex2dec(field(rest, "wake_flags"))
	p = field(rest, "pid")
	if (p != "") haspid = 1
	else if (wf % 16 >= 8) p = waking_cpu_pid[cpu]
	else if (wf % 8 >= 4) p = fork_child[cpu]
	else p = cur
	if (cpu in open_entry) unpaired_entry++
	open_entry[cpu] = 1
	e_pid[cpu] = p; e_prev[cpu] = prev; e_wf[cpu] = wf
	nentry++
	flags[wf]++
	if (wf % 16 >= 8) {
		nttwu++
		if (p in waking_open) {
			waking_open[p] = 2	# reached select_task_rq_fair
			if (waking_target[p] == prev) prev_eq++
			else prev_ne++
		} else
			ttwu_no_waking++
	}
	next
}
ev == "select_rq_ret" {
	nret++
	r = field(rest, "cpu") + 0
	if (!(cpu in open_entry)) { unpaired_ret++; next }
	delete open_entry[cpu]
	p = e_pid[cpu]; wf = e_wf[cpu]; prev = e_prev[cpu]
	if (r != prev) { moved++; if (node(r) != node(prev)) moved_node++ }
	if (wf % 4 >= 2 && wf < 4) {	# exec balance: no wakeup follows
		nexec++
		if (r != prev) exec_moved++
		next
	}
	if (p in want) lostwant++
	want[p] = r
	next
}
ev == "sched_wakeup" || ev == "sched_wakeup_new" {
	p = field(rest, "pid"); t = field(rest, "target_cpu") + 0
	if (p in want) {
		if (want[p] == t) match_ok++
		else { match_bad++; if (bad_ex == "") bad_ex = ts " pid " p " ret " want[p] " wakeup " t }
		delete want[p]
	} else if (ev == "sched_wakeup_new")
		new_noprobe++
	if (ev == "sched_wakeup") {
		nwakeup++
		if (p in waking_open) {
			if (waking_open[p] == 1) waking_noprobe++
			delete waking_open[p]
		} else
			wakeup_nowaking++
	}
	next
}
ev == "sched_migrate_task" {
	o = field(rest, "orig_cpu") + 0; d = field(rest, "dest_cpu") + 0
	nmig++
	if (node(o) != node(d)) xmig++
	next
}
END {
	for (p in want) nleft++
	printf "events: %d in %.6f s (%s .. %s)\n", total, last - first, first, last
	for (e in count) printf "  %-20s %d\n", e, count[e] | "sort"
	close("sort")
	printf "probes: select_rq %d, select_rq_ret %d; entry without return %d, return without entry %d; pid field: %s\n",
		nentry, nret, unpaired_entry + 0, unpaired_ret + 0, haspid ? "yes" : "no (task inferred)"
	printf "wake_flags:"
	for (f in flags) printf " 0x%02x(%s)=%d", f, flagname(f), flags[f]
	printf "\n"
	printf "  WF_SYNC in %s of decisions\n", pct(flags[24] + flags[56], nentry)
	printf "sched_waking %d: reached select_task_rq_fair %d (%s), woke without it %d (%s)\n",
		nwaking, nttwu - ttwu_no_waking, pct(nttwu - ttwu_no_waking, nwaking),
		waking_noprobe + 0, pct(waking_noprobe, nwaking)
	printf "  TTWU entry prev_cpu == sched_waking target_cpu: %d, differs: %d, no waking seen: %d\n",
		prev_eq + 0, prev_ne + 0, ttwu_no_waking + 0
	printf "pairing: returned cpu == next sched_wakeup(_new) target_cpu of the task: %d, differs: %d%s\n",
		match_ok + 0, match_bad + 0, bad_ex == "" ? "" : " (first: " bad_ex ")"
	printf "  decisions left without a wakeup: %d; exec decisions (WF_EXEC): %d (moved %d); sched_wakeup_new without probe: %d\n",
		lostwant + nleft, nexec + 0, exec_moved + 0, new_noprobe + 0
	printf "placements: returned cpu != prev_cpu %d of %d (%s), to the other node %d\n",
		moved + 0, nret, pct(moved, nret), moved_node + 0
	printf "migrations: sched_migrate_task %d, cross-node %d%s\n", nmig + 0, xmig + 0,
		nodes == "" ? " (no node map)" : ""
}
