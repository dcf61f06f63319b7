#!/bin/bash
# The kernel generation (schedreplay-replay(1), KERNEL GENERATION): taken
# from the trace's kernel release or --kernel, stored in run.kernel_gen and
# shown by replay --fidelity, report and info; and the 6.12 behaviours the
# engine and the models follow by it (delayed dequeue: dequeue_entity(),
# pick_next_entity(), ttwu_runnable(), cpu_load(); wake_affine_idle()'s
# sync test from 6.12.37; can_migrate_task() and delayed tasks before and
# after 6.14), each on a constructed scenario against an older generation.
. "$(dirname "$0")/test-lib.sh"

command -v sqlite3 >/dev/null || skip_all "sqlite3 not installed (make deps)"

N="$FIX/tracedat/numa"
S="$FIX/scenario"

# --- where the generation comes from --------------------------------------
kline() { "$SR" replay -q --fidelity "$@" 2>/dev/null | sed -n 's/^kernel: *//p'; }
same "6.12 trace: the generation from its uname" \
	"6.12.117 (recording 6.12.117+deb12-amd64): EEVDF, new task util from se_weight, util_est as one EWMA, delayed dequeue, runnable signal without delayed tasks, sync wake_affine without delayed tasks, NI_RANDOM newidle balance, prefer-sibling balance for idle CPUs only, 0.70 ms base slice, empty group entity keeps its weight, later fully busy group is the busiest, migrate_util busiest queue by boosted util" \
	"$(kline -t "$N/numa-6.12-pingpong.topo" "$N/numa-6.12-pingpong.dat")"
same "6.1 trace (Debian ABI release): 6.1.y, CFS, NI_RANDOM of the newest stable" \
	"6.1.y (recording 6.1.0-57-amd64; sublevel not in the release: newest stable assumed): CFS, no delayed dequeue, NI_RANDOM newidle balance" \
	"$(kline -t "$N/numa-6.1-pingpong.topo" "$N/numa-6.1-pingpong.dat")"
same "--kernel overrides the trace's release" \
	"6.12.0 (--kernel 6.12.0): EEVDF, new task util from se_weight, util_est as one EWMA, delayed dequeue, prefer-sibling balance for idle CPUs only, later fully busy group is the busiest, migrate_util busiest queue by boosted util" \
	"$(kline --kernel 6.12.0 -t "$N/numa-6.1-pingpong.topo" "$N/numa-6.1-pingpong.dat")"
# a Debian ABI release with the recorder's kernel-build line (uname -v):
# the sublevel from "Debian X.Y.Z-N", and the behaviours of that sublevel
meta_build() {
	sed "s/schedreplay: kernel 6.18.44 hz 250/schedreplay: kernel $1 hz 250/
	     /schedreplay: meta version 1/a\\
     schedreplay-399   [001] d..3.     9.999900: tracing_mark_write: schedreplay: kernel-build $2" \
		"$S/delayed-own-cfs-rq.txt"
}
meta_build 6.1.0-20-amd64 "#1 SMP PREEMPT_DYNAMIC Debian 6.1.85-1 (2024-04-11)" >"$TMP/kb85.txt"
meta_build 6.1.0-57-amd64 "#1 SMP PREEMPT_DYNAMIC Debian 6.1.192-3 (2026-01-01)" >"$TMP/kb192.txt"
same "kernel-build Debian 6.1.85-1: 6.1.85, without NI_RANDOM (backported in 6.1.160)" \
	"6.1.85 (recording 6.1.0-20-amd64, built as Debian 6.1.85-1): CFS, no delayed dequeue" \
	"$(kline "$TMP/kb85.txt")"
same "kernel-build Debian 6.1.192-3: 6.1.192, NI_RANDOM" \
	"6.1.192 (recording 6.1.0-57-amd64, built as Debian 6.1.192-3): CFS, no delayed dequeue, NI_RANDOM newidle balance" \
	"$(kline "$TMP/kb192.txt")"
meta_build 6.1.0-57-amd64 "#1 SMP Debian 6.1.x-garbage" >"$TMP/kbbad.txt"
same "a kernel-build line without a Debian X.Y.Z of the release: the newest stable, as without it" \
	"6.1.y (recording 6.1.0-57-amd64; sublevel not in the release: newest stable assumed): CFS, no delayed dequeue, NI_RANDOM newidle balance" \
	"$(kline "$TMP/kbbad.txt")"
same "info names the same generation" \
	"  generation 6.1.85 (recording 6.1.0-20-amd64, built as Debian 6.1.85-1): CFS, no delayed dequeue" \
	"$("$SR" info "$TMP/kb85.txt" | grep '^  generation')"
