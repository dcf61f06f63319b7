#!/bin/bash
# schedreplay simulate: the figures of every committed NUMA recording and
# its base-model simulation against their goldens (tests/update-golden.sh
# simulate), the JSON's shape, patch sides, --runs medians and spreads, the
# same output for the same seed, an exec's placement, the rt-app export
# (golden, and parsed by the real rt-app where it is installed), and the
# errors.
. "$(dirname "$0")/test-lib.sh"

N=$FIX/tracedat/numa
D=$FIX/demand
G=$FIX/golden/simulate

# one golden per recording: the recorded figures and the base model's
for f in "$N"/*.dat; do
	n=$(basename "$f" .dat)
	if "$SR" simulate --json -t "${f%.dat}.topo" "$f" >"$TMP/$n.json" 2>"$TMP/$n.err"; then
		if cmp -s "$G/$n.json" "$TMP/$n.json"; then
			pass "simulate $n: the golden figures"
		else
			fail "simulate $n: the golden figures" "$(diff "$G/$n.json" "$TMP/$n.json" | head -n 8)"
		fi
	else
		fail "simulate $n runs" "$(cat "$TMP/$n.err")"
	fi
done

# a closed loop whose wakeups are far from the recording's says so (the
# double wake's sleep of no length is a wakeup of the simulation: 3 against
# 2); one that kept them does not (the messaging load's readers block as
# often as recorded, their sleeps ended by the writers' progress)
"$SR" simulate "$D/double-wake.txt" >/dev/null 2>"$TMP/dw.err"
ok "simulate warns when a side's wakeups are far from the recording's" \
	grep -q "^schedreplay: warning: simulate: mainline had 3 wakeups against the recording's 2: its latency figures are over other wakeups" \
	"$TMP/dw.err"
ok "... and not when they are close" \
	sh -c "! grep -q 'wakeups against' '$TMP/numa-6.1-pingpong.err' '$TMP/numa-6.12-messaging.err'"

F=$N/numa-6.1-pingpong-aff
"$SR" simulate --json -t "$F.topo" -p newidle-bail -p wake-affine-equal --runs 3 --seed 5 \
	"$F.dat" >"$TMP/p.json" 2>"$TMP/p.err"
same "simulate with two pairs and --runs exits 0" 0 $?
"$SR" simulate --json -t "$F.topo" -p newidle-bail -p wake-affine-equal --runs 3 --seed 5 \
	"$F.dat" >"$TMP/p2.json" 2>&1
ok "the same seed gives the same output" cmp "$TMP/p.json" "$TMP/p2.json"
"$SR" simulate --json -t "$F.topo" --runs 3 --seed 6 "$F.dat" >"$TMP/s6.json" 2>&1
"$SR" simulate --json -t "$F.topo" --runs 3 --seed 5 "$F.dat" >"$TMP/s5.json" 2>&1
ok "another seed perturbs the runs otherwise" sh -c "! cmp -s '$TMP/s5.json' '$TMP/s6.json'"
if command -v python3 >/dev/null; then
	same "the JSON: recorded, runs, five sides with model, patch, variant, figures, spread" "ok" \
		"$(python3 - "$TMP/p.json" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
keys = ["makespan_s", "migrations", "migrations_cross_llc", "migrations_cross_node",
        "wakeup_latency_us", "busy_pct_per_node", "idle_while_waiting_s"]
def figures(o, side=True):
    assert all(k in o for k in keys), o.keys()
    assert not side or "divergent_decisions" in o
    assert set(o["wakeup_latency_us"]) == {"p50", "p99", "mean", "max"}
    assert len(o["busy_pct_per_node"]) == 2
figures(j["recorded"], False)
assert j["runs"] == 3 and j["fair"] == "cfs"
s = j["sides"]
assert [(x["model"], x["patch"], x["variant"]) for x in s] == [
    ("mainline", None, "base"), ("mainline", "newidle-bail", "original"),
    ("mainline", "newidle-bail", "patched"), ("mainline", "wake-affine-equal", "original"),
    ("mainline", "wake-affine-equal", "patched")], s
assert s[0]["divergent_decisions"] is None
assert all(isinstance(x["divergent_decisions"], int) for x in s[1:])
for x in s:
    figures(x)
    lo, hi = x["spread"]["min"], x["spread"]["max"]
    figures(lo)
    figures(hi)
    for k in ["makespan_s", "migrations", "idle_while_waiting_s"]:
        assert lo[k] <= x[k] <= hi[k], (k, lo[k], x[k], hi[k])
    for k in ["p50", "p99", "mean", "max"]:
        assert lo["wakeup_latency_us"][k] <= x["wakeup_latency_us"][k] <= hi["wakeup_latency_us"][k]
    assert lo["makespan_s"] < hi["makespan_s"], "perturbed runs differ"
print("ok")
EOF
)"
	same "one run has no spread" "ok" "$(python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
print("ok" if j["runs"] == 1 and "spread" not in j["sides"][0] else "spread")' "$TMP/numa-6.1-busyloops.json")"
else
	skip "the JSON's shape" "no python3 to parse it"
	skip "one run has no spread" "no python3 to parse it"
fi

"$SR" simulate -t "$F.topo" -p nohz-first "$F.dat" >"$TMP/t.txt" 2>&1
ok "the table has the recorded column and one per side" \
	grep -qE '^ +recorded +mainline +nohz-first:original +nohz-first:patched$' "$TMP/t.txt"
ok "the table counts a pair's divergent decisions" \
	grep -qE '^divergent_decisions +- +[0-9]+ +[0-9]+$' "$TMP/t.txt"
ok "the table names every figure" sh -c "for r in makespan_s migrations migrations_cross_llc \
	migrations_cross_node 'wakeup_latency_us p50' 'wakeup_latency_us p99' 'busy_pct node 1' \
	idle_while_waiting_s; do grep -q \"^\$r \" '$TMP/t.txt' || exit 1; done"

# the fair class's rules: by the recording's kernel, or --fair
ok "a 6.1 recording is simulated with CFS" grep -q '"fair": "cfs"' "$TMP/numa-6.1-forks.json"
ok "a 6.12 recording with EEVDF and its delayed dequeue" grep -q '"fair": "eevdf-delay"' "$TMP/numa-6.12-forks.json"
"$SR" simulate --json --fair eevdf -t "$N/numa-6.12-forks.topo" "$N/numa-6.12-forks.dat" >"$TMP/ee.json" 2>&1
ok "--fair eevdf: EEVDF without it, another run" sh -c "grep -q '\"fair\": \"eevdf\"' '$TMP/ee.json' && ! cmp -s '$TMP/ee.json' '$TMP/numa-6.12-forks.json'"
F12=$N/numa-6.12-forks
"$SR" simulate --json --fair cfs -t "$F12.topo" "$F12.dat" >"$TMP/cfs.json" 2>&1
ok "--fair cfs overrides it" grep -q '"fair": "cfs"' "$TMP/cfs.json"
ok "and the rules change the run" sh -c "! cmp -s '$TMP/cfs.json' '$TMP/numa-6.12-forks.json'"
"$SR" simulate --fair bfs "$D/pipe-pair.txt" >/dev/null 2>"$TMP/e"
same "--fair bfs: exit 2" 2 $?
ok "--fair bfs: the choices" grep -q "invalid --fair 'bfs' (cfs, eevdf or eevdf-delay)" "$TMP/e"
"$SR" simulate -t "$F.topo" "$F.dat" 2>&1 | head -n 1 >"$TMP/h.txt"
ok "the table's first line names the rules" grep -q ', HZ 250, cfs, ' "$TMP/h.txt"
ok "and the kernel generation" grep -q ', cfs, kernel 6\.1\.[^ ]*, ' "$TMP/h.txt"

# --kernel: the generation the simulated machine and the models follow, as replay's
"$SR" simulate --json --kernel 6.12.117 -t "$F12.topo" "$F12.dat" >"$TMP/k12.json" 2>"$TMP/k12.err"
ok "--kernel 6.12.117 on a 6.12.117 recording: the same run" cmp "$TMP/k12.json" "$TMP/numa-6.12-forks.json"
ok "--kernel of the recording's own release: no warning" sh -c "! grep -q 'is not the kernel' '$TMP/k12.err'"
"$SR" simulate --json --kernel 6.1 -t "$F12.topo" "$F12.dat" >"$TMP/k61.json" 2>"$TMP/k61.err"
same "--kernel 6.1 on a 6.12 recording: exit 0" 0 $?
ok "--kernel 6.1: CFS's rules by default" grep -q '"fair": "cfs"' "$TMP/k61.json"
ok "--kernel 6.1: a warning that the trace shows 6.12" \
	grep -q "kernel 6.1 is not the kernel that recorded .*the trace shows 6.12" "$TMP/k61.err"
"$SR" simulate --json --kernel 6.12.10 -t "$F12.topo" "$F12.dat" >"$TMP/k1210.json" 2>/dev/null
ok "--kernel 6.12.10: the same fair rules (eevdf-delay)" grep -q '"fair": "eevdf-delay"' "$TMP/k1210.json"
ok "--kernel 6.12.10: another run (0.75 ms base slice, no NI_RANDOM draws)" \
	sh -c "! cmp -s '$TMP/k1210.json' '$TMP/numa-6.12-forks.json'"
"$SR" simulate --kernel 6.1 --fair eevdf -t "$F12.topo" "$F12.dat" 2>/dev/null | head -n 1 >"$TMP/kh.txt"
ok "--fair still chooses the rules under --kernel, the table names both" \
	grep -q ', eevdf, kernel 6.1 (--kernel), ' "$TMP/kh.txt"
"$SR" simulate --kernel six "$D/pipe-pair.txt" >/dev/null 2>"$TMP/e"
same "--kernel six: exit 2" 2 $?
ok "--kernel six: names what it takes" grep -q "kernel takes a kernel release such as 6.12.117 or 6.1, not 'six'" "$TMP/e"

# without -t: a flat machine, said loudly
"$SR" simulate "$D/pipe-pair.txt" >"$TMP/flat.txt" 2>"$TMP/flat.err"
same "no topology: exit 0" 0 $?
ok "no topology: a warning names the flat machine" grep -q 'FLAT 2-CPU machine' "$TMP/flat.err"

# a trace that declares no CPU count (perf's CTF, tracefs text): the flat machine has as many
# CPUs as the highest CPU with events, as replay's, not the CPUs seen before the first event
for t in ctf/succeed/perf-taskset2 text/succeed/trace-critical-path.txt; do
	"$SR" simulate "$FIX/$t" >"$TMP/undecl.txt" 2>"$TMP/undecl.err"
	same "undeclared CPUs, $t: exit 0" 0 $?
	ok "undeclared CPUs, $t: a FLAT 4-CPU machine" grep -q 'FLAT 4-CPU machine' "$TMP/undecl.err"
done

# a trace of schedreplay record: its metadata's topology and HZ
L=$FIX/tracedat/succeed/live-6.18-record-v6.dat
"$SR" simulate "$L" >"$TMP/live.txt" 2>"$TMP/live.err"
same "a recording with metadata: exit 0" 0 $?
ok "it runs on the recording's topology" grep -q "on recording metadata, HZ 250," "$TMP/live.txt"
ok "with no flat-machine warning" sh -c "! grep -q FLAT '$TMP/live.err'"

# the rt-app export
for n in pipe-pair fork-wait timer-sleeper; do
	"$SR" simulate --export-demand "$TMP/$n.rtapp.json" "$D/$n.txt" >/dev/null 2>&1
	ok "export-demand $n: the golden rt-app workload" cmp "$D/$n.rtapp.json" "$TMP/$n.rtapp.json"
done
"$SR" simulate --export-demand "$TMP/k.json" "$N/numa-6.1-pinnedhogs.dat" -t "$N/numa-6.1-pinnedhogs.topo" \
	>/dev/null 2>&1
"$SR" simulate --export-demand "$TMP/kk.json" --kthreads -t "$N/numa-6.1-pinnedhogs.topo" \
	"$N/numa-6.1-pinnedhogs.dat" >/dev/null 2>&1
ok "kernel threads are left out of the export" sh -c "! grep -q '\"ksoftirqd/' '$TMP/k.json'"
ok "--kthreads writes them (bound by name)" sh -c "grep -q '\"ksoftirqd_[0-9]*-[0-9]*\": {' '$TMP/kk.json' && grep -q '\"cpus\": \\[' '$TMP/kk.json'"
ok "the pinned hogs keep their recorded CPU" sh -c "grep -q '\"cpus\": \\[1\\]' '$TMP/k.json'"
if command -v rt-app >/dev/null; then
	for n in pipe-pair fork-wait timer-sleeper; do
		(cd "$TMP" && timeout 20 rt-app "$D/$n.rtapp.json") >"$TMP/rt.out" 2>&1
		rc=$?
		if [ $rc = 0 ] && ! grep -qE '<(error|crit)>' "$TMP/rt.out"; then
			pass "rt-app parses and runs the $n export"
		else
			fail "rt-app parses and runs the $n export" "exit $rc: $(grep -E '<(error|crit)>' "$TMP/rt.out" | head -n 5)"
		fi
	done
	# rt-app's own check: a bad event is an error it prints (so the check above can fail)
	sed 's/"runtime0": 100/"runtime0": "x"/' "$D/pipe-pair.rtapp.json" >"$TMP/bad.json"
	(cd "$TMP" && timeout 20 rt-app "$TMP/bad.json") >"$TMP/rt.out" 2>&1
	ok "rt-app reports a mangled event (the check can fail)" grep -q '<error>.*runtime0' "$TMP/rt.out"
else
	skip "rt-app parses the exports" "rt-app not installed (Debian package rt-app)"
fi

# an exec's placement (sched_exec(), SD_BALANCE_EXEC): the child forked on
# a busy machine execs when node 1 is idle and the model sends it there,
# as the recording's stopper did (one cross-node migration, not none)
"$SR" simulate -t 2x2x1 -o "$TMP/exec.db" "$D/fork-exec.txt" >"$TMP/exec.out" 2>&1
same "fork-exec: simulated" 0 $?
same "the exec's move: the stopper's, from CPU 0 to node 1's CPU 2" "201,0,2,active_balance" \
	"$("$SR" sql -F csv --no-header "$TMP/exec.db" "select tid, orig_cpu, dest_cpu, class from migration where run_id = 1" 2>&1)"
ok "... and the recorded run and the simulation both have one cross-node migration" \
	grep -qE '^migrations_cross_node +1 +1$' "$TMP/exec.out"

# record_wakee() runs in select_task_rq_fair() only: the waker alternates
# between a, a bound kworker and an RT task; counting the last two (the
# simulator did) gave it 2 flips a round, and a, with 2 flips of its own,
# went wake_wide from the third round; replay counts a's waker at 1 flip
WQ="select count(*), sum(r.path like 'wake_wide%') from decision_row d
 join eval_row e using (decision_id) join reason r using (reason_id)
 where d.kind = 'wakeup' and d.tid = 200"
"$SR" simulate -t 1x2x1 -o "$TMP/flips.db" "$D/flips-bound-wakees.txt" >/dev/null 2>&1
same "flips-bound-wakees: simulated" 0 $?
same "... a's 20 wakeups, none wake_wide (bound and RT wakees flip nothing)" "20,0" \
	"$("$SR" sql -F csv --no-header "$TMP/flips.db" "$WQ" 2>&1)"
"$SR" replay -q -t 1x2x1 -o "$TMP/flips-r.db" "$D/flips-bound-wakees.txt" >/dev/null 2>&1
same "... as replay has them" "20,0" "$("$SR" sql -F csv --no-header "$TMP/flips-r.db" "$WQ" 2>&1)"

# the flips a task brings into the trace: the fork probe shows parent's 3
# in its child's copy; the simulated child starts with them, as replay's
WQ="select count(*), sum(r.path like 'wake_wide%') from decision_row d
 join eval_row e using (decision_id) join reason r using (reason_id)
 where d.kind = 'wakeup' and d.tid = 501"
"$SR" simulate -t 1x2x1 -o "$TMP/inh.db" "$D/flips-inherited.txt" >/dev/null 2>&1
same "flips-inherited: simulated" 0 $?
same "... child's last 4 of 8 wakeups wake_wide, on parent's 3 flips from before the trace" \
	"8,4" "$("$SR" sql -F csv --no-header "$TMP/inh.db" "$WQ" 2>&1)"
"$SR" replay -q -t 1x2x1 -o "$TMP/inh-r.db" "$D/flips-inherited.txt" >/dev/null 2>&1
same "... as replay has them" "8,4" "$("$SR" sql -F csv --no-header "$TMP/inh-r.db" "$WQ" 2>&1)"

# balance_interval after load_balance()s that found every task pinned
# (out_all_pinned: doubled up to MAX_PINNED_INTERVAL, 512 ms, past
# max_interval): three loops pinned to CPU 1 for 0.3 s, then allowed on
# both CPUs; idle CPU 0's first pull waits for its grown interval, 0.2 s
# (HZ 250, 2 CPUs: max_load_balance_interval 50 jiffies), not the 4 ms of
# max_interval
"$SR" simulate -t 1x2x1 -o "$TMP/pin.db" "$D/pinned-backoff.txt" >/dev/null 2>&1
same "pinned-backoff: simulated" 0 $?
same "... the first pull to CPU 0 more than 0.1 s after the masks widen at 2.30 s" 1 \
	"$("$SR" sql -F csv --no-header "$TMP/pin.db" "select min(ts) > 2400000000 from migration where dest_cpu = 0" 2>&1)"

# errors
"$SR" simulate -m nosuch "$D/pipe-pair.txt" >/dev/null 2>"$TMP/e"
same "unknown model: exit 2" 2 $?
ok "unknown model: named" grep -q "unknown model 'nosuch'" "$TMP/e"
"$SR" simulate -p nosuch "$D/pipe-pair.txt" >/dev/null 2>"$TMP/e"
same "unknown patch: exit 2" 2 $?
"$SR" simulate --runs 0 "$D/pipe-pair.txt" >/dev/null 2>"$TMP/e"
same "--runs 0: exit 2" 2 $?
ok "--runs 0: the range" grep -q "invalid --runs '0' (1 to 100)" "$TMP/e"
"$SR" simulate --seed x "$D/pipe-pair.txt" >/dev/null 2>"$TMP/e"
same "--seed x: exit 2" 2 $?
"$SR" simulate -t 1x1x1 "$N/numa-6.1-forks.dat" >/dev/null 2>"$TMP/e"
same "a topology smaller than the trace: exit 2" 2 $?
ok "a topology smaller than the trace: said" grep -q "has 1 CPU, the trace" "$TMP/e"
"$SR" simulate "$TMP/nosuch.dat" >/dev/null 2>"$TMP/e"
same "a missing trace: exit 1" 1 $?
ok "a missing trace: named" grep -q "nosuch.dat" "$TMP/e"
"$SR" simulate -t 2x2x1 "$FIX/text/fail/bad-number.txt" >/dev/null 2>"$TMP/e"
same "a malformed trace: exit 1" 1 $?
same "... one line naming the file and the line" 1 "$(grep -c "cannot read '.*bad-number.txt': line 17: malformed sched_switch" "$TMP/e")"
"$SR" simulate --export-demand "$TMP/no/such/dir.json" "$D/pipe-pair.txt" >/dev/null 2>"$TMP/e"
same "an export that cannot be written: exit 1" 1 $?
ok "an export that cannot be written: named" grep -q "cannot write '$TMP/no/such/dir.json'" "$TMP/e"
test_done
