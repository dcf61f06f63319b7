#!/bin/bash
# Live NUMA test (issue 3): scripts/numa-guest/record.sh boots a stock Debian
# 6.1 kernel in a QEMU guest with two NUMA nodes (CPUs 0-1 and 2-3, distance
# 20; software emulation), runs "schedreplay record --balance-probes" inside it around the
# "mix" load (a fork storm, a FIFO ping-pong between node 0 and node 1, a hog
# moved from node 0 to node 1 and back) and brings the file back.  On the
# host: info and trace-cmd report read it with the same counts and decode;
# the metadata topology is the guest's; cross-node migrations are there; the
# select_rq probes pair one-to-one with their returns, with the wakeups and
# with the forks; replay takes topology and probes from the recording; the
# recorder left the guest's tracefs as it found it.
#
# Needs root, qemu-system-x86_64 and the harness's Debian packages (make
# deps), and a linux-image-6.1.0-*-amd64 .deb in scripts/numa-guest/cache or
# a working apt mirror to download one (~70 MB, once; SR_NUMA_CACHE=DIR
# keeps it elsewhere).  Says SKIP with the reason elsewhere.  The run takes
# 25-35 s here (2 host cores, one boot); record.sh kills a guest that hangs (150 s)
# or oopses and boots it again (4 boots at most), and the whole run is under a timeout
# (SR_NUMA_TIMEOUT, 900 s).  The first boot panics on purpose
# (--crash-first-boot), a test that record.sh boots again a guest whose kernel
# oopsed: multi-threaded TCG now and then crashes one (seen once in CI: a
# call through a NULL pointer in run_ksoftirqd).
. "$(dirname "$0")/test-lib.sh"

. "$TEST_DIR/lib/numa-guest.sh"
numa_guest_prereqs
numa_guest_kernel 'linux-image-6.1.0-*-amd64_*_amd64.deb' '^linux-image-6\.1\.0-[0-9]+-amd64$'

# ---- boot (the first boot panics on purpose), record, bring the file back
numa_guest_record 6.1 mix --crash-first-boot --balance-probes
# a boot panicked on purpose (sysrq c; the first one, unless it stalled
# before /init): record.sh saw the oops and booted again, as after the real
# ones multi-threaded TCG now and then has; the last boot recorded
ends=$(sed -n 's/^== numa-6.1-mix: QEMU ended (\([a-z0-9-]*\)).*/\1/p' "$TMP/record.log" | paste -sd' ' -)
ok "record.sh: the panicked boot was booted again ($ends)" sh -c \
	"echo ' $ends' | grep -qE ' crash( [a-z-]+)* 0\$'"
ok "record.sh: it printed the panic" grep -q 'Kernel panic - not syncing: sysrq triggered crash' "$TMP/record.log"
numa_guest_check_guest
numa_guest_check_reads '6\.1\.0-[0-9]*-amd64'

# ---- the metadata (print events "schedreplay: ..."), as trace-cmd shows it
sed -n 's/^.* print: .*schedreplay: //p' "$TMP/rep.txt" >"$TMP/meta"
same "metadata: the first line" "meta version 1" "$(head -n 1 "$TMP/meta")"
same "metadata: the last line counts the lines" "$(wc -l <"$TMP/meta")" \
	"$(tail -n 1 "$TMP/meta" | sed -n 's/^meta end tasks [0-9]* lines \([0-9]*\)$/\1/p')"
ok "metadata: kernel release and HZ (from the config in the guest's /boot)" \
	grep -qE '^kernel 6\.1\.0-[0-9]+-amd64 hz 250$' "$TMP/meta"
ok "metadata: the kernel's build string names its Debian version" \
	grep -qE '^kernel-build #[0-9]+ .*Debian 6\.1\.[0-9]+-' "$TMP/meta"
ok "the generation's sublevel comes from it" \
	grep -qE '^  generation 6\.1\.[0-9]+ \(recording 6\.1\.0-[0-9]+-amd64, built as Debian 6\.1\.[0-9]+-' \
	<("$SR" info "$D")
same "metadata: cpus" "cpus possible 0-3 online 0-3" "$(grep '^cpus ' "$TMP/meta")"
# one LLC per node: llc is the lowest CPU sharing it
same "metadata topology: CPUs 0-1 on node 0 (package 0), 2-3 on node 1 (package 1)" \
	"cpu 0 node 0 package 0 llc 0
cpu 1 node 0 package 0 llc 0
cpu 2 node 1 package 1 llc 2
cpu 3 node 1 package 1 llc 2" \
	"$(awk '$1 == "topology" && $2 == "cpu" {
		for (i = 4; i < NF; i += 2) v[$i] = $(i + 1)
		print "cpu", $3, "node", v["node"], "package", v["package"], "llc", v["llc"] }' "$TMP/meta")"