ok "simulate follows it: CFS" grep -q "cfs, kernel 6.1.0-20-amd64" \
	<("$SR" simulate -t 1x2x1 "$TMP/kb85.txt" 2>/dev/null)
case "$(kline -t 2x2x1 "$S/delayed-dequeue.txt")" in
unknown*) pass "a trace without a release: unknown, modelled as 6.1" ;;
*) fail "a trace without a release: unknown, modelled as 6.1" ;;
esac
"$SR" replay -q --kernel 6.12.0 -t "$N/numa-6.1-pingpong.topo" "$N/numa-6.1-pingpong.dat" \
	>/dev/null 2>"$TMP/w"
ok "--kernel against the trace's own release: a warning names both" \
	grep -q "^schedreplay: warning: replay: --kernel 6.12.0 is not the kernel that recorded .*(6.1.0-57-amd64): the engine and the models follow 6.12, the trace shows 6.1$" "$TMP/w"
"$SR" replay -q --kernel 6.1 -t "$N/numa-6.1-pingpong.topo" "$N/numa-6.1-pingpong.dat" \
	>/dev/null 2>"$TMP/w"
ok "... and none when they agree" sh -c "! grep -q 'is not the kernel' '$TMP/w'"
"$SR" replay -q --kernel 99.1 -t "$N/numa-6.1-pingpong.topo" "$N/numa-6.1-pingpong.dat" \
	>/dev/null 2>"$TMP/w"
ok "a --kernel newer than any release the table covers: a warning" \
	grep -q "^schedreplay: warning: replay: --kernel 99.1 is newer than any release whose scheduler changes are modelled (6.1 to 6.18)$" "$TMP/w"
ok "... and the kernel line says the later changes are not modelled" sh -c \
	"'$SR' replay -q --fidelity --kernel 99.1 -t '$N/numa-6.1-pingpong.topo' '$N/numa-6.1-pingpong.dat' 2>/dev/null |
	grep -q '^kernel: .*; newer than 6.18, the newest release whose changes are modelled: later ones are not$'"
"$SR" replay -q --kernel 4.19 -t "$N/numa-6.1-pingpong.topo" "$N/numa-6.1-pingpong.dat" \
	>/dev/null 2>"$TMP/w"
ok "an older one: a warning too" grep -q "^schedreplay: warning: replay: --kernel 4.19 is older than" "$TMP/w"
"$SR" replay -q --kernel linux "$S/delayed-dequeue.txt" >/dev/null 2>"$TMP/e"
same "a bad --kernel exits 2" 2 $?
ok "and says what it takes" grep -q "^schedreplay: replay: --kernel takes a kernel release such as 6.12.117 or 6.1, not 'linux'" "$TMP/e"

# --- stored, reported, described ------------------------------------------
"$SR" replay -q -o "$TMP/g.db" -t "$N/numa-6.12-pingpong.topo" "$N/numa-6.12-pingpong.dat" 2>/dev/null
same "run.kernel_gen holds it" \
	"6.12.117 (recording 6.12.117+deb12-amd64): EEVDF, new task util from se_weight, util_est as one EWMA, delayed dequeue, runnable signal without delayed tasks, sync wake_affine without delayed tasks, NI_RANDOM newidle balance, prefer-sibling balance for idle CPUs only, 0.70 ms base slice, empty group entity keeps its weight, later fully busy group is the busiest, migrate_util busiest queue by boosted util" \
	"$(sqlite3 "$TMP/g.db" "SELECT kernel_gen FROM run")"
ok "report shows it" sh -c "'$SR' report '$TMP/g.db' | grep -q '^  generation   6.12.117 (recording'"
ok "info on the database shows it" sh -c "'$SR' info '$TMP/g.db' | grep -q '^  generation 6.12.117 (recording'"
ok "info on the trace shows what replay will model" \
	sh -c "'$SR' info '$N/numa-6.12-pingpong.dat' | grep -q '^  generation 6.12.117 (recording'"
# a database written before the column: report and info say so, an append adds it
sqlite3 "$TMP/g.db" "CREATE TABLE r2 AS SELECT * FROM run; DROP TABLE run;
	CREATE TABLE run AS SELECT run_id, trace, format, host, kernel, clock, model, patches,
	topology, tool_version, hz, probes, inference, started, events, first_ts, last_ts,
	threads, decisions, migrations, lost_events FROM r2; DROP TABLE r2"
