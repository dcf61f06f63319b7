#!/bin/bash
# Load balancing (issue 5): the balance decision points, the surrogate and
# the three load-balance pairs.  Scenario traces built from each seed's own
# text (tests/fixtures/scenario/, tracefs text with the recorder's task
# facts as trace_marker lines) give exact divergences; the real traces show
# that no pair changes a decision its seed does not touch.
. "$(dirname "$0")/test-lib.sh"

command -v sqlite3 >/dev/null || skip_all "sqlite3 not installed (make deps)"

S="$FIX/scenario"
q() { sqlite3 "$1" "$2"; }

"$SR" replay --list-patches >"$TMP/list"
for p in "kthread-per-cpu 000" "nohz-first 002" "newidle-bail 003"; do
	set -- $p
	ok "--list-patches: $1 (seed $2)" sh -c "grep -A1 '^$1 ' '$TMP/list' | grep -q '^ *seed $2; '"
done
ok "--list-patches: balance pairs are evaluated at load-balance decisions" \
	sh -c "[ \$(grep -c 'evaluated at load-balance decisions' '$TMP/list') -eq 3 ]"

# ---- seed 000: a pinned kernel thread without the per-CPU flag -----------------
db="$TMP/000.db"
"$SR" replay -q -o "$db" -t 2x2x1 -p kthread-per-cpu "$S/000-kthread-pinned.txt" 2>"$TMP/e"
same "000: replays" 0 $?
same "000: balance decisions by kind" "balance_newidle 2
newidle 1" "$(q "$db" "SELECT kind, count(*) FROM decision WHERE kind NOT IN ('wakeup','fork') GROUP BY kind ORDER BY kind" | tr '|' ' ')"
same "000: patch_summary (kind decisions divergent original_exact patched_exact)" \
"balance_newidle 2 2 2 1
balance_nohz 0 0 0 0
balance_periodic 0 0 0 0
newidle 1 0 0 0" \
	"$(q "$db" "SELECT kind, decisions, divergent, original_exact, patched_exact FROM patch_summary WHERE patch = 'kthread-per-cpu' ORDER BY kind" | tr '|' ' ')"
same "000: the first pull: both sides pull hog2 0 -> 1, as the kernel did" "1 1 1 1 1" \
	"$(q "$db" "SELECT original_cpu, patched_cpu, actual_cpu, original_matches, patched_matches FROM divergence WHERE tid = 102" | tr '|' ' ')"
same "000: the original sets SOME_PINNED and the parent group's imbalance hint" 1 \
	"$(q "$db" "SELECT count(*) FROM divergence WHERE tid = 102 AND original_reason LIKE '%some pinned: parent group imbalanced%' AND original_reason NOT LIKE '%per-cpu kthread%'")"
same "000: the patched side skips kt-child silently" 1 \
	"$(q "$db" "SELECT count(*) FROM divergence WHERE tid = 102 AND patched_reason LIKE '%per-cpu kthread 45 skipped%' AND patched_reason NOT LIKE '%some pinned%'")"
same "000: later, the hint pulls hog4 across the nodes in the original only" "2 - 2 1 0" \
	"$(q "$db" "SELECT original_cpu, coalesce(patched_cpu, '-'), actual_cpu, original_matches, patched_matches FROM divergence WHERE tid = 104" | tr '|' ' ')"
same "000: ... because the original reads node 0 as imbalanced" 1 \
	"$(q "$db" "SELECT count(*) FROM divergence WHERE tid = 104 AND original_reason LIKE '%NUMA: busiest cpu 0 (nr 2, imbalanced)%' AND patched_reason LIKE '%NUMA: balanced%'")"
same "000: the base model (mainline: the original predicate) is the original side" 0 \
	"$(q "$db" "SELECT count(*) FROM evaluation_v b JOIN evaluation_v o USING (decision_id) WHERE b.variant = 'base' AND o.variant = 'original' AND (b.cpu IS NOT o.cpu OR b.reason IS NOT o.reason)")"
same "000: the kernel thread fact came from the trace_marker line" 0 \
	"$(q "$db" "SELECT count(*) FROM decision WHERE kind LIKE 'balance%' AND inferred LIKE '%kthread%'")"

# ---- seed 002: the ILB balances itself first and abandons the pass ----------------
db="$TMP/002.db"
"$SR" replay -q -o "$db" -t "$S/4node.topo" -p nohz-first "$S/002-nohz-idle-cpus.txt" 2>"$TMP/e"
same "002: replays" 0 $?
same "002: one nohz pass and one newly idle switch" "balance_nohz 1
newidle 1" "$(q "$db" "SELECT kind, count(*) FROM decision WHERE kind NOT IN ('wakeup','fork') GROUP BY kind ORDER BY kind" | tr '|' ' ')"
same "002: patch_summary" \
"balance_newidle 0 0 0 0
balance_nohz 1 1 0 1
balance_periodic 0 0 0 0
newidle 1 0 0 0" \
	"$(q "$db" "SELECT kind, decisions, divergent, original_exact, patched_exact FROM patch_summary WHERE patch = 'nohz-first' ORDER BY kind" | tr '|' ' ')"
same "002: original pulls to the ILB (2), patched to CPU 4 as the kernel did" "2 2 4 4 0 1" \
	"$(q "$db" "SELECT this_cpu, original_cpu, patched_cpu, actual_cpu, original_matches, patched_matches FROM divergence" | tr '|' ' ')"
same "002: the original abandons the nohz pass" 1 \
	"$(q "$db" "SELECT count(*) FROM divergence WHERE original_reason LIKE '%for 2 >%ilb pulled: nohz pass abandoned' AND patched_reason LIKE '%for 4 >%pull % from 0 to 4%'")"
same "002: both sides pull across nodes (divergence view, against the source CPU)" "1 1" \
	"$(q "$db" "SELECT original_cross_node, patched_cross_node FROM divergence" | tr '|' ' ')"
"$SR" replay -q -t "$S/4node.topo" -p nohz-first "$S/002-nohz-idle-cpus.txt" >"$TMP/f" 2>"$TMP/e"
ok "002: --fidelity prints the pair's balance_nohz row" \
	grep -Eq '^nohz-first +mainline +balance_nohz +1 +1 +100.0 +0.0 +100.0$' "$TMP/f"
ok "002: --fidelity counts the nohz pass" grep -q '^balance: .* 1 nohz passes' "$TMP/f"

# the ILB pulled for itself and has not switched yet when its nohz pass
# pulls for another CPU: its own pull stays a (periodic) balance decision
awk '/100.010000: sched_migrate_task/ {
	print "          <idle>-0       [002] d..2.    100.009000: sched_migrate_task: comm=loop3 pid=103 prio=120 orig_cpu=0 dest_cpu=2" }
     { print }' "$S/002-nohz-idle-cpus.txt" >"$TMP/002-self.txt"
db="$TMP/002-self.db"
"$SR" replay -q -o "$db" --snapshots all -t "$S/4node.topo" "$TMP/002-self.txt" 2>"$TMP/e"
same "002, own pull first: replays" 0 $?
same "002, own pull first: the pull and the pass are both decisions" \
	"0 newidle 2 - -|1 balance_periodic 2 0 2|2 balance_nohz 2 0 4" \
	"$(q "$db" "SELECT decision_id, kind, this_cpu, coalesce(prev_cpu, '-'), coalesce(actual_cpu, '-') FROM decision ORDER BY decision_id" | tr '|' ' ' | paste -sd'|')"
