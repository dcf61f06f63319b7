# Turn "trace-cmd report -R -t" output into the TSV rows that
# "schedreplay info --events" prints (ts_ns cpu event fields...), so that
# the reference tool's decode can be diffed against ours.  The sched events
# and the recorder's probes; every other event line prints "ts cpu name".
function val(key, nextkey,    s, e, rest) {
	s = index(body, key "=")
	if (!s)
		return ""
	rest = substr(body, s + length(key) + 1)
	if (nextkey == "")
		return rest
	e = index(rest, " " nextkey "=")
	return e ? substr(rest, 1, e - 1) : rest
}
# a probe field: the value up to the next blank ("" when absent)
function field(key,    s, rest) {
	s = index(body, " " key "=")
	if (!s)
		return ""
	rest = substr(body, s + length(key) + 2)
	sub(/ .*/, "", rest)
	return rest
}
# "0x18" -> 24 (mawk has no strtonum)
function hex(s,    v, i, c) {
	s = tolower(s)
	sub(/^0x/, "", s)
	v = 0
	for (i = 1; i <= length(s); i++) {
		c = index("0123456789abcdef", substr(s, i, 1)) - 1
		v = v * 16 + c
	}
	return v
}
{
	if (!match($0, /\[[0-9]+\] +[0-9]+\.[0-9]+: +[A-Za-z0-9_]+:/))
		next
	hdr = substr($0, RSTART, RLENGTH)
	body = substr($0, RSTART + RLENGTH)
	sub(/^ +/, "", body)
	split(hdr, h, /[][ :]+/)
	cpu = h[2] + 0
	ts = h[3]
	split(ts, t, ".")
	ns = t[1] t[2]
	sub(/^0+/, "", ns)
	if (ns == "") ns = 0
	name = h[4]
	if (name == "sched_switch") {
		printf "%s\t%d\t%s\t%s\t%d\t%d\t%d\t%s\t%d\t%d\n", ns, cpu, name,
			val("prev_comm", "prev_pid"), val("prev_pid", "prev_prio"),
			val("prev_prio", "prev_state"), val("prev_state", "next_comm"),
			val("next_comm", "next_pid"), val("next_pid", "next_prio"), val("next_prio", "")
	} else if (name == "sched_waking" || name == "sched_wakeup" || name == "sched_wakeup_new") {
		printf "%s\t%d\t%s\t%s\t%d\t%d\t%d\n", ns, cpu, name, val("comm", "pid"),
			val("pid", "prio"), val("prio", index(body, " success=") ? "success" : "target_cpu"),
			val("target_cpu", "")
	} else if (name == "sched_migrate_task") {
		printf "%s\t%d\t%s\t%s\t%d\t%d\t%d\t%d\n", ns, cpu, name, val("comm", "pid"),
			val("pid", "prio"), val("prio", "orig_cpu"), val("orig_cpu", "dest_cpu"),
			val("dest_cpu", "")
	} else if (name == "sched_process_fork") {
		printf "%s\t%d\t%s\t%s\t%d\t%s\t%d\n", ns, cpu, name, val("parent_comm", "parent_pid"),
			val("parent_pid", "child_comm"), val("child_comm", "child_pid"),
			val("child_pid", "")
	} else if (name == "sched_process_exit" || name == "sched_process_free") {
		printf "%s\t%d\t%s\t%s\t%d\t%d\n", ns, cpu, name, val("comm", "pid"),
			val("pid", "prio"), val("prio", index(body, " group_dead=") ? "group_dead" : "")
	} else if (name == "select_rq") {
		pid = field("pid")
		flips = field("flips"); tl = field("load"); tu = field("util"); tr = field("runnable")
		pl = field("prevload")
		printf "%s\t%d\t%s\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\n", ns, cpu, name, pid == "" ? -1 : pid,
			field("prev_cpu"), hex(field("wake_flags")), flips == "" ? -1 : flips,
			tl == "" ? -1 : tl, tu == "" ? -1 : tu, tr == "" ? -1 : tr, pl == "" ? -1 : pl
	} else if (name == "select_rq_ret") {
		printf "%s\t%d\t%s\t%d\n", ns, cpu, name, field("cpu")
	} else if (name == "setaffinity") {
		printf "%s\t%d\t%s\t%d\t%s\n", ns, cpu, name, field("pid"), tolower(field("mask"))
	} else {
		printf "%s\t%d\t%s\n", ns, cpu, name
	}
}
