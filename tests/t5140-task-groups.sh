#!/bin/bash
# Task groups (schedreplay-models(7) §3.5): the recorder's snapshot names
# each task's autogroup; wake_affine_weight() then reads cpu_load() over the
# group entities (calc_group_shares()) and task_h_load() through them, the
# fork slow path (find_idlest_group()) that cpu_load(), and
# an exiting task leaves its autogroup before it wakes its parent
# (sched_autogroup_exit_task()).  --no-groups, and a trace without the
# snapshot, keep the flat hierarchy.
. "$(dirname "$0")/test-lib.sh"

command -v sqlite3 >/dev/null || skip_all "sqlite3 not installed (make deps)"

S="$FIX/scenario"

wake_of() {	# wake_of DB: the mainline base's CPU and its weight verdict for P's wakeup
	sqlite3 "$1" "SELECT e.cpu || ' ' || CASE WHEN e.reason LIKE '%wake_affine: prev%' THEN 'prev'
		ELSE 'this' END FROM evaluation_v e JOIN decision d USING (decision_id)
		WHERE d.kind = 'wakeup' AND d.tid = 510 AND e.model = 'mainline' AND e.patch IS NULL"
}

g="$S/group-autogroup.txt"
"$SR" replay -q -o "$TMP/g.db" -t 1x2x1 "$g" 2>/dev/null
same "autogroups: CPU 1's four-task group weighs one entity: P stays on prev, as the kernel" \
	"1 prev" "$(wake_of "$TMP/g.db")"
"$SR" replay -q -o "$TMP/gf.db" -t 1x2x1 --no-groups "$g" 2>/dev/null
same "--no-groups: the flat sum of task loads takes this_cpu" "0 this" "$(wake_of "$TMP/gf.db")"
grep -v "autogroup 1$" "$g" >"$TMP/g-off.txt"
"$SR" replay -q -o "$TMP/go.db" -t 1x2x1 "$TMP/g-off.txt" 2>/dev/null
same "a trace that does not say autogroup is on: flat" "0 this" "$(wake_of "$TMP/go.db")"
sed 's| cgroup /$| cgroup /user.slice|' "$g" >"$TMP/g-cg.txt"
"$SR" replay -q -o "$TMP/gc.db" -t 1x2x1 "$TMP/g-cg.txt" 2>/dev/null
same "tasks outside the root cpu cgroup: no autogroup applies, flat" "0 this" \
	"$(wake_of "$TMP/gc.db")"
ok "the decision's reason keeps the weights it compared" sh -c \
	"sqlite3 '$TMP/g.db' \"SELECT reason FROM evaluation_v e JOIN decision d USING (decision_id)
	WHERE d.tid = 510 AND e.model = 'mainline' AND e.patch IS NULL\" |
	grep -q 'weight: this [0-9]* >= prev [0-9]*'"

gl() { "$SR" replay -q --fidelity "$@" 2>/dev/null | sed -n 's/^groups: *//p'; }
same "--fidelity says how many groups and tasks" \
	"2 autogroups of 5 snapshot tasks (and their children): wake_affine_weight() reads cpu_load() and task_h_load() through them, the fork slow path cpu_load(), EEVDF lag and eligibility each task's own cfs_rq" \
	"$(gl -t 1x2x1 "$g")"
same "... that --no-groups ignored them" "ignored (--no-groups): every task in the root task group" \
	"$(gl -t 1x2x1 --no-groups "$g")"
same "... that the cgroup kept tasks out" \
	"autogroup on, every snapshot task in the root task group or another cpu cgroup (flat)" \
	"$(gl -t 1x2x1 "$TMP/g-cg.txt")"
same "... and that a trace without the snapshot is flat" \
	"not known (no task snapshot): a flat hierarchy, where a kernel with autogroup on groups every session" \
	"$(gl -t 2x2x1 "$S/delayed-sync.txt")"

fork_of() {	# fork_of DB: the mainline base's CPU and reason for the child's placement
	sqlite3 "$1" "SELECT e.cpu || ' ' || e.reason FROM evaluation_v e JOIN decision d
		USING (decision_id) WHERE d.kind = 'fork' AND d.tid = 540 AND e.model = 'mainline'
		AND e.patch IS NULL"
}
f="$S/group-fork.txt"
"$SR" replay -q -o "$TMP/f.db" -t 1x2x1 "$f" 2>/dev/null
same "fork slow path: CPU 1's four-task group weighs one entity: the child stays local" \
	"1 fork > MC: local" "$(fork_of "$TMP/f.db")"
"$SR" replay -q -o "$TMP/ff.db" -t 1x2x1 --no-groups "$f" 2>/dev/null
same "... flat, CPU 1's four tasks outweigh CPU 0's two: CPU 0" \
	"0 fork > MC: idlest group, cpu 0" "$(fork_of "$TMP/ff.db")"

# an emptied group's entity keeps its weight (update_cfs_group(), 6.12.11, 6.13 on)
k="$S/group-kept-weight.txt"
"$SR" replay -q -o "$TMP/k.db" -t 1x2x1 "$k" 2>/dev/null
same "6.18: G0's sleep leaves its group entity its weight: CPU 0 weighs more, P stays on prev" \
	"1 prev" "$(wake_of "$TMP/k.db")"
"$SR" replay -q -o "$TMP/k10.db" -t 1x2x1 --kernel 6.12.10 "$k" 2>/dev/null
same "... --kernel 6.12.10: reweighted from G0's blocked load at that sleep: this_cpu" "0 this" \
	"$(wake_of "$TMP/k10.db")"

