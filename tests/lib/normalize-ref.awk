# Bring a fixture's reference decode (*.sched.tsv, written by babeltrace2 /
# trace-cmd / a text parser) to the normalized form "info --events" prints:
# prio on the kernel scale when lttng=1 (LTTng subtracts 100; before
# lttng-modules 2.7.1 only in sched_switch: set oldwake=1), letters of
# prev_state as the kernel's report bits, cpu numbers without zero padding.
BEGIN {
	FS = OFS = "\t"
	bits["S"] = 1; bits["D"] = 2; bits["T"] = 4; bits["t"] = 8; bits["X"] = 16
	bits["Z"] = 32; bits["P"] = 64; bits["I"] = 128; bits["x"] = 16
	bits["K"] = 0; bits["W"] = 0; bits["N"] = 0
}
function prio(p) { return (lttng && p + 0 < 40) ? p + 100 : p + 0 }
function wprio(p) { return oldwake ? p + 0 : prio(p) }
function state(s,    n, i, c, v, seen) {
	if (s ~ /^-?[0-9]+$/) return s + 0
	if (s == "R") return 0
	if (s == "R+") return 256
	v = 0
	n = length(s)
	for (i = 1; i <= n; i++) {
		c = substr(s, i, 1)
		if (c != "|" && !(c in seen)) { v += bits[c]; seen[c] = 1 }
	}
	return v
}
/^#/ { next }
{
	if ($3 == "sched_switch") {
		$6 = prio($6); $7 = state($7); $10 = prio($10); $5 += 0; $9 += 0
	} else if ($3 == "sched_migrate_task") {
		$6 = prio($6); $7 += 0; $8 += 0; $5 += 0
	} else {
		$6 = wprio($6); $7 += 0; $5 += 0
	}
	$2 += 0
	print
}
