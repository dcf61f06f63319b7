#!/bin/bash
# Fork placement (schedreplay-models(7) §3.2, §5.7): the engine's state at a
# fork and find_idlest_group() / sched_balance_find_dst_group(), on
# constructed scenarios (tests/fixtures/scenario/fork-*.txt) whose comments
# give the kernel rule and the numbers.
. "$(dirname "$0")/test-lib.sh"

command -v sqlite3 >/dev/null || skip_all "sqlite3 not installed (make deps)"

S="$FIX/scenario"

# forks DB: "tid:model cpu" of every fork, in tid order
forks() {
	sqlite3 "$1" "SELECT d.tid || ':' || e.cpu FROM decision d JOIN evaluation_v e
		USING (decision_id) WHERE d.kind = 'fork' AND e.model = 'mainline'
		ORDER BY d.tid" | paste -sd' '
}

# later SCENARIO TOPOLOGY NAME FORK NEWFORK WAKE NEWWAKE: SCENARIO with its
# fork's sched_process_fork and sched_wakeup_new moved from FORK and WAKE to
# NEWFORK and NEWWAKE, replayed into $TMP/NAME.db
later() {
	sed "s/ ${4//./\\.}: sched_process_fork/ $5: sched_process_fork/;
		s/ ${6//./\\.}: sched_wakeup_new/ $7: sched_wakeup_new/" "$S/$1" >"$TMP/$3.txt"
	"$SR" replay -q -o "$TMP/$3.db" -t "$2" "$TMP/$3.txt" 2>/dev/null
}

# --- post_init_entity_util_avg(): a waiting child's util counts ------------
ok "init util: replay" "$SR" replay -q -o "$TMP/iu.db" -t 1x2x1 "$S/fork-init-util.txt"
same "a child that has not run yet makes its CPU fully busy for the next fork" \
	"401:1 402:0" "$(forks "$TMP/iu.db")"
same "the second fork stays local" "fork > MC: local" \
	"$(sqlite3 "$TMP/iu.db" "SELECT e.reason FROM decision d JOIN evaluation_v e
		USING (decision_id) WHERE d.tid = 402 AND e.model = 'mainline'")"

# --- remove_entity_load_avg(): a dead task's load waits for the next update
ok "dead load: replay" "$SR" replay -q -o "$TMP/dl.db" -t 1x2x1 "$S/fork-dead-load.txt"
same "the CPU a task just died on still carries its load at the next fork" \
	"402:1" "$(forks "$TMP/dl.db")"
# the same fork 5 ms later: a tick has updated CPU 0 (1/HZ at 250 Hz)
later fork-dead-load.txt 1x2x1 dll 1.001000 1.005000 1.001001 1.005001
same "a tick later the load is gone and the child stays local" \
	"402:0" "$(forks "$TMP/dll.db")"
# the fork's probe: prevload (the kernel's cpu_load() of CPU 0) near P's
# load alone shows the kernel's update has taken D's load off (a tick the
# trace does not show); the engine applies the removal, CPU 0 has spare
# capacity again and the child stays, as select_rq_ret says
sed 's/^\( *P-400 *\[000\] d\.\.3\. *1\.001001: \)sched_wakeup_new: comm=P pid=402 prio=120 target_cpu=001/\1select_rq: (select_task_rq_fair+0x0\/0x1c0) prev_cpu=0 wake_flags=0x4 pid=402 prevload=1030\
\1select_rq_ret: (wake_up_new_task+0x1a5\/0x3c0 <- select_task_rq_fair) cpu=0\
\1sched_wakeup_new: comm=P pid=402 prio=120 target_cpu=000/' \
	"$S/fork-dead-load.txt" >"$TMP/dl-probe.txt"
same "the variant carries the fork's probe" "1" "$(grep -c 'prevload=1030' "$TMP/dl-probe.txt")"
"$SR" replay -q -o "$TMP/dlp.db" -t 1x2x1 "$TMP/dl-probe.txt" 2>/dev/null
same "a probe's prevload that shows the removal done settles it" \
	"402:0 0" "$(forks "$TMP/dlp.db") $(sqlite3 "$TMP/dlp.db" "SELECT kernel_cpu FROM decision WHERE tid = 402")"
same "and it is counted as reconciled by the probe" "1" \
	"$(sqlite3 "$TMP/dlp.db" "SELECT n FROM reconciled WHERE kind = 'probe'")"

# --- when the fork is placed: select_task_rq() between select_rq and its ret
ok "probe window: replay" "$SR" replay -q -o "$TMP/pw.db" -t 1x2x1 "$S/fork-probe-window.txt"
same "a fork is read as of its select_rq_ret, not its late sched_wakeup_new" \
	"401:1" "$(forks "$TMP/pw.db")"
same "the decision opens at sched_process_fork and closes at sched_wakeup_new" \
	"1010000000 1011500000 1" "$(sqlite3 "$TMP/pw.db" "SELECT ts, done_ts, kernel_cpu FROM
		decision WHERE kind = 'fork'" | tr '|' ' ')"
ok "probe window, no probes: replay" "$SR" replay -q -o "$TMP/pwn.db" --no-probes -t 1x2x1 \
	"$S/fork-probe-window.txt"
same "without the probes it is read at sched_wakeup_new" "401:0 1011500000" \
	"$(forks "$TMP/pwn.db") $(sqlite3 "$TMP/pwn.db" "SELECT ts FROM decision WHERE kind = 'fork'")"

# --- the slow path reads other CPUs' averages as last updated -------------
ok "stale signal: replay" "$SR" replay -q -o "$TMP/ss.db" -t 1x3x1 "$S/fork-stale-signal.txt"
same "two idle CPUs compared as of half a tick before the fork, not as of their idle switches" \
	"401:1" "$(forks "$TMP/ss.db")"
# the same fork 40 ms later: CPU 1 idle for 65 ms, CPU 2 for 50 ms, both
# read as of half a tick before it, where CPU 1 (about 240) still reads
# below CPU 2 (about 255)
later fork-stale-signal.txt 1x3x1 ssl 1.140000 1.180000 1.140001 1.180001
same "idle CPUs' blocked averages are read half a tick old, later too" \
	"401:1" "$(forks "$TMP/ssl.db")"

# --- util_est_update() by generation: 6.1 decays a waiting task's estimate -
for k in 6.1 6.12.117; do
	ok "util_est $k: replay" "$SR" replay -q -o "$TMP/ue-$k.db" -t 1x2x1 --kernel "$k" \
		"$S/fork-util-est-gen.txt"
done
same "6.12: a task that waited keeps its estimate, its CPU is fully busy" \
	"401:1" "$(forks "$TMP/ue-6.12.117.db")"
same "6.1: the estimate decayed, both CPUs have spare capacity, the child stays" \
	"401:0" "$(forks "$TMP/ue-6.1.db")"

# --- the sleep's util_est sample, redone from the wakeup probe's signal ---
ok "util_est probe: replay" "$SR" replay -q -o "$TMP/up.db" -t 1x2x1 "$S/fork-util-est-probe.txt"
same "the probe's util at wakeup is the sample: CPU 0 fully busy, the child moves" \
	"401:1" "$(forks "$TMP/up.db")"

# --- a wakeup probe's prevload leaves a dead task's removal pending -------
ok "removed probe: replay" "$SR" replay -q -o "$TMP/rp.db" -t 1x2x1 "$S/fork-removed-probe.txt"
same "CPU 0 still carries the dead task's util for the kernel: the child moves" \
	"401:1" "$(forks "$TMP/rp.db")"

# --- a task woken elsewhere leaves its averages on its old CPU for a while -
ok "wakeup leaves load: replay" "$SR" replay -q -o "$TMP/wl.db" -t 1x3x1 \
	"$S/fork-wakeup-leaves-load.txt"
same "the old CPU still carries the woken task's averages: the child stays" \
	"401:0" "$(forks "$TMP/wl.db")"
# 5 ms later CPU 1, running R, has had a tick: W's averages are gone
later fork-wakeup-leaves-load.txt 1x3x1 wll 1.102000 1.106000 1.102005 1.106005
same "a tick later CPU 1 has spare capacity and the child goes there" \
	"401:1" "$(forks "$TMP/wll.db")"

# --- an exec's probe: the running child's PELT signal ---------------------
ok "exec probe: replay" "$SR" replay -q -o "$TMP/ep.db" -t 1x2x1 "$S/fork-exec-probe.txt"
same "the child's util from its exec's probe: both CPUs fully busy, C2 stays" \
	"401:1 402:0" "$(forks "$TMP/ep.db")"

# --- a tick the trace does not show (fork_inputs_as_read(), §3.4) ----------
ok "tick unseen: replay" "$SR" replay -q -o "$TMP/tu.db" -t 1x2x1 "$S/fork-tick-unseen.txt"
same "eight probes showed the 1/HZ rule's removals still on: the slow path reads CPU 1 with them, the child stays" \
	"700:0" "$(forks "$TMP/tu.db")"
# the same probes with prevloads near the load without the dead task: gone
sed 's/ prevload=1550$/ prevload=800/; s/ prevload=1690$/ prevload=800/' "$S/fork-tick-unseen.txt" >"$TMP/tg.txt"
same "the variant's probes all say gone" "8" "$(grep -c 'wake_flags=0x8 pid=60[1-8] .* prevload=800$' "$TMP/tg.txt")"
"$SR" replay -q -o "$TMP/tg.db" -t 1x2x1 "$TMP/tg.txt" 2>/dev/null
same "probes that showed them gone: the 1/HZ rule stands, the child goes to CPU 1" \
	"700:1" "$(forks "$TMP/tg.db")"
# seven probes that told: too few, the 1/HZ rule stands
sed '/ pid=608 / s/ prevload=1690$//' "$S/fork-tick-unseen.txt" >"$TMP/t7.txt"
same "the variant has seven probes with prevload" "7" "$(grep -c 'wake_flags=0x8 pid=60[1-8] .* prevload=' "$TMP/t7.txt")"
"$SR" replay -q -o "$TMP/t7.db" -t 1x2x1 "$TMP/t7.txt" 2>/dev/null
same "seven probes are too few: the child goes to CPU 1" "700:1" "$(forks "$TMP/t7.db")"

# --- a probe shows the tick had not come: the removal is pending again ----
# wakes DB TID: the mainline CPU of TID's evaluated wakeup
wakes() {
	sqlite3 "$1" "SELECT e.cpu FROM decision d JOIN evaluation_v e USING (decision_id)
		WHERE d.kind = 'wakeup' AND d.skip IS NULL AND d.tid = $2 AND e.model = 'mainline'"
}
ok "tick held: replay" "$SR" replay -q -o "$TMP/th.db" -t 1x3x1 "$S/tick-held-repending.txt"
same "E's enqueue takes D's load off CPU 1: W is pulled to its waker's CPU" "1" "$(wakes "$TMP/th.db" 660)"
# the probe says the tick came (prevload near the load without D): the same
sed 's/ prevload=7100$/ prevload=1000/' "$S/tick-held-repending.txt" >"$TMP/tg2.txt"
same "the variant's probe says gone" "1" "$(grep -c 'pid=650 .* prevload=1000$' "$TMP/tg2.txt")"
"$SR" replay -q -o "$TMP/tg2.db" -t 1x3x1 "$TMP/tg2.txt" 2>/dev/null
same "a removal the probe shows gone is not taken off twice: W is pulled" "1" "$(wakes "$TMP/tg2.db" 660)"

# --- a placement decided closer to its threshold than the signals' error --
# inferred DB TID: the inferred column of TID's evaluated wakeup
inferred() {
	sqlite3 "$1" "SELECT inferred FROM decision WHERE kind = 'wakeup' AND skip IS NULL AND tid = $2"
}
case ",$(inferred "$TMP/th.db" 660)," in
*,near,*) fail "W's wake_affine_weight (about 1000 against 3121 * 108 %) is marked near" ;;
*) pass "W's wake_affine_weight (about 1000 against 3121 * 108 %) is not marked near" ;;
esac
# CPU 0's load from W's probe 900: 959 * 100 against 900 * 108, 1.3 % apart
sed 's/ pid=660 load=2 util=2 runnable=2 prevload=3121$/ pid=660 load=2 util=2 runnable=2 prevload=900/' \
	"$S/tick-held-repending.txt" >"$TMP/near.txt"