ok "report on an older file: (not recorded)" sh -c "'$SR' report '$TMP/g.db' | grep -q '^  generation   (not recorded)'"
ok "info on an older file: (not recorded)" sh -c "'$SR' info '$TMP/g.db' | grep -q '^  generation (not recorded)'"
ok "an append to an older file" "$SR" replay -q -a -o "$TMP/g.db" -t "$N/numa-6.1-pingpong.topo" "$N/numa-6.1-pingpong.dat"
same "adds the column, old runs NULL" "1| 2|6.1.y" \
	"$(sqlite3 "$TMP/g.db" "SELECT run_id, substr(coalesce(kernel_gen, ''), 1, 5) FROM run ORDER BY run_id" | paste -sd' ')"

# --- delayed dequeue (6.12): the trace-only scenario -----------------------
dd="$S/delayed-dequeue.txt"
for k in 6.12.117 6.1; do
	"$SR" replay -q -o "$TMP/dd-$k.db" -t 2x2x1 --kernel "$k" "$dd" 2>/dev/null
done
same "6.12: the wakeup of the delayed A is no placement (ttwu_runnable)" "runnable" \
	"$(sqlite3 "$TMP/dd-6.12.117.db" "SELECT skip FROM decision WHERE kind = 'wakeup' AND tid = 600")"
same "6.1: the same wakeup is a placement" "" \
	"$(sqlite3 "$TMP/dd-6.1.db" "SELECT skip FROM decision WHERE kind = 'wakeup' AND tid = 600")"
prevload() {
	sqlite3 "$1" "SELECT reason FROM evaluation_v JOIN decision USING (decision_id)
		WHERE kind = 'wakeup' AND tid = 900" | sed -n 's/.*weight: this [0-9]* [<>=]* prev \([0-9]*\).*/\1/p'
}
p612=$(prevload "$TMP/dd-6.12.117.db")
p61=$(prevload "$TMP/dd-6.1.db")
if [ -n "$p612" ] && [ -n "$p61" ] && [ "$p612" -gt "$p61" ]; then
	pass "6.12: cpu_load(prev) holds the delayed task's load, growing ($p612 > $p61)"
else
	fail "6.12: cpu_load(prev) holds the delayed task's load, growing" "6.12 '$p612', 6.1 '$p61'"
fi
"$SR" replay -q --fidelity -t 2x2x1 --kernel 6.12.117 "$dd" >"$TMP/f612" 2>/dev/null
ok "--fidelity counts the delayed sleeps and the one woken still queued" \
	grep -q '^delayed: *2 sleeps kept queued (dequeue_entity(), 6.12+: not eligible), 1 woken still queued' "$TMP/f612"
ok "the idle switch drains the delayed C: no contradiction" \
	grep -q '^reconciled: 0 newidle_pull, 0 idle_switch, 0 probe, 0 switch, 0 delayed' "$TMP/f612"
same "and C's later wakeup is a placement" "" \
	"$(sqlite3 "$TMP/dd-6.12.117.db" "SELECT skip FROM decision WHERE kind = 'wakeup' AND tid = 800")"
"$SR" replay -q --fidelity -t 2x2x1 --kernel 6.1 "$dd" >"$TMP/f61" 2>/dev/null
ok "6.1 has no delayed line" sh -c "! grep -q '^delayed:' '$TMP/f61'"

# --- the lag a task leaves with around a pick (6.12+: DELAY_ZERO) ------------
# K blocks before the newidle pull of P (its lag against a queue without P),
# D is drained by the idle pick (lag 0): both come back eligible, and their
# next wakeup, after a short run with E queued, is a placement
for f in delayed-pull-lag delayed-drain-lag; do
	"$SR" replay -q -o "$TMP/$f.db" -t 1x2x1 --kernel 6.18.44 "$S/$f.txt" 2>/dev/null
done
same "a task that blocked before a newidle pull is not held as delayed at its next sleep" \
	"620 placement" \
	"$(sqlite3 "$TMP/delayed-pull-lag.db" "SELECT tid || ' ' || coalesce(skip, 'placement')
		FROM decision WHERE kind = 'wakeup' AND ts = 10010500000")"
same "a delayed task the idle pick drained leaves with lag 0: not held at its next sleep" \
	"600 placement" \
	"$(sqlite3 "$TMP/delayed-drain-lag.db" "SELECT tid || ' ' || coalesce(skip, 'placement')
		FROM decision WHERE kind = 'wakeup' AND ts = 10010500000")"
"$SR" replay -q --fidelity -t 1x2x1 --kernel 6.18.44 "$S/delayed-drain-lag.txt" >"$TMP/fdl" 2>/dev/null
ok "... D's first sleep is the one kept queued" \
	grep -q '^delayed: *1 sleeps kept queued (dequeue_entity(), 6.12+: not eligible), 0 woken still queued' "$TMP/fdl"