same "metadata topology: distances 10/20" "topology distance 0 10 20
topology distance 1 20 10" "$(grep '^topology distance ' "$TMP/meta")"
# 6.1 takes no BTF arguments: the recorder read the pid and wakee_flips
# offsets from the guest kernel's /sys/kernel/btf/vmlinux
ok "metadata: the probes are on, with pid (offset from BTF), the setaffinity one too" \
	grep -qE '^probes on pid 1 affinity 1$' "$TMP/meta"
nflips=$("$SR" info --events "$D" | awk -F'\t' '$3 == "select_rq" { n++
		if ($4 > 0 && $7 >= 0 && $8 >= 0 && $9 >= 0 && $10 >= 0 && $11 >= 0) k++ }
	END { print n + 0, k + 0 }')
ok "every select_rq has the pid, flips, load, util, runnable and prevload fields ($nflips)" \
	sh -c "set -- $nflips; [ \$1 -gt 0 ] && [ \$1 = \$2 ]"
# the load's taskset calls (three at least: ping, pong, the hog and its two moves)
naff=$("$SR" info --events "$D" | awk -F'\t' '$3 == "setaffinity"' | wc -l)
ok "setaffinity events for the load's taskset calls ($naff)" test "$naff" -ge 3
# --balance-probes: the newidle probe reads avg_idle, the lowest domain's
# max_newidle_lb_cost and, Debian's 6.1.192 having NI_RANDOM, the
# newidle_ratio of that domain and of its parent (BTF offsets)
ok "metadata: the balance probes are on" grep -q '^balance-probes on$' "$TMP/meta"
nni=$(grep -c ' newidle: .*cpu=[0-9]* avg_idle=[0-9]* cost=[0-9]* ratio=[0-9]* pratio=[0-9]*$' "$TMP/rep.txt")
ok "every newidle event has avg_idle, cost, ratio and pratio ($nni)" \
	sh -c "[ $nni -gt 0 ] && [ $nni = \$(grep -c ' newidle: ' '$TMP/rep.txt') ]"
ok "balance_rq events with their level" grep -q ' balance_rq: .*cpu=[0-9]* idle=[0-9]* level=[0-9]' "$TMP/rep.txt"
sed -n 's/^topology //p' "$TMP/meta" >"$TMP/topo"
ok "metadata: the topology lines are a topology file replay reads" \
	"$SR" replay -q -t "$TMP/topo" "$D"

# ---- cross-node migrations, nodes as the recording says (the hog is moved
# from node 0 to node 1 and back: two at least)
trace-cmd report -R "$D" 2>/dev/null >"$TMP/raw.txt"
xnode=$(awk -v nodes="$(awk '$1 == "topology" && $2 == "cpu" { for (i = 4; i < NF; i += 2)
		if ($i == "node") print $3 ":" $(i + 1) }' "$TMP/meta" | paste -sd, -)" '
	BEGIN { n = split(nodes, a, ","); for (i = 1; i <= n; i++) { split(a[i], b, ":"); node[b[1]] = b[2] } }
	/ sched_migrate_task: / {
		o = $0; sub(/.* orig_cpu=/, "", o); o += 0
		d = $0; sub(/.* dest_cpu=/, "", d); d += 0
		if ((o in node) && (d in node) && node[o] != node[d]) x++
	}
	END { print x + 0 }' "$TMP/raw.txt")
ok "cross-node sched_migrate_task events ($xnode)" test "$xnode" -ge 2