same "the variant's probe gives CPU 0's load as 900" "1" "$(grep -c 'pid=660 .* prevload=900$' "$TMP/near.txt")"
"$SR" replay -q -o "$TMP/near.db" -t 1x3x1 "$TMP/near.txt" 2>/dev/null
case ",$(inferred "$TMP/near.db" 660)," in
*,near,*) pass "effective loads 1.3 % apart: W's wakeup is marked near" ;;
*) fail "effective loads 1.3 % apart: W's wakeup is marked near" ;;
esac
same "--json counts it for the wakeups' total" '"near": 1, "near_exact_pct": 100.00}' \
	"$("$SR" replay --json -t 1x3x1 "$TMP/near.txt" 2>/dev/null | sed -n 's/.*"kind": "wakeup", "reason": null.*\("near": [0-9]*, "near_exact_pct": [0-9.]*}\).*/\1/p')"
"$SR" replay --fidelity -t 1x3x1 "$TMP/near.txt" >"$TMP/near.fid" 2>/dev/null
ok "--fidelity prints the near line under the wakeups" \
	grep -q "^    near  *1  *100.0%   of them near a threshold (inferred 'near'); the other 2: 100.0%" "$TMP/near.fid"

# --- attach_entity_load_avg(): a child's decay window is its CPU's ---------
# A fork storm (tests/lib/fork-storm.awk): W0 on CPU 0 runs 0.1 ms, forks a
# child that runs 0.8 ms and exits, 300 ms long; Q (nice 19: load about 14)
# runs on CPU 1.  A child attached to CPU 0's cfs_rq takes its
# last_update_time and period_contrib (6.1, 6.12, 6.18), so the period
# boundaries that fall in its life recompute its averages, and its removal
# at death takes its running time off CPU 0 again: CPU 0's util settles near
# 440 (group_has_spare) and every child stays.  With a window of its own from
# its fork, a child never crosses a boundary in 0.8 ms: its removal takes only
# its initial util, CPU 0 keeps its running time (util near 970,
# group_fully_busy) and its avg_load (near 1460) sends the children to CPU 1.
awk -v groups=0 -v nw=1 -v qprio=139 -v life=800 -v wrun=100 -v dur=300 \
	-f "$TEST_DIR/lib/fork-storm.awk" >"$TMP/storm.txt"