x="$S/group-exit-waker.txt"
"$SR" replay -q -o "$TMP/x.db" -t 1x2x1 "$x" 2>/dev/null
same "an exiting waker is a root task: its whole load on this_cpu keeps P on prev" \
	"1 prev" "$(wake_of "$TMP/x.db")"
# the same waker not exiting, and the wakeup not sync (an exiting waker masks WF_SYNC)
grep -v "sched_process_exit" "$x" | sed 's/wake_flags=0x18/wake_flags=0x8/' >"$TMP/x-alive.txt"
"$SR" replay -q -o "$TMP/xa.db" -t 1x2x1 "$TMP/x-alive.txt" 2>/dev/null
same "... while a waker still in the group brings only its share: this_cpu" "0 this" \
	"$(wake_of "$TMP/xa.db")"

# the engine's task table grows (1024 slots, then doubled) with the groups
# in place: 600 more tasks, each seen at its sched_process_exit, before the
# wakeup; under the sanitizers where they are built
{
	sed -n '/^ *W-530 .* sched_waking:/q;p' "$g"
	i=2000
	while [ $i -lt 2600 ]; do
		printf '%16s-%-5d [000] d..3.     1.299%03d: sched_process_exit: comm=X pid=%d prio=120\n' \
			X $i $(( (i - 2000) / 2 )) $i
		i=$((i + 1))
	done
	sed -n '/^ *W-530 .* sched_waking:/,$p' "$g"
} >"$TMP/g-many.txt"
"$SR" replay -q -o "$TMP/gm.db" -t 1x2x1 "$TMP/g-many.txt" 2>/dev/null
same "a task table grown past its first size keeps the groups" "1 prev" "$(wake_of "$TMP/gm.db")"
if [ -x "$SR_SAN" ]; then
	ok "... [asan+ubsan]: no use of freed group state" env ASAN_OPTIONS=detect_leaks=1 \
		UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		"$SR_SAN" replay -q -o "$TMP/gms.db" -t 1x2x1 "$TMP/g-many.txt"
fi

# --- eligibility on a task's own cfs_rq (6.12+ delayed dequeue) -------------
# A sleeps with B of another session queued on its CPU: alone on its
# group's cfs_rq, it is eligible and leaves; flat, it would be held delayed
d="$S/delayed-own-cfs-rq.txt"
"$SR" replay -q -o "$TMP/dg.db" -t 1x2x1 "$d" 2>/dev/null
"$SR" replay -q -o "$TMP/dgf.db" -t 1x2x1 --no-groups "$d" 2>/dev/null
same "A, alone on its autogroup's cfs_rq, leaves the queue: W's wakeup of A is a placement" \
	"placement" \
	"$(sqlite3 "$TMP/dg.db" "SELECT coalesce(skip, 'placement') FROM decision WHERE kind = 'wakeup' AND tid = 500")"
same "--no-groups: one flat queue, A above V is held delayed (ttwu_runnable)" "runnable" \
	"$(sqlite3 "$TMP/dgf.db" "SELECT coalesce(skip, 'placement') FROM decision WHERE kind = 'wakeup' AND tid = 500")"

# --- sched_autogroup_exit_task(): a dying child leaves its group at once ----
# A fork storm (tests/lib/fork-storm.awk) of two workers of autogroup 10 on
# CPU 0 (each runs 0.05 ms, forks a child that runs 0.8 ms and exits; the
# other waits meanwhile), a nice-0 hog on CPU 1.  At its exit each child is
# moved to the root task group: task_change_group_fair() (6.1, 6.12, 6.18)
# detaches it from the group's cfs_rq with its sums, the current period's
# part included (detach_entity_load_avg()), and attaches it to the root's
# with its sums rebuilt from its averages, so its death takes all it
# accrued.  CPU 0 then holds two tasks with util near 110 and runnable near
# 1100, below imbalance_pct 117 % of its capacity: group_has_spare, lower
# than CPU 1's group_fully_busy, and every child stays.  With only the
# averages taken away at the death, CPU 0 keeps each child's last partial
# period: runnable near 1440, group_overloaded, and the children go to CPU 1.
awk -v groups=1 -v nw=2 -v qprio=120 -v life=800 -v wrun=50 -v dur=300 \
	-f "$TEST_DIR/lib/fork-storm.awk" >"$TMP/gstorm.txt"
"$SR" replay -q -o "$TMP/gs.db" -t 1x2x1 "$TMP/gstorm.txt" 2>/dev/null
same "the grouped storm has its forks" "351" \
	"$(sqlite3 "$TMP/gs.db" "SELECT count(*) FROM decision WHERE kind = 'fork' AND skip IS NULL")"
last100() {	# last100 DB: "cpu:count" of the model's last 100 forks
	sqlite3 "$1" "SELECT e.cpu || ':' || count(*) FROM (SELECT decision_id FROM decision
		WHERE kind = 'fork' ORDER BY ts DESC LIMIT 100) JOIN evaluation_v e
		USING (decision_id) WHERE e.model = 'mainline' GROUP BY e.cpu" | paste -sd' '
}
same "children that left the group at their exit took what they accrued: the last 100 stay" \
	"0:100" "$(last100 "$TMP/gs.db")"
"$SR" replay -q -o "$TMP/gsf.db" -t 1x2x1 --no-groups "$TMP/gstorm.txt" 2>/dev/null
same "... --no-groups: no group to leave, each child's last partial period stays: CPU 1" \
	"1:100" "$(last100 "$TMP/gsf.db")"

test_done