# ---- the probes.  Inside the kernel (6.1) every call of
# select_task_rq_fair runs with interrupts off (under p->pi_lock) and is one
# of three kinds: a wakeup (WF_TTWU 0x8), a fork (WF_FORK 0x4) or an exec
# (WF_EXEC 0x2).  So, on the CPU that makes the decision:
#  - select_rq is followed by its select_rq_ret, nothing in between: the
#    two pair one-to-one;
#  - a TTWU decision comes right after the sched_waking of its task (which
#    names the task, as 6.1 has no pid field) and its prev_cpu is that
#    event's target_cpu; the sched_wakeup that completes this wakeup, on
#    the same CPU or (queued) on the target, has the returned CPU as
#    target_cpu (p->wake_cpu can differ from task_cpu only after a
#    NUMA-balancing swap of a sleeping task, and the returned CPU is
#    overridden only when the task's affinity changed meanwhile
#    (select_fallback_rq, seen on 6.12): neither happens in this short
#    load, whose tasks get their affinity at exec).  The k-th sched_waking
#    of a task goes with its k-th sched_wakeup, not with the next one in
#    time: across CPUs the order follows the trace clock, and a clamped
#    global clock (or a local one) can put a queued wakeup on the target
#    CPU before the waker's select_rq_ret (seen: equal timestamps);
#  - a FORK decision's select_rq_ret is followed by the child's
#    sched_wakeup_new with the returned CPU as target_cpu, and every
#    sched_wakeup_new comes so (the kernel skips the decision only for a
#    child allowed on one CPU: no task of the load is);
#  - sched_waking/sched_wakeup without a decision are fine: a task still on
#    its runqueue, one allowed on a single CPU, or one still running on a
#    CPU (queued there) is woken without select_task_rq_fair.
# A TTWU decision whose wakeup falls after the end of the recording is
# counted as left over (one per CPU at most).
cat >"$TMP/pair.awk" <<'EOF'
function field(s, name) {
	if (!match(s, " " name "=[^ ]*"))
		return ""
	return substr(s, RSTART + length(name) + 2, RLENGTH - length(name) - 2)
}
function hex(h,    i, v) {
	h = tolower(h); sub(/^0x/, "", h); v = 0
	for (i = 1; i <= length(h); i++)
		v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
	return v
}
function bit(v, b) { return int(v / b) % 2 }
# the k-th sched_waking of a task goes with its k-th sched_wakeup (the kernel
# writes sched_waking only for a wakeup it then completes), KEY = pid SUBSEP
# k; a decision's select_rq_ret and the sched_wakeup are on different CPUs
# when the wakeup is queued to the target: their order in the merged stream
# follows the trace clock, so either may come first
function decided(key, r) {
	if (key in wu) {
		compare(key, r, wu[key])
		delete wu[key]
	} else
		dec[key] = r
}
function compare(key, r, t,    pk) {
	split(key, pk, SUBSEP)
	if (r != t)
		bad("ttwu_target", "pid " pk[1] " placed on " r ", woken on " t)
	else
		ttwu_matched++
}
function bad(kind, what) {
	nbad[kind]++
	if (!(kind in ex)) ex[kind] = ts " cpu " cpu ": " what
}
BEGIN {
	nk = split("entry_without_ret ret_without_entry flags ttwu_without_waking ttwu_prev_cpu " \
		   "ttwu_target ttwu_lost fork_without_wakeup_new wakeup_new_without_fork", kinds, " ")
}
!match($0, / \[[0-9]+\] +[0-9.]+: [a-z_]+: /) { next }
{
	hdr = substr($0, RSTART, RLENGTH)
	rest = " " substr($0, RSTART + RLENGTH)
	split(hdr, h, " ")
	cpu = substr(h[1], 2, length(h[1]) - 2) + 0
	ts = h[2]; sub(/:$/, "", ts)
	ev = h[3]; sub(/:$/, "", ev)
	# what the previous event on this CPU asks for comes first
	if (cpu in want_ret) {
		if (ev != "select_rq_ret")
			bad("entry_without_ret", "select_rq followed by " ev)
		delete want_ret[cpu]
	}
	newok = 0
	if (cpu in want_new) {
		if (ev != "sched_wakeup_new" || field(rest, "target_cpu") + 0 != want_new[cpu])
			bad("fork_without_wakeup_new", "fork placed on " want_new[cpu] ", then " ev rest)
		else {
			fork_matched++
			newok = 1
		}
		delete want_new[cpu]
	}
}
ev == "sched_waking" {
	nwaking++
	p = field(rest, "pid")
	nwk[p]++
	k = nwk[p]
}
ev == "select_rq" {
	nentry++
	wf = hex(field(rest, "wake_flags"))
	if (bit(wf, 8) + bit(wf, 4) + bit(wf, 2) != 1)
		bad("flags", "wake_flags " field(rest, "wake_flags"))
	e_wf[cpu] = wf
	e_key[cpu] = ""
	want_ret[cpu] = 1
	if (bit(wf, 8)) {
		nttwu++
		if (last[cpu] != "sched_waking")
			bad("ttwu_without_waking", "TTWU decision after " last[cpu])
		else {
			e_key[cpu] = last_key[cpu]
			if (field(rest, "prev_cpu") + 0 != last_target[cpu])
				bad("ttwu_prev_cpu", "prev_cpu " field(rest, "prev_cpu") \
				    ", sched_waking target_cpu " last_target[cpu])
		}
	} else if (bit(wf, 4))
		nfork++
	else if (bit(wf, 2))
		nexec++
}
ev == "select_rq_ret" {
	nret++
	if (last[cpu] != "select_rq")
		bad("ret_without_entry", "select_rq_ret after " last[cpu])
	else if (bit(e_wf[cpu], 8) && e_key[cpu] != "")
		decided(e_key[cpu], field(rest, "cpu") + 0)
	else if (bit(e_wf[cpu], 4))
		want_new[cpu] = field(rest, "cpu") + 0
}
ev == "sched_wakeup" {
	nwakeup++
	p = field(rest, "pid")
	if (!(p in nwk)) {
		pre++		# its sched_waking was before the recording
		next
	}
	nwu[p]++
	key = p SUBSEP nwu[p]
	if (key in dec) {
		compare(key, dec[key], field(rest, "target_cpu") + 0)
		delete dec[key]
	} else
		wu[key] = field(rest, "target_cpu") + 0
}
ev == "sched_wakeup_new" {
	nwakeup_new++
	if (!newok)
		bad("wakeup_new_without_fork", "sched_wakeup_new" rest " after " last[cpu])
}
{
	last[cpu] = ev
	if (ev == "sched_waking") {
		last_key[cpu] = p SUBSEP k
		last_target[cpu] = field(rest, "target_cpu") + 0
	}
}
END {
	for (key in dec) {
		split(key, pk, SUBSEP)
		if (nwk[pk[1]] > pk[2])
			bad("ttwu_lost", "pid " pk[1] ": no sched_wakeup for its decision before its next sched_waking")
		else
			ttwu_left++
	}
	printf "select_rq %d\nselect_rq_ret %d\nttwu %d\nfork %d\nexec %d\n", nentry, nret, nttwu, nfork, nexec
	printf "sched_waking %d\nsched_wakeup %d\nsched_wakeup_new %d\n", nwaking, nwakeup, nwakeup_new
	printf "ttwu_matched %d\nttwu_left %d\nfork_matched %d\n", ttwu_matched, ttwu_left, fork_matched
	for (i = 1; i <= nk; i++)
		printf "bad_%s %d%s\n", kinds[i], nbad[kinds[i]], \
			(kinds[i] in ex) ? " (first: " ex[kinds[i]] ")" : ""
}
EOF
awk -f "$TMP/pair.awk" "$TMP/raw.txt" >"$TMP/pair.txt"
pv() { sed -n "s/^$1 \\([0-9]*\\).*/\\1/p" "$TMP/pair.txt"; }
echo "# probes: $(sed -n 's/^\(select_rq\|ttwu\|fork\|exec\|sched_wakeup\|sched_wakeup_new\|ttwu_matched\|ttwu_left\) /\1=/p' "$TMP/pair.txt" | paste -sd' ' -)"
ok "probes: select_rq events recorded ($(pv select_rq))" test "$(pv select_rq)" -gt 0
same "probes: as many select_rq_ret as select_rq" "$(pv select_rq)" "$(pv select_rq_ret)"
same "probes: the counts are info's too" "$(pv select_rq) $(pv select_rq_ret)" \
	"$(json_count "$TMP/info.json" select_rq) $(json_count "$TMP/info.json" select_rq_ret)"