ok "fork storm: replay" "$SR" replay -q -o "$TMP/st.db" -t 1x2x1 "$TMP/storm.txt"
same "the storm has its 332 forks" "332" \
	"$(sqlite3 "$TMP/st.db" "SELECT count(*) FROM decision WHERE kind = 'fork' AND skip IS NULL")"
same "children aligned to CPU 0's decay window take their running time with them: the last 100 stay" \
	"0:100" "$(sqlite3 "$TMP/st.db" "SELECT e.cpu || ':' || count(*) FROM (SELECT decision_id FROM
		decision WHERE kind = 'fork' ORDER BY ts DESC LIMIT 100) JOIN evaluation_v e
		USING (decision_id) WHERE e.model = 'mainline' GROUP BY e.cpu")"

# --- an exiting task's CPU is updated before it wakes its parent -----------
# (sched_autogroup_exit_task() -> sched_move_task() in do_exit(), 6.1, 6.12)
ep="$S/exit-parent-wakeup.txt"
grep -v sched_process_exit "$ep" >"$TMP/ep-noexit.txt"
cpu0_load() {	# cpu0_load TRACE TID: CPU 0's load at TID's decision
	rm -f "$TMP/ep.db"
	"$SR" replay -q --snapshots all -o "$TMP/ep.db" -t 1x2x1 "$1" 2>/dev/null
	sqlite3 "$TMP/ep.db" "SELECT c.load FROM decision d JOIN cpu_state c USING (decision_id)
		WHERE d.tid = $2 AND c.cpu = 0"
}
lower() { [ -n "$1" ] && [ -n "$2" ] && [ "$1" -lt "$2" ] && echo lower || echo "$1 vs $2"; }
same "after E's exit event the dead D's load has left CPU 0: R's fork on CPU 1 reads less" \
	lower "$(lower "$(cpu0_load "$ep" 700)" "$(cpu0_load "$TMP/ep-noexit.txt" 700)")"