same "002, own pull first: the pull's snapshot is kept" 8 \
	"$(q "$db" "SELECT count(*) FROM cpu_state WHERE decision_id = 1")"

# ---- seed 003: newidle with a wakeup pending, every other CPU pinned -----------------
db="$TMP/003.db"
"$SR" replay -q -o "$db" -t 1x4x1 -p newidle-bail "$S/003-newidle-pinned.txt" 2>"$TMP/e"
same "003: replays" 0 $?
same "003: six newly idle switches, nothing pulled" "newidle 6" \
	"$(q "$db" "SELECT kind, count(*) FROM decision WHERE kind NOT IN ('wakeup','fork') GROUP BY kind" | tr '|' ' ')"
same "003: patch_summary" \
"balance_newidle 0 0 0 0
balance_nohz 0 0 0 0
balance_periodic 0 0 0 0
newidle 6 6 6 6" \
	"$(q "$db" "SELECT kind, decisions, divergent, original_exact, patched_exact FROM patch_summary WHERE patch = 'newidle-bail' ORDER BY kind" | tr '|' ' ')"
same "003: the original goes through both ALL_PINNED redos, never bails" 6 \
	"$(q "$db" "SELECT count(*) FROM divergence WHERE original_reason LIKE '%busiest cpu 2%all pinned, redo%busiest cpu 3%all pinned, redo%' AND original_reason NOT LIKE '%bail%'")"
same "003: the patched side bails out at the first redo" 6 \
	"$(q "$db" "SELECT count(*) FROM divergence WHERE patched_reason LIKE '%busiest cpu 2%all pinned, redo > bail: ttwu_pending%' AND patched_reason NOT LIKE '%busiest cpu 3%'")"
same "003: the decisions alternate between ping's and pong's CPUs" "0 3
1 3" "$(q "$db" "SELECT this_cpu, count(*) FROM divergence GROUP BY this_cpu" | tr '|' ' ')"
"$SR" replay -q -o "$TMP/003v4.db" -m v4.15 -t 1x4x1 "$S/003-newidle-pinned.txt" 2>"$TMP/e"
same "003: v4.15 (before the patch) never bails" 0 \
	"$(q "$TMP/003v4.db" "SELECT count(*) FROM evaluation_v WHERE reason LIKE '%bail%'")"
same "003: mainline (the patch merged) bails at every one" 6 \
	"$(q "$db" "SELECT count(*) FROM evaluation_v WHERE variant = 'base' AND reason LIKE '%bail: ttwu_pending%'")"

# ---- what the trace proves against the engine's queues (reconcile.txt) -------------------
db="$TMP/rec.db"
"$SR" replay -q -o "$db" -t 2x2x1 "$S/reconcile.txt" 2>"$TMP/e"
same "reconcile: replays" 0 $?
same "reconcile: each fact contradicted the engine once (no delayed dequeue: 6.1)" \
	"newidle_pull 1|idle_switch 1|probe 1|switch 1|delayed 0" \
	"$(q "$db" "SELECT kind, n FROM reconciled ORDER BY rowid" | tr '|' ' ' | paste -sd'|')"
same "reconcile: the newidle pull is taken on an empty queue: B pulled from CPU 1, as the kernel did" \
	"0 620 1 0 newidle > MC: busiest cpu 1 (nr 2, has spare) > pull 620 from 1 to 0" \
	"$(q "$db" "SELECT d.this_cpu, d.tid, d.prev_cpu, e.cpu, e.reason FROM decision d JOIN evaluation_v e USING (decision_id) WHERE d.kind = 'balance_newidle'" | tr '|' ' ')"
same "reconcile: CPU 2 going idle is a newly idle decision (D was not queued there)" "2 650" \
	"$(q "$db" "SELECT this_cpu, tid FROM decision WHERE kind = 'newidle'" | tr '|' ' ')"
same "reconcile: the probed wakee was asleep: not on CPU 3's queue at its wakeup" "690 1" \
	"$(q "$db" "SELECT tid, prev_nr FROM decision WHERE kind = 'wakeup' AND skip IS NULL" | tr '|' ' ')"
ok "reconcile: replay --fidelity prints the counts" sh -c \
	"'$SR' replay -q --fidelity -t 2x2x1 '$S/reconcile.txt' | grep -q '^reconciled: 1 newidle_pull, 1 idle_switch, 1 probe, 1 switch'"

# ---- a newly idle pull whose puller's switch in was lost (newidle-pull-switch-lost.txt) ----
# the task that emits the pull ran on the CPU: the decision's kind
# (balance_newidle) and the path the models evaluated it on agree
# lb_base DB: the balance decision's kind, task, source, and the base model's CPU and path
lb_base() {
	q "$1" "SELECT d.kind, d.tid, d.prev_cpu, e.cpu, e.reason FROM decision d JOIN evaluation_v e
		USING (decision_id) WHERE d.kind LIKE 'balance%' AND e.variant = 'base'" | tr '|' ' '
}
"$SR" replay -q -o "$TMP/nps.db" -t 1x2x1 "$S/newidle-pull-switch-lost.txt" 2>"$TMP/e"
same "newidle pull, switch in lost: replays" 0 $?
same "newidle pull, switch in lost: evaluated as newly idle (CPU_NEWLY_IDLE), not periodic idle" \
	"balance_newidle 620 0 1 newidle > MC: busiest cpu 0 (nr 2, has spare) > pull 620 from 0 to 1" \
	"$(lb_base "$TMP/nps.db")"

# the same pull with W blocking only 1 ms later: still newly idle, the pull
# being in W's context (no periodic balance runs there: SCHED_SOFTIRQ's
# events carry the 's' flag); from a softirq ('s'), periodic, and the tick's
# idle type is not in the trace: the CPU the engine held idle keeps CPU_IDLE.
# B and A have run 4 ms: CPU 0 has spare capacity by util and runnable
# (group_classify(), 6.1 and 6.12), and with W on CPU 1 one task more is
# nothing to spread (calculate_imbalance(): (2 - 1) >> 1), so the periodic
# balance the model evaluates pulls nothing
sed 's/10\.004022: sched_switch/10.005022: sched_switch/' \
	"$S/newidle-pull-switch-lost.txt" >"$TMP/nps-r.txt"
"$SR" replay -q -o "$TMP/nps-r.db" -t 1x2x1 "$TMP/nps-r.txt" 2>"$TMP/e"
same "newidle pull, switch in lost, W blocks 1 ms later: newly idle still" \
	"balance_newidle 620 0 1 newidle > MC: busiest cpu 0 (nr 2, has spare) > pull 620 from 0 to 1" \
	"$(lb_base "$TMP/nps-r.db")"
sed 's/^\( *W-700 *\[001\] \)d\.\.2\.\( *10\.004020: sched_migrate_task\)/\1d.s2.\2/' \
	"$TMP/nps-r.txt" >"$TMP/nps-s.txt"