same "probes: each select_rq is followed on its CPU by a select_rq_ret" \
	"bad_entry_without_ret 0" "$(grep '^bad_entry_without_ret ' "$TMP/pair.txt")"
same "probes: each select_rq_ret comes right after a select_rq on its CPU" \
	"bad_ret_without_entry 0" "$(grep '^bad_ret_without_entry ' "$TMP/pair.txt")"
same "probes: every decision is TTWU, FORK or EXEC" "bad_flags 0" "$(grep '^bad_flags ' "$TMP/pair.txt")"
ok "probes: wakeup decisions ($(pv ttwu)) and fork decisions ($(pv fork)) recorded" \
	test "$(pv ttwu)" -gt 0 -a "$(pv fork)" -gt 0
for k in ttwu_without_waking ttwu_prev_cpu ttwu_target ttwu_lost; do
	same "probes: TTWU decisions: no $k" "bad_$k 0" "$(grep "^bad_$k " "$TMP/pair.txt")"
done
same "probes: each TTWU decision pairs with one sched_wakeup (left at the end: $(pv ttwu_left))" \
	"$(pv ttwu)" "$(($(pv ttwu_matched) + $(pv ttwu_left)))"
ok "probes: at most one TTWU decision per CPU without its wakeup at the end" test "$(pv ttwu_left)" -le 4
ok "probes: no more TTWU decisions than sched_wakeup events" test "$(pv ttwu)" -le "$(pv sched_wakeup)"
for k in fork_without_wakeup_new wakeup_new_without_fork; do
	same "probes: FORK decisions: no $k" "bad_$k 0" "$(grep "^bad_$k " "$TMP/pair.txt")"
done
same "probes: FORK decisions pair one-to-one with sched_wakeup_new" \
	"$(pv sched_wakeup_new) $(pv sched_wakeup_new)" "$(pv fork) $(pv fork_matched)"

# ---- replay takes the topology and the probes from the recording
"$SR" replay "$D" >"$TMP/replay.txt" 2>"$TMP/replay.err"
same "replay: exits 0" 0 $?
ok "replay: topology: the recording's metadata" grep -q '^topology: *recording metadata$' "$TMP/replay.txt"
ok "replay: probes: select_rq" grep -q '^probes: *select_rq' "$TMP/replay.txt"
test_done