same "E preempted after its exit, F died meanwhile: F's load has left CPU 0 at P's wakeup" \
	lower "$(lower "$(cpu0_load "$ep" 400)" "$(cpu0_load "$TMP/ep-noexit.txt" 400)")"

# sgc->imbalance at the fork's NUMA level (group_classify(), 6.1): a 6.1
# guest recording of the kthreadpin load (schedreplay record
# --balance-probes, 2 nodes of 2 CPUs) whose CPU 1 balances CPU 0's pinned
# kthreads and hogs at MC level; node 0 carries the mark and the kernel
# keeps forks on node 1 where the model, without the marks, sent them to
# node 0's idle CPU 1 (fork_idle 81.4 %).  The engine keeps the marks at
# every load_balance() the balance probes show, and the slow path reads them.
K=$FIX/tracedat/marks/numa-6.1-sr-kthreadpin
exact_pct() {	# exact_pct KIND BASE [REPLAY-OPTION...]: KIND's exact % of the first model on BASE.dat
	local kind=$1 base=$2
	shift 2
	"$SR" replay --json -t "$base.topo" "$@" "$base.dat" 2>/dev/null | python3 -c '
import json, sys
print([e["exact_pct"] for e in json.load(sys.stdin)
       if e["model"] == "mainline" and e["kind"] == sys.argv[1] and e["reason"] is None][0])' "$kind"
}
pct_ok() {	# pct_ok LABEL VALUE TEST: ok when "VALUE TEST" holds, e.g. ">= 90"
	ok "$1" awk -v v="$2" "BEGIN { exit !(v $3) }"
}
if command -v python3 >/dev/null; then
	v=$(exact_pct fork_idle "$K")
	pct_ok "kthreadpin: forks stay off a node marked imbalanced, fork_idle $v % >= 90" "$v" ">= 90"
	# without them the marks come from the balances inferred from the tick
	# (81.4 % when the slow path read no marks there)
	v=$(exact_pct fork_idle "$K" --no-balance-probes)
	pct_ok "... and without the balance probes, from the balances inferred from the tick: $v % >= 85" \
		"$v" ">= 85"