"$SR" replay -q -o "$TMP/nps-s.db" -t 1x2x1 "$TMP/nps-s.txt" 2>"$TMP/e"
same "the same pull from a softirq, W blocks 1 ms later: periodic, idle" \
	"balance_periodic 620 0  periodic, idle > MC: balanced > no pull" \
	"$(lb_base "$TMP/nps-s.db")"

# the reverse: the idle task emits the pull (the idle CPU's rebalance_domains(),
# CPU_IDLE) and W, its switch in lost, blocks to the task pulled: periodic
sed 's/^ *W-700 *\(\[001\] d\.\.2\. *10\.004020: sched_migrate_task\)/          <idle>-0       \1/' \
	"$S/newidle-pull-switch-lost.txt" >"$TMP/nps-i.txt"
"$SR" replay -q -o "$TMP/nps-i.db" -t 1x2x1 "$TMP/nps-i.txt" 2>"$TMP/e"
same "pull by the idle task, W blocks to it: balance_periodic, periodic, idle" \
	"balance_periodic 620 0  periodic, idle > MC: balanced > no pull" \
	"$(lb_base "$TMP/nps-i.db")"

# ---- real traces: every divergence on the path its patch changes -----------------------
pairs="-p kthread-per-cpu -p nohz-first -p newidle-bail -p wake-affine-equal"
for f in "$FIX"/tracedat/numa/*.dat "$FIX"/tracedat/succeed/live-6.18-*.dat; do
	n=$(basename "$f" .dat)
	topo=()
	[ -f "${f%.dat}.topo" ] && topo=(-t "${f%.dat}.topo")
	for m in mainline v4.15; do
		a="$TMP/$n-$m-pairs.db" b="$TMP/$n-$m-none.db"
		if ! "$SR" replay -q -o "$a" -m $m "${topo[@]}" $pairs "$f" 2>"$TMP/e" ||
		   ! "$SR" replay -q -o "$b" -m $m "${topo[@]}" "$f" 2>>"$TMP/e"; then
			fail "$n ($m): replays with the pairs" "$(cat "$TMP/e")"
			continue
		fi
		bad=$(q "$a" "SELECT count(*) FROM divergence WHERE
			(patch IN ('kthread-per-cpu', 'nohz-first', 'newidle-bail') AND kind IN ('wakeup', 'fork'))
			OR (patch = 'wake-affine-equal' AND (kind <> 'wakeup' OR (original_reason NOT LIKE '%weight:%' AND patched_reason NOT LIKE '%weight:%')))
			OR (patch = 'newidle-bail' AND (kind NOT IN ('newidle', 'balance_newidle') OR patched_reason NOT LIKE '%bail:%'))
			OR (patch = 'nohz-first' AND kind <> 'balance_nohz')
			OR (patch = 'kthread-per-cpu' AND original_reason NOT LIKE '%per-cpu kthread%' AND patched_reason NOT LIKE '%per-cpu kthread%'
			    AND original_reason NOT LIKE '%imbalanced%' AND patched_reason NOT LIKE '%imbalanced%')")
		same "$n ($m): every divergence lies on its patch's path" 0 "$bad"
		q "$a" "SELECT decision_id, kind, cpu, reason FROM evaluation_v JOIN decision USING (decision_id) WHERE variant = 'base' ORDER BY decision_id" >"$TMP/ea"
		q "$b" "SELECT decision_id, kind, cpu, reason FROM evaluation_v JOIN decision USING (decision_id) WHERE variant = 'base' ORDER BY decision_id" >"$TMP/eb"
		if cmp -s "$TMP/ea" "$TMP/eb" && [ -s "$TMP/ea" ]; then
			pass "$n ($m): the pairs change none of the base model's evaluations ($(wc -l <"$TMP/ea") rows)"
		else
			fail "$n ($m): the pairs change none of the base model's evaluations" "$(diff "$TMP/ea" "$TMP/eb" | head)"
		fi
		same "$n ($m): balance pairs keep no wakeup/fork evaluation" 0 \
			"$(q "$a" "SELECT count(*) FROM evaluation_v JOIN decision USING (decision_id) WHERE patch IN ('kthread-per-cpu', 'nohz-first', 'newidle-bail') AND kind IN ('wakeup', 'fork')")"
	done
done

# the database's balance fidelity rows agree with the decisions
db="$TMP/numa-6.12-forks-mainline-none.db"
same "fidelity: newidle n equals the newly idle decisions" \
	"$(q "$db" "SELECT count(*) FROM decision WHERE kind = 'newidle'")" \
	"$(q "$db" "SELECT n FROM fidelity JOIN side USING (side_id) WHERE kind = 'newidle' AND path IS NULL")"
same "fidelity: balance_periodic exact = pulls from and to the kernel's CPUs" \
	"$(q "$db" "SELECT count(*) FROM decision d JOIN evaluation_v e USING (decision_id) WHERE d.kind = 'balance_periodic' AND e.cpu = d.actual_cpu AND e.reason LIKE '% from ' || d.prev_cpu || ' to ' || d.actual_cpu || '%'")" \
	"$(q "$db" "SELECT exact FROM fidelity JOIN side USING (side_id) WHERE kind = 'balance_periodic' AND path IS NULL")"
# seed 003's reproducer run for real (the pinnedhogs load in the 6.1 guest):
# CPUs 1 and 3 overloaded with pinned busy loops, ping and pong pinned to
# CPUs 0 and 2: the newly idle balances find only pinned tasks at MC (ALL_PINNED);
# at NUMA the two nodes' PELT loads (the hogs' and the blocked task's) are
# within imbalance_pct, so few of them reach the ALL_PINNED redo there
# The recording's kernel (Debian 6.1.192) has NI_RANDOM, whose draw the
# trace does not show; the model's own balance pulls nothing here (only
# pinned tasks), so no draw is inferred (below); the balance path itself is
# checked as a 6.1 release before NI_RANDOM (6.1.100) would take it
ph="$FIX/tracedat/numa/numa-6.1-pinnedhogs"
"$SR" replay -q -o "$TMP/ph.db" -t "$ph.topo" --kernel 6.1.100 "$ph.dat" >/dev/null 2>&1
"$SR" replay -q -o "$TMP/ph-ni.db" -t "$ph.topo" "$ph.dat" >/dev/null 2>&1
ok "pinned hogs, as recorded (NI_RANDOM): nothing pulled at any newidle decision, no draw inferred" sh -c \
	"[ \"\$(sqlite3 '$TMP/ph-ni.db' \"SELECT count(*) > 600, sum(d.inferred LIKE '%ni_random%'), sum(e.cpu IS NOT NULL) FROM evaluation e JOIN decision d USING (decision_id) WHERE e.side_id = 1 AND d.kind = 'newidle'\")\" = '1|0|0' ]"
ok "pinned hogs: most newly idle balances find only pinned tasks" sh -c \
	"[ \$(sqlite3 '$TMP/ph.db' \"SELECT count(*) FROM evaluation_v e JOIN decision d USING (decision_id) WHERE d.kind = 'newidle' AND e.reason LIKE '%all pinned%'\") -gt 600 ]"
ok "pinned hogs: and pull nothing, as the kernel did, at 99% of them" sh -c \
	"[ \$(sqlite3 '$TMP/ph.db' \"SELECT 100 * sum(e.cpu IS d.actual_cpu) / count(*) FROM evaluation_v e JOIN decision d USING (decision_id) WHERE d.kind = 'newidle' AND e.reason LIKE '%all pinned%'\") -ge 99 ]"
# ---- inferred affinity (issue 11, item 3): pinned hogs without their masks ------------
ai="$S/affinity-inferred.txt"
nidle() { q "$1" "SELECT group_concat(coalesce(e.cpu, '-') || ':' || coalesce(d.inferred, ''), ' ') FROM (SELECT * FROM decision WHERE kind = 'newidle' ORDER BY ts) d JOIN evaluation e USING (decision_id)"; }
"$SR" replay -q -o "$TMP/ai-known.db" -t 1x4x1 "$ai" 2>"$TMP/e"
same "inferred affinity: the snapshot's masks: twelve newly idle switches, nothing pulled, nothing inferred" \
	"$(printf -- '-:topology %.0s' $(seq 12) | sed 's/ $//')" "$(nidle "$TMP/ai-known.db")"
"$SR" replay -q -o "$TMP/ai.db" -t 1x4x1 --no-affinity "$ai" 2>"$TMP/e"
same "inferred affinity: --no-affinity replays" 0 $?
same "inferred affinity: three refusals over a tick, then hog2 is pinned to CPU 2 (marked affinity)" \
	"0:topology 0:topology 0:topology $(printf -- '-:affinity,topology %.0s' $(seq 9) | sed 's/ $//')" \
	"$(nidle "$TMP/ai.db")"
same "inferred affinity: the refusals name hog2" 3 \
	"$(q "$TMP/ai.db" "SELECT count(*) FROM evaluation_v e JOIN decision d USING (decision_id) WHERE d.kind = 'newidle' AND e.reason LIKE '%pull 22 from 2 to 0'")"
# within a tick the refusals could be the newidle cost bail: no inference
sed '/100\.00[5-9]\|100\.0[1-9]/d' "$ai" >"$TMP/ai-short.txt"
"$SR" replay -q -o "$TMP/ai-short.db" -t 1x4x1 --no-affinity "$TMP/ai-short.txt" 2>"$TMP/e"
same "inferred affinity: two refusals 2 ms apart infer nothing" "0:topology 0:topology" \
	"$(nidle "$TMP/ai-short.db")"
# hog2 ran on CPU 0 once before it settled on CPU 2: CPU 0 stays allowed
sed '/meta end/a\
          <idle>-0       [000] d..2.   100.000050: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=hog2 next_pid=22 next_prio=120\
            hog2-22      [000] d..2.   100.000060: sched_switch: prev_comm=hog2 prev_pid=22 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120' \
	"$ai" >"$TMP/ai-seen.txt"
"$SR" replay -q -o "$TMP/ai-seen.db" -t 1x4x1 --no-affinity "$TMP/ai-seen.txt" 2>"$TMP/e"
same "inferred affinity: a task seen on the balancing CPU is never pinned off it" 0 \
	"$(q "$TMP/ai-seen.db" "SELECT count(*) FROM decision WHERE kind = 'newidle' AND inferred LIKE '%affinity%'")"

# with the balance probes the kernel's load_balance(CPU_NEWLY_IDLE) at the level
# shows the balance ran (the cost cutoff and NI_RANDOM's draw passed): one
# refusal pins (affinity-inferred-probed.txt)
aip="$S/affinity-inferred-probed.txt"
"$SR" replay -q -o "$TMP/aip-known.db" -t 1x4x1 "$aip" 2>"$TMP/e"
same "inferred affinity, probed: the snapshot's masks: twelve newly idle decisions, nothing pulled" \
	"$(printf -- '-:topology %.0s' $(seq 12) | sed 's/ $//')" "$(nidle "$TMP/aip-known.db")"
"$SR" replay -q -o "$TMP/aip.db" -t 1x4x1 --no-affinity "$aip" 2>"$TMP/e"
same "inferred affinity, probed: --no-affinity replays" 0 $?
same "inferred affinity, probed: one refusal at a level load_balance ran at pins hog2 to CPU 2" \
	"0:topology $(printf -- '-:affinity,topology %.0s' $(seq 11) | sed 's/ $//')" \
	"$(nidle "$TMP/aip.db")"
same "inferred affinity, probed: the refusal names hog2, the later balances find none movable" \
	"newidle > MC: busiest cpu 2 (nr 2, has spare) > pull 22 from 2 to 0
newidle > MC: busiest cpu 2 (nr 2, has spare) > none movable > no pull" \
	"$(q "$TMP/aip.db" "SELECT DISTINCT e.reason FROM evaluation_v e JOIN decision d USING (decision_id) WHERE d.kind = 'newidle' ORDER BY d.ts")"
"$SR" replay -q -o "$TMP/aip-off.db" -t 1x4x1 --no-affinity --no-balance-probes "$aip" 2>"$TMP/e"
same "inferred affinity, probed: --no-balance-probes needs three refusals over a tick again" \
	"0:topology 0:topology 0:topology $(printf -- '-:affinity,topology %.0s' $(seq 9) | sed 's/ $//')" \
	"$(nidle "$TMP/aip-off.db")"
# hog2 ran on CPU 3 once before it settled on CPU 2: not pinned to one CPU, but
# the refusal by a balance the kernel ran still shows CPU 0 outside its mask
sed '/meta end/a\
          <idle>-0       [003] d..2.   100.000050: sched_switch: prev_comm=swapper/3 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=hog2 next_pid=22 next_prio=120\
            hog2-22      [003] d..2.   100.000060: sched_switch: prev_comm=hog2 prev_pid=22 prev_prio=120 prev_state=S ==> next_comm=swapper/3 next_pid=0 next_prio=120' \
	"$aip" >"$TMP/aip-seen.txt"
"$SR" replay -q -o "$TMP/aip-seen.db" -t 1x4x1 --no-affinity "$TMP/aip-seen.txt" 2>"$TMP/e"
same "inferred affinity, probed: a task seen on two CPUs has the refusing CPU denied" \
	"0:topology $(printf -- '-:affinity,topology %.0s' $(seq 11) | sed 's/ $//')" \
	"$(nidle "$TMP/aip-seen.db")"
"$SR" replay -q -o "$TMP/aip-seen-off.db" -t 1x4x1 --no-affinity --no-balance-probes "$TMP/aip-seen.txt" 2>"$TMP/e"
same "inferred affinity, probed: ... and without the probes nothing: CPU 0 pulls hog2 at all twelve" \
	"12 0" "$(q "$TMP/aip-seen-off.db" "SELECT sum(e.reason LIKE '%pull 22 from 2 to 0'), sum(d.inferred LIKE '%affinity%') FROM evaluation_v e JOIN decision d USING (decision_id) WHERE d.kind = 'newidle'" | tr '|' ' ')"

# ---- the balance probes: a newly idle switch without load_balance is no decision
nb="$S/newidle-balance-probes.txt"
"$SR" replay -q -o "$TMP/nb.db" -t 1x2x1 "$nb" 2>"$TMP/e"
same "balance probes: replays" 0 $?
same "balance probes: the switch without load_balance is skip no_balance, the other a decision" \
	"100002005000 no_balance
100005005000 -" \
	"$(q "$TMP/nb.db" "SELECT ts, coalesce(skip, '-') FROM decision WHERE kind = 'newidle' ORDER BY ts" | tr '|' ' ')"
same "balance probes: the skipped one has no evaluation" 0 \
	"$(q "$TMP/nb.db" "SELECT count(*) FROM evaluation e JOIN decision d USING (decision_id) WHERE d.skip = 'no_balance'")"
same "balance probes: counted in the skipped table" 1 \
	"$(q "$TMP/nb.db" "SELECT n FROM skipped WHERE reason = 'no_balance'")"
"$SR" replay -t 1x2x1 "$nb" >"$TMP/nb.out" 2>&1
ok "balance probes: --fidelity counts them and the levels tried" grep -q \
	'^newidle: *balance probes: 1 newly idle switches without a load_balance, not decisions; load_balance at sd->level: 2: 1 (of 1 without a pull)$' \
	"$TMP/nb.out"
"$SR" replay -q -o "$TMP/nb-off.db" -t 1x2x1 --no-balance-probes "$nb" 2>"$TMP/e"
same "--no-balance-probes: both switches are newidle decisions" "2 0" \
	"$(q "$TMP/nb-off.db" "SELECT count(*), count(skip) FROM decision WHERE kind = 'newidle'" | tr '|' ' ')"
# the probes only where the trace has them: without balance_rq lines nothing is skipped
grep -v ' balance_rq: ' "$nb" >"$TMP/nb-none.txt"
"$SR" replay -q -o "$TMP/nb-none.db" -t 1x2x1 "$TMP/nb-none.txt" 2>"$TMP/e"
same "a trace without balance_rq events: no no_balance skips" "2 0" \
	"$(q "$TMP/nb-none.db" "SELECT count(*), count(skip) FROM decision WHERE kind = 'newidle'" | tr '|' ' ')"

# the probes' levels: a newly idle balance is evaluated at the domains the
# kernel's load_balance(CPU_NEWLY_IDLE) calls show (NI_RANDOM's draw and the
# cost cutoff of sched_balance_newidle() are in no trace), sd->level mapped to
# the domains by rank once the trace has shown as many levels as domains
pl="$S/newidle-probe-levels.txt"
"$SR" replay -q -o "$TMP/pl.db" -t 2x2x1 "$pl" 2>"$TMP/e"
same "probe levels: replays" 0 $?
plq="SELECT d.kind, coalesce(d.prev_cpu, '-'), coalesce(e.cpu, '-'), r.text FROM decision d
	JOIN evaluation e ON e.decision_id = d.decision_id JOIN side s ON s.side_id = e.side_id
	JOIN reason r ON r.reason_id = e.reason_id
	WHERE s.variant = 'base' AND d.kind IN ('newidle', 'balance_newidle') ORDER BY d.ts"
same "probe levels: MC passed over; NUMA balanced (no pull), then NUMA pulls from CPU 2" \
	"newidle - - newidle > MC: not tried (probe) > NUMA: balanced > no pull
balance_newidle 2 0 newidle > MC: not tried (probe) > NUMA: busiest cpu 2 (nr 2, overloaded) > pull 24 from 2 to 0" \
	"$(q "$TMP/pl.db" "$plq" | tr '|' ' ')"
same "probe levels: --fidelity has both exact" "2" \
	"$(q "$TMP/pl.db" "SELECT sum(exact) FROM fidelity WHERE side_id = 1 AND kind IN ('newidle', 'balance_newidle') AND path IS NULL")"
"$SR" replay -q -o "$TMP/pl-off.db" -t 2x2x1 --no-balance-probes "$pl" 2>"$TMP/e"
same "probe levels: --no-balance-probes tries MC and pulls from CPU 1 both times" "newidle - 0
balance_newidle 2 0" "$(q "$TMP/pl-off.db" "$plq" | cut -d'|' -f1-3 | tr '|' ' ')"
same "probe levels: ... and pulls hog1 there" "2" \
	"$(q "$TMP/pl-off.db" "SELECT count(*) FROM ($plq) WHERE text LIKE '%MC: busiest cpu 1%pull 21 from 1 to 0'")"
# lb_rqstat (find_busiest_group()'s entry, record.sh --lb-probes --input-probes):
# the balance decision that follows on the CPU reads every CPU as the kernel
# had it; here the first balance's event says CPU 2 ran three tasks
sed '/100.002001: balance_rq:/a\
          worker-10      [000] d..2.    100.002002: lb_rqstat: (find_busiest_group+0x0/0x5e0) c0load=300 c0util=200 c0run=10 c0ue=0 c0nr=0 c0ttwu=0 c0scan=1 c1load=2000 c1util=1024 c1run=2000 c1ue=0 c1nr=2 c1ttwu=0 c1scan=1 c2load=3000 c2util=1024 c2run=3000 c2ue=0 c2nr=3 c2ttwu=0 c2scan=1 c3load=1000 c3util=1000 c3run=1000 c3ue=0 c3nr=1 c3ttwu=0 c3scan=1' \
	"$pl" >"$TMP/pl-lbk.txt"
"$SR" replay -q -o "$TMP/pl-lbk.db" -t 2x2x1 "$TMP/pl-lbk.txt" 2>"$TMP/e"
same "lb_rqstat: the first balance reads CPU 2 with three tasks; the second, 3 ms on, the engine's state" \
	"newidle - - newidle > MC: not tried (probe) > NUMA: busiest cpu 2 (nr 3, overloaded) > none movable > no pull
balance_newidle 2 0 newidle > MC: not tried (probe) > NUMA: busiest cpu 2 (nr 2, overloaded) > pull 24 from 2 to 0" \
	"$(q "$TMP/pl-lbk.db" "$plq" | tr '|' ' ')"
"$SR" replay -t 2x2x1 "$TMP/pl-lbk.txt" >"$TMP/pl-lbk.out" 2>&1
ok "lb_rqstat: --fidelity counts the one evaluation that read it" grep -q \
	"^inputs: *lb_rqstat: 1 balance evaluations read every CPU's load, util and queue as the kernel's find_busiest_group() had them" \
	"$TMP/pl-lbk.out"
"$SR" replay -q -o "$TMP/pl-lbk-off.db" -t 2x2x1 --no-input-probes "$TMP/pl-lbk.txt" 2>"$TMP/e"
same "lb_rqstat: --no-input-probes reads the engine's state (node 1 balanced)" \
	"$(q "$TMP/pl.db" "$plq")" "$(q "$TMP/pl-lbk-off.db" "$plq")"
# lb_task (can_migrate_task()'s entry, record.sh --lb-probes): the first after
# a balance_rq shows the kernel's migration type; --fidelity compares the
# first model's at the balance decision that follows (node 1 overloaded,
# node 0 with spare capacity: migrate_util, mt 1)
lbt() {	# lbt MT OUT: newidle-probe-levels with an lb_task of migration type MT at the NUMA pull
	sed "/100.005001: balance_rq:/a\\
          worker-10      [000] d..2.    100.005001: lb_task: (can_migrate_task+0x0/0x200) pid=24 util=0 ue=0 src=2 dst=0 idle=2 imb=900 flags=0 loop=1 fbq=2 mt=$1 level=5 nbf=0" \
		"$pl" >"$2"
}
lbt 1 "$TMP/pl-lbt.txt"
"$SR" replay -t 2x2x1 "$TMP/pl-lbt.txt" >"$TMP/pl-lbt.out" 2>&1
ok "lb_task: the kernel's migrate_util is the model's" grep -q \
	"^inputs: *lb_task: the first model's migration type against the kernel's at 1 balances: 1 agree (the kernel's load 0 of 0, util 1 of 1, task 0 of 0)$" \
	"$TMP/pl-lbt.out"
lbt 2 "$TMP/pl-lbt2.txt"
"$SR" replay -t 2x2x1 --no-input-probes "$TMP/pl-lbt2.txt" >"$TMP/pl-lbt2.out" 2>&1
ok "lb_task: a kernel's migrate_task is counted as not agreeing, with --no-input-probes too" grep -q \
	"^inputs: *lb_task: .* at 1 balances: 0 agree (the kernel's load 0 of 0, util 0 of 0, task 0 of 1)$" \
	"$TMP/pl-lbt2.out"
same "lb_task: no decision changes" "$(q "$TMP/pl.db" "$plq")" \
	"$("$SR" replay -q -o "$TMP/pl-lbt.db" -t 2x2x1 "$TMP/pl-lbt.txt" 2>&1 && q "$TMP/pl-lbt.db" "$plq")"
sed 's/ mt=1 level=5/ level=5/' "$TMP/pl-lbt.txt" >"$TMP/pl-lbt-bad.txt"
"$SR" replay -q -o "$TMP/pl-lbt-bad.db" -t 2x2x1 "$TMP/pl-lbt-bad.txt" >"$TMP/pl-lbt-bad.out" 2>&1
same "lb_task without mt: exit 1, no database, one line naming the file, the line and the field" \
	"1 0 1" "$? $([ -e "$TMP/pl-lbt-bad.db" ] && echo 1 || echo 0) $(grep -c "pl-lbt-bad.txt': line [0-9]*: malformed lb_task: missing mt" "$TMP/pl-lbt-bad.out")"
# the same on a trace.dat: a 6.1 guest recording of the spread load by
# trace-cmd with record.sh --balance-probes --input-probes --lb-probes
I=$FIX/tracedat/inputs/numa-6.1-tc-spread-lb
"$SR" replay -t "$I.topo" "$I.dat" >"$TMP/lbt-dat.out" 2>&1
same "lb_task, trace.dat: replays" 0 $?
ok "lb_task, trace.dat: the migration types of its 26 compared balances all agree" grep -q \
	"^inputs: *lb_task: the first model's migration type against the kernel's at 26 balances: 26 agree (the kernel's load 2 of 2, util 19 of 19, task 5 of 5)$" \
	"$TMP/lbt-dat.out"
"$SR" replay -m v4.15 -t "$I.topo" "$I.dat" >"$TMP/lbt-v4.out" 2>&1
ok "lb_task, trace.dat: the v4.15 model, counting tasks, takes migrate_task where the kernel filled util" \
	grep -q "^inputs: *lb_task: .* (the kernel.s load 2 of 2, util 0 of 18, task 5 of 5)$" "$TMP/lbt-v4.out"
# lb_task's nbf is the kernel's sd->nr_balance_failed: migrate_load sized by
# load at a periodic balance too (balance-lb-task-nbf.txt: big2's load 1991
# fits the imbalance 1479 only shifted by nbf 1)
nb="$S/balance-lb-task-nbf.txt"
nbq="SELECT d.kind, d.tid, coalesce(e.cpu, '-'), e.reason FROM decision d JOIN evaluation_v e
	USING (decision_id) WHERE d.kind LIKE 'balance%' AND e.variant = 'base'"
"$SR" replay -q -o "$TMP/nbf.db" -t 1x2x1 "$nb" 2>"$TMP/e"
same "lb_task nbf 1: the periodic balance pulls big2, as the kernel did" \
	"balance_periodic 13 0 periodic, busy > MC: busiest cpu 1 (nr 2, overloaded) > pull 13 from 1 to 0" \
	"$(q "$TMP/nbf.db" "$nbq" | tr '|' ' ')"
sed 's/ nbf=1$/ nbf=0/' "$nb" >"$TMP/nbf0.txt"
"$SR" replay -q -o "$TMP/nbf0.db" -t 1x2x1 "$TMP/nbf0.txt" 2>"$TMP/e"
same "lb_task nbf 0: big2's load does not fit: none movable" \
	"balance_periodic 13 - periodic, busy > MC: busiest cpu 1 (nr 2, overloaded) > none movable > no pull" \
	"$(q "$TMP/nbf0.db" "$nbq" | tr '|' ' ')"
"$SR" replay -q -o "$TMP/nbf0-off.db" -t 1x2x1 --no-input-probes "$TMP/nbf0.txt" 2>"$TMP/e"
same "lb_task nbf, --no-input-probes: not read, the periodic surrogate takes one task" \
	"balance_periodic 13 0 periodic, busy > MC: busiest cpu 1 (nr 2, overloaded) > pull 13 from 1 to 0" \
	"$(q "$TMP/nbf0-off.db" "$nbq" | tr '|' ' ')"
# one sd->level seen where CPUs have two domains: which is which is not known
grep -v ' cpu=3 idle=0 level=' "$pl" >"$TMP/pl-one.txt"
"$SR" replay -q -o "$TMP/pl-one.db" -t 2x2x1 "$TMP/pl-one.txt" 2>"$TMP/e"
same "probe levels: with one sd->level seen every level is tried" "0" \
	"$(q "$TMP/pl-one.db" "SELECT count(*) FROM ($plq) WHERE text LIKE '%not tried%'")"

# periodic: the balance probes show the levels rebalance_domains() found due
# two newly idle pulls before one switch: the balance_rq before each names it
np="$S/newidle-pull-twice-probes.txt"
npq="SELECT kind, tid FROM decision WHERE kind LIKE 'balance%' ORDER BY ts"
"$SR" replay -q -o "$TMP/np.db" -t 1x2x1 "$np" 2>"$TMP/e"
same "pull twice: replays" 0 $?
same "pull twice: the balance_rq idle=2 before each pull makes both newly idle" \
	"balance_newidle 22
balance_newidle 23" "$(q "$TMP/np.db" "$npq" | tr '|' ' ')"
"$SR" replay -q -o "$TMP/np-off.db" -t 1x2x1 --no-balance-probes "$np" 2>"$TMP/e"
same "pull twice: without the probes, two pulls in the blocking task's context are newly idle too" \
	"balance_newidle 22
balance_newidle 23" "$(q "$TMP/np-off.db" "$npq" | tr '|' ' ')"
# the same two pulls from softirq context, nothing between them: one periodic
# pass detaching two tasks
sed -e '/ newidle\| balance_rq/d' -e '/sched_migrate_task/s/ d\.\.2\. / d.s2. /' "$np" >"$TMP/np-softirq.txt"
"$SR" replay -q -o "$TMP/np-s.db" -t 1x2x1 --no-balance-probes "$TMP/np-softirq.txt" 2>"$TMP/e"
same "pull twice: in softirq context, without the probes, one periodic balance" \
	"balance_periodic 22" "$(q "$TMP/np-s.db" "$npq" | tr '|' ' ')"

pp="$S/periodic-probe-levels.txt"
ppq="SELECT coalesce(d.prev_cpu, '-'), coalesce(e.cpu, '-'), r.text FROM decision d
	JOIN evaluation e ON e.decision_id = d.decision_id JOIN side s ON s.side_id = e.side_id
	JOIN reason r ON r.reason_id = e.reason_id
	WHERE s.variant = 'base' AND d.kind = 'balance_periodic' ORDER BY d.ts"
"$SR" replay -q -o "$TMP/pp.db" -t 2x2x1 "$pp" 2>"$TMP/e"
same "periodic probe levels: replays" 0 $?
same "periodic probe levels: MC not due, NUMA pulls from CPU 2" \
	"2 0 periodic, idle > MC: not due (probe) > NUMA: busiest cpu 2 (nr 2, overloaded) > pull 23 from 2 to 0" \
	"$(q "$TMP/pp.db" "$ppq" | tr '|' ' ')"
same "periodic probe levels: --fidelity has it exact" "1" \
	"$(q "$TMP/pp.db" "SELECT sum(exact) FROM fidelity WHERE side_id = 1 AND kind = 'balance_periodic' AND path IS NULL")"
"$SR" replay -q -o "$TMP/pp-off.db" -t 2x2x1 --no-balance-probes "$pp" 2>"$TMP/e"
same "periodic probe levels: --no-balance-probes tries MC and pulls from CPU 1" \
	"0 periodic, idle > MC: busiest cpu 1 (nr 2, overloaded) > pull 21 from 1 to 0" \
	"$(q "$TMP/pp-off.db" "SELECT sum(exact) FROM fidelity WHERE side_id = 1 AND kind = 'balance_periodic' AND path IS NULL") $(q "$TMP/pp-off.db" "$ppq" | cut -d'|' -f3)"

# NI_RANDOM without the balance probes: the draw is in no trace, but the
# trace shows the kernel pulled nothing at a switch without a pull; where
# the model's balance of a level would pull, the draw's skip is its only
# reading (the first switch too, at a chance of one half, which the
# likelier-side rule before this balanced and got wrong); a pull shows the
# draw let the balance run
nr="$S/newidle-ni-random.txt"
nrq="SELECT d.kind, coalesce(e.cpu, '-'), coalesce(d.inferred, ''), r.text FROM decision d
	JOIN evaluation e ON e.decision_id = d.decision_id AND e.side_id = 1
	JOIN reason r ON r.reason_id = e.reason_id WHERE d.kind LIKE '%newidle' ORDER BY d.ts"
"$SR" replay -q -o "$TMP/nr.db" -t 1x2x1 --kernel 6.12.117 "$nr" 2>"$TMP/e"
same "NI_RANDOM: replays" 0 $?
same "NI_RANDOM: MC would pull at each switch without a pull: passed over as the draw; the pull is evaluated" \
	"newidle - topology,ni_random newidle > MC: NI_RANDOM skip (would pull 21 from 1) > no pull
newidle - topology,ni_random newidle > MC: NI_RANDOM skip (would pull 21 from 1) > no pull
newidle - topology,ni_random newidle > MC: NI_RANDOM skip (would pull 21 from 1) > no pull
balance_newidle 0 topology newidle > MC: busiest cpu 1 (nr 2, overloaded) > pull 21 from 1 to 0" \
	"$(q "$TMP/nr.db" "$nrq" | tr '|' ' ')"
"$SR" replay -q -o "$TMP/nr61.db" -t 1x2x1 --kernel 6.1.100 "$nr" 2>"$TMP/e"
same "NI_RANDOM: a 6.1 release before it (6.1.100) balances at every switch" "0 0 0 0" \
	"$(q "$TMP/nr61.db" "$nrq" | cut -d'|' -f2 | tr '\n' ' ' | sed 's/ $//')"
"$SR" replay -t 1x2x1 --kernel 6.12.117 "$nr" >"$TMP/nr.out" 2>&1
ok "NI_RANDOM: --fidelity counts the switches and names what to record" grep -q \
	'^newidle: *NI_RANDOM: at 3 of 3 newly idle switches without a pull .*record --balance-probes' "$TMP/nr.out"
ok "NI_RANDOM: --fidelity gives the check per domain: passed over 3, pulled as the kernel 1" grep -q \
	'^newidle: *NI_RANDOM check, per domain .*: MC 3 / 1 (25%)$' "$TMP/nr.out"
same "NI_RANDOM: with the probes' levels the draw is known: no estimate" "0" \
	"$(q "$TMP/pl.db" "SELECT count(*) FROM decision WHERE inferred LIKE '%ni_random%'")"
# NI_RANDOM at a pull from the other node (newidle-ni-random-pull.txt): the
# pull shows NUMA's draw let it balance and that MC pulled nothing, where the
# model's MC balance would pull: passed over as the draw, so the model pulls
# at NUMA from CPU 2 as the kernel did, not from its sibling
nrp="$S/newidle-ni-random-pull.txt"
"$SR" replay -q -o "$TMP/nrp.db" -t 2x2x1 --kernel 6.12.117 "$nrp" 2>"$TMP/e"
same "NI_RANDOM: a pull at NUMA passes MC over as the draw and pulls where the kernel did" \
	"balance_newidle 0 topology,ni_random newidle > MC: NI_RANDOM skip (would pull 21 from 1) > NUMA: busiest cpu 2 (nr 2, overloaded) > pull 23 from 2 to 0" \
	"$(q "$TMP/nrp.db" "$nrq" | tr '|' ' ' | grep '^balance_newidle')"
"$SR" replay -t 2x2x1 --kernel 6.12.117 "$nrp" >"$TMP/nrp.out" 2>&1
ok "NI_RANDOM: --fidelity counts the pulls too" grep -q \
	'^newidle: *NI_RANDOM: at 2 of 2 newly idle switches without a pull and at 1 of 1 newly idle pulls' "$TMP/nrp.out"
"$SR" replay -q -o "$TMP/nrp61.db" -t 2x2x1 --kernel 6.1.100 "$nrp" 2>"$TMP/e"
same "NI_RANDOM: before it (6.1.100) the pull balances at MC first" \
	"balance_newidle 0 topology newidle > MC: busiest cpu 1 (nr 2, overloaded) > pull 21 from 1 to 0" \
	"$(q "$TMP/nrp61.db" "$nrq" | tr '|' ' ' | grep '^balance_newidle')"

# two nice-0 tasks on each CPU, CPU 0's long running, CPU 1's just woken after
# a long sleep: by count (v4.15) both CPUs are as loaded, and by util and
# runnable (group_classify(), 6.1 and 6.12) CPU 1 has spare capacity and as
# many tasks as CPU 0, nothing to spread (calculate_imbalance()): neither
# model pulls, where a fully busy CPU 1 would compare PELT load
"$SR" replay -q -o "$TMP/bpl.db" -t 1x2x1 "$S/balance-pelt-load.txt" 2>"$TMP/e"
same "PELT load: replays" 0 $?
same "PELT load: CPU 1 has spare capacity by util: balanced" \
	"balance_periodic 0 1 periodic, busy > MC: balanced > no pull" \
	"$(q "$TMP/bpl.db" "SELECT d.kind, d.prev_cpu, d.actual_cpu, r.text FROM decision d
		JOIN evaluation e ON e.decision_id = d.decision_id AND e.side_id = 1
		JOIN reason r ON r.reason_id = e.reason_id WHERE d.kind LIKE 'balance%'" | tr '|' ' ')"
"$SR" replay -q -o "$TMP/bpl4.db" -m v4.15 -t 1x2x1 "$S/balance-pelt-load.txt" 2>"$TMP/e"
same "PELT load: the v4.15 model compares queued weights: balanced" \
	"periodic, busy > MC: balanced > no pull" \
	"$(q "$TMP/bpl4.db" "SELECT r.text FROM decision d JOIN evaluation e ON e.decision_id = d.decision_id
		AND e.side_id = 1 JOIN reason r ON r.reason_id = e.reason_id WHERE d.kind LIKE 'balance%'")"

# one periodic balance that moves two tasks (detach_tasks() until the
# imbalance is met, 6.1 and 6.12): the second migration, right after the
# first on the same CPU, is the same balance, not a decision of its own
mp="$S/balance-multi-pull.txt"
"$SR" replay -q -o "$TMP/mp.db" -t 1x2x1 "$mp" 2>"$TMP/e"
same "multi-task pull: replays" 0 $?
same "multi-task pull: one balance decision, periodic, the first pull's" \
	"balance_periodic 0 1 23" \
	"$(q "$TMP/mp.db" "SELECT kind, prev_cpu, actual_cpu, tid FROM decision
		WHERE kind LIKE 'balance%' OR kind = 'newidle'" | tr '|' ' ')"
same "multi-task pull: both migrations are the periodic balance's" \
	"23 balance_periodic
24 balance_periodic" "$(q "$TMP/mp.db" "SELECT tid, class FROM migration ORDER BY ts" | tr '|' ' ')"
"$SR" replay -t 1x2x1 "$mp" >"$TMP/mp.out" 2>&1
ok "multi-task pull: --fidelity counts the task moved by the same balance" grep -q \
	'^balance: .*(0 newidle, 1 periodic; 1 more tasks moved by the same balances)' "$TMP/mp.out"
# the lb_task probe of record.sh --lb-probes (in detach_tasks(), before each
# migration) between the two migrations: still one balance
sed '/100.041004: sched_migrate_task/i\
          worker-10      [001] ..s1.   100.041002: lb_task: (detach_tasks+0x0/0x3b0) pid=24 util=1000 ue=0 src=0 dst=1 idle=0 imb=1 mt=2 level=2 nbf=0' \
	"$mp" >"$TMP/mp-other.txt"
"$SR" replay -q -o "$TMP/mp-other.db" -t 1x2x1 "$TMP/mp-other.txt" 2>"$TMP/e"
same "multi-task pull: an lb_task between the migrations leaves them one balance" \
	"$(q "$TMP/mp.db" "SELECT kind, prev_cpu, actual_cpu, tid FROM decision")" \
	"$(q "$TMP/mp-other.db" "SELECT kind, prev_cpu, actual_cpu, tid FROM decision")"
# ... and an event the engine does not read (an irq)
sed '/100.041004: sched_migrate_task/i\
          worker-10      [001] d.h1.   100.041003: irq_handler_entry: irq=11 name=eth0' \
	"$mp" >"$TMP/mp-irq.txt"
"$SR" replay -q -o "$TMP/mp-irq.db" -t 1x2x1 "$TMP/mp-irq.txt" 2>"$TMP/e"
same "multi-task pull: an irq between the migrations leaves them one balance" \
	"$(q "$TMP/mp.db" "SELECT kind, prev_cpu, actual_cpu, tid FROM decision")" \
	"$(q "$TMP/mp-irq.db" "SELECT kind, prev_cpu, actual_cpu, tid FROM decision")"

# find_busiest_group()'s prefer_sibling (6.1, 6.12): a local core with spare
# capacity pulls from a sibling core that runs two tasks more although that
# core is not overloaded and has one idle CPU
ps="$S/balance-prefer-sibling.txt"
"$SR" replay -q -o "$TMP/ps.db" -t 1x2x2 "$ps" 2>"$TMP/e"
same "prefer_sibling: replays" 0 $?
same "prefer_sibling: the newly idle CPU 0 pulls from CPU 1 at MC" \
	"balance_newidle 1 0 0 newidle > SMT: no busiest > MC: busiest cpu 1 (nr 2, has spare) > pull 21 from 1 to 0" \
	"$(q "$TMP/ps.db" "SELECT d.kind, d.prev_cpu, d.actual_cpu, e.cpu, r.text FROM decision d
		JOIN evaluation e ON e.decision_id = d.decision_id AND e.side_id = 1
		JOIN reason r ON r.reason_id = e.reason_id WHERE d.kind LIKE '%newidle'" | tr '|' ' ')"

# a real recording (Debian 6.1.192 in the NUMA guest, trace-cmd with the balance
# probes defined by init.sh): each newidle decision is skipped exactly where
# trace-cmd report shows no load_balance(CPU_NEWLY_IDLE) on its CPU since the
# CPU's previous switch (switches sharing a timestamp on a CPU left out)
export LC_ALL=C
nbr="$FIX/tracedat/numa/numa-6.1-messaging-balance"
if command -v trace-cmd >/dev/null; then
	"$SR" replay -q -o "$TMP/nbr.db" -t "$nbr.topo" "$nbr.dat" 2>"$TMP/e"
	same "recorded balance probes: replays" 0 $?
	trace-cmd report -t "$nbr.dat" 2>/dev/null | awk -f "$TEST_DIR/lib/newidle-tried.awk" |
		awk '{ sub(/^0+/, "", $1); k = $1 "_" $2; n[k]++; v[k] = $3 } END { for (k in n) if (n[k] == 1) print k, v[k] }' |
		sort >"$TMP/nbr.ref"
	q "$TMP/nbr.db" "SELECT ts || '_' || this_cpu, skip IS NULL FROM decision WHERE kind = 'newidle'" |
		tr '|' ' ' | sort >"$TMP/nbr.our"
	join "$TMP/nbr.ref" "$TMP/nbr.our" >"$TMP/nbr.join"
	ok "recorded balance probes: both kinds of newly idle switch are there" \
		sh -c "grep -q ' 0 0\$' '$TMP/nbr.join' && grep -q ' 1 1\$' '$TMP/nbr.join'"
	same "recorded balance probes: skipped exactly where the kernel called no load_balance" "" \
		"$(awk '$2 != $3' "$TMP/nbr.join")"
	trace-cmd report -t "$nbr.dat" 2>/dev/null | awk -f "$TEST_DIR/lib/newidle-tried.awk" |
		awk '{ sub(/^0+/, "", $1); print $1 "_" $2 }' | sort -u >"$TMP/nbr.all"
	same "recorded balance probes: every newidle decision is at a blocking switch of the trace" "" \
		"$(cut -d' ' -f1 "$TMP/nbr.our" | join -v1 - "$TMP/nbr.all")"
else
	skip "recorded balance probes" "trace-cmd not installed"
fi

test_done