# --- a wakeup that moves a task held as delayed: select_task_rq() ran -------
dm="$S/delayed-moved.txt"
"$SR" replay -q -o "$TMP/dm.db" -t 2x2x1 --kernel 6.12.117 "$dm" 2>/dev/null
same "without the probe, a moved wakeup of a task held as delayed is a placement, counted" \
	"0|1|1 delayed 1" \
	"$(sqlite3 "$TMP/dm.db" "SELECT (SELECT prev_cpu || '|' || actual_cpu || '|' ||
		(SELECT count(*) FROM evaluation e WHERE e.decision_id = d.decision_id)
		FROM decision d WHERE tid = 600 AND kind = 'wakeup' AND skip IS NULL) || ' ' ||
		kind || ' ' || n FROM reconciled WHERE kind = 'delayed'")"

# --- the CPU that emits sched_wakeup: wake list or ttwu_runnable() ----------
tw="$S/ttwu-wakelist.txt"
for k in 6.12.117 6.1; do
	"$SR" replay -q -o "$TMP/tw-$k.db" -t 2x2x1 --kernel "$k" "$tw" 2>/dev/null
done
tw_of() {	# each wakeup of A and C: tid, placement or skip, evaluations; reconciled.delayed
	sqlite3 "$1" "SELECT group_concat(tid || ' ' || coalesce(skip, 'placement') || ' ' ||
		(SELECT count(*) FROM evaluation e WHERE e.decision_id = d.decision_id), ', ') ||
		' | ' || (SELECT n FROM reconciled WHERE kind = 'delayed') FROM
		(SELECT * FROM decision WHERE kind = 'wakeup' AND tid IN (600, 800) ORDER BY ts) d"
}
same "6.12: A held as delayed, its sched_wakeup from CPU 0's wake list: a placement; C's from the waker's CPU across the LLCs: ttwu_runnable(), no placement; both counted" \
	"800 placement 1, 600 placement 1, 800 runnable 0 | 2" "$(tw_of "$TMP/tw-6.12.117.db")"
same "6.1: the same wakeups (no delayed dequeue: nothing counted)" \
	"800 placement 1, 600 placement 1, 800 runnable 0 | 0" "$(tw_of "$TMP/tw-6.1.db")"
"$SR" replay -q -o "$TMP/tw-p.db" -t 2x2x1 --kernel 6.12.117 "$S/delayed-dequeue.txt" 2>/dev/null
same "a wakeup within one LLC from the waker's CPU proves nothing: delayed-dequeue's C is a placement" \
	"" "$(sqlite3 "$TMP/tw-p.db" "SELECT skip FROM decision WHERE kind = 'wakeup' AND tid = 800 AND ts > 10005000000")"

# --- wake_affine_idle()'s sync test (6.12.37 / 6.16), with the probe ---------
ds="$S/delayed-sync.txt"
for k in 6.12.117 6.12.0; do
	"$SR" replay -q -o "$TMP/ds-$k.db" -t 2x2x1 --kernel "$k" "$ds" 2>/dev/null
done
sync_of() {
	sqlite3 "$1" "SELECT e.cpu || ' ' || (e.reason LIKE '%sync, waker alone%') FROM evaluation_v e
		JOIN decision USING (decision_id) WHERE kind = 'wakeup' AND tid = 620"
}
same "6.12.117: the waker is alone but for a delayed task: this_cpu, as the kernel" "0 1" \
	"$(sync_of "$TMP/ds-6.12.117.db")"
same "6.12.0: the delayed task counts in nr_running: not alone" "1 0" "$(sync_of "$TMP/ds-6.12.0.db")"
same "the unprobed wakeup of the delayed A agrees with the engine (runnable, no contradiction)" \
	"runnable 0" \
	"$(sqlite3 "$TMP/ds-6.12.117.db" "SELECT (SELECT skip FROM decision WHERE tid = 600 AND kind = 'wakeup') || ' ' || n FROM reconciled WHERE kind = 'delayed'")"

# --- a balance and a delayed task (can_migrate_task, 6.12 and 6.14+) --------
dp="$S/delayed-pull.txt"
for k in 6.12.117 6.18 6.1; do
	"$SR" replay -q -o "$TMP/dp-$k.db" -t 2x2x1 --kernel "$k" "$dp" 2>/dev/null