fi

# the rqstat input probe (schedreplay record --input-probes): a 6.12 guest
# recording of the mix load whose fork placements read every CPU's load,
# util and queue as select_task_rq_fair() did; on the engine's own state
# (--no-input-probes) 6 of its 51 forks go elsewhere
I=$FIX/tracedat/inputs/numa-6.12-sr-mix
if command -v python3 >/dev/null; then
	v=$(exact_pct fork "$I")
	pct_ok "mix with rqstat: forks read the kernel's inputs, fork $v % >= 98" "$v" ">= 98"
	v=$(exact_pct fork "$I" --no-input-probes)
	pct_ok "... and on the engine's state: $v % < 95" "$v" "< 95"
fi
"$SR" replay -t "$I.topo" "$I.dat" >"$TMP/in.out" 2>&1
grep -q '^inputs: *rqstat: 236 placements' "$TMP/in.out"
same "... the summary counts the 236 placements that read rqstat" 0 $?
# and compares the engine's value of each of the 4 CPUs at each of them
# (those in the trace's warm-up left out, and counted)
kl=$(grep "^inputs: *the engine's against rqstat" "$TMP/in.out")
w=$(printf '%s\n' "$kl" | sed -n "s/.*; \([0-9]*\) in the trace's first 229 ms left out.*/\1/p")
same "... and the engine's inputs against the kernel's at (236 - warm-up) x 4 CPUs" \
	"$(( (236 - ${w:-236}) * 4 ))" \
	"$(printf '%s\n' "$kl" | grep -o '\(busy\|idle\) CPUs [0-9]*' | awk '{n += $3} END {print n}')"
same "... the warm-up's placements are some, not all" 1 "$([ "${w:-0}" -gt 0 ] && [ "$w" -lt 236 ] && echo 1)"
test_done