done
pull_of() {
	sqlite3 "$1" "SELECT coalesce(e.cpu, 'none') FROM evaluation_v e JOIN decision USING (decision_id)
		WHERE kind = 'balance_periodic'"
}
same "6.12: the idle balance pulls the delayed A, as the kernel did" 1 "$(pull_of "$TMP/dp-6.12.117.db")"
same "6.18: a migrate_task balance leaves the delayed A" none "$(pull_of "$TMP/dp-6.18.db")"
same "6.1: A has left the queue: nothing to pull" none "$(pull_of "$TMP/dp-6.1.db")"

# --- a newly idle pull of a delayed task (6.12.117 pick_next_task_fair()) ---
# W's CPU pulls the delayed A, then goes idle: the pick dequeued A
for f in delayed-newidle-pull delayed-newidle-pull-dequeued; do
	for k in 6.12.117 6.1; do
		"$SR" replay -q -o "$TMP/$f-$k.db" -t 2x2x1 --kernel "$k" "$S/$f.txt" 2>/dev/null
	done
done
lb_of() {
	sqlite3 "$1" "SELECT kind || ' ' || coalesce(e.cpu, 'none') || ' ' ||
		(e.reason LIKE '%pull 600 from 0 to 1') || ' ' ||
		(SELECT n FROM reconciled WHERE kind = 'delayed') FROM evaluation_v e
		JOIN decision USING (decision_id) WHERE kind LIKE 'balance%' AND e.patch IS NULL"
}
same "6.12: a pull of the delayed A before an idle switch is newly idle, A pulled from CPU 0" \
	"balance_newidle 1 1 0" "$(lb_of "$TMP/delayed-newidle-pull-6.12.117.db")"
same "6.12: A taken as dequeued: the pull puts it back as delayed (reconciled), then pulls it" \
	"balance_newidle 1 1 1" "$(lb_of "$TMP/delayed-newidle-pull-dequeued-6.12.117.db")"
same "6.1: no delayed dequeue: a periodic pull, A not on CPU 0's queue" \
	"balance_periodic none 0 0" "$(lb_of "$TMP/delayed-newidle-pull-dequeued-6.1.db")"

# --- the pulled delayed task's load moves with it (detach_task/attach_task) --
cpu1_load() {	# CPU 1's load at the balance and at A's wakeup (CPU 1 idle between)
	sqlite3 "$1" "SELECT group_concat(c.load, ' ') FROM (SELECT c.load FROM decision d
		JOIN cpu_state c USING (decision_id) WHERE c.cpu = 1 AND d.kind IN
		('balance_periodic', 'wakeup') AND d.ts >= 10006000000 ORDER BY d.ts) c"
}
rises() { set -- $1; [ "$#" = 2 ] && [ "$2" -gt "$1" ] && echo rises || echo "$*"; }
"$SR" replay -q -o "$TMP/dl.db" --snapshots all -t 2x2x1 --kernel 6.12.117 "$dp" 2>/dev/null
same "6.12: the idle CPU 1's load rises after it pulls the delayed A: A's averages joined it" \
	rises "$(rises "$(cpu1_load "$TMP/dl.db")")"
sed 's/10.004000: sched_switch: prev_comm=A/10.000200: sched_switch: prev_comm=A/' "$dp" \
	>"$TMP/dp-early.txt"
"$SR" replay -q -o "$TMP/dle.db" --snapshots all -t 2x2x1 --kernel 6.12.117 "$TMP/dp-early.txt" \
	2>/dev/null
same "A taken as dequeued at its sleep: the pull proves it was delayed (reconciled), its load moves" \
	"rises delayed 1" "$(rises "$(cpu1_load "$TMP/dle.db")") $(sqlite3 "$TMP/dle.db" \
	"SELECT kind || ' ' || n FROM reconciled WHERE kind = 'delayed'")"

# --- a probed wakeup of a delayed task leaves a dead task's removal pending --
dd="$S/delayed-dead-removal.txt"
sed 's/prev_state=X ==> next_comm=C/prev_state=S ==> next_comm=C/' "$dd" >"$TMP/dd-sleep.txt"
cpu0_at_a() {
	"$SR" replay -q -o "$TMP/dd.db" -f --snapshots all -t 2x2x1 --kernel 6.12.117 "$1" 2>/dev/null
	sqlite3 "$TMP/dd.db" "SELECT c.load || ' ' || (SELECT n FROM reconciled WHERE kind = 'delayed')
		FROM decision d JOIN cpu_state c USING (decision_id) WHERE d.tid = 600 AND
		d.kind = 'wakeup' AND c.cpu = 0"
}
same "the select_rq hit for the delayed A: CPU 0 still holds the dead B's load, as if B slept" \
	"$(cpu0_at_a "$TMP/dd-sleep.txt")" "$(cpu0_at_a "$dd")"

test_done
