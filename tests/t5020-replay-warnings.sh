#!/bin/bash
# replay warns that wakeup decisions are inferred from sched_wakeup only where
# it made some: a trace without wakeup events (an empty one, a scenario with
# switches only, LISA's sched_load) gets no such warning, a trace with
# sched_wakeup and no sched_waking (Android's ftrace text) still does; the
# summary's migrations line of a trace without sched_migrate_task says so
# rather than "0: (unexplained 0.0%)"; an empty trace is said to be empty,
# by replay and by simulate.
. "$(dirname "$0")/test-lib.sh"

cd "$TOP" || exit 1
printf '# tracer: nop\n#\n' >"$TMP/empty.txt"

for t in "$TMP/empty.txt" tests/fixtures/scenario/no-decisions.txt \
	tests/fixtures/tracedat/succeed/lisa-sched_load.dat; do
	"$SR" replay -q "$t" >/dev/null 2>"$TMP/warn"
	if grep -q 'sched_waking' "$TMP/warn"; then
		fail "$(basename "$t"): no wakeup events, no warning of inferred wakeups" \
			"$(grep sched_waking "$TMP/warn")"
	else
		pass "$(basename "$t"): no wakeup events, no warning of inferred wakeups"
	fi
done
# an empty trace: replay and simulate say there is nothing, and still exit 0
"$SR" replay -q "$TMP/empty.txt" >/dev/null 2>"$TMP/warn"
same "an empty trace: replay exits 0" 0 $?
ok "an empty trace: replay says the run is empty" \
	grep -q "'$TMP/empty.txt' holds no event: the run is empty" "$TMP/warn"
"$SR" replay -q tests/fixtures/scenario/no-decisions.txt >/dev/null 2>"$TMP/warn"
ok "a trace with events: no empty-run warning" sh -c "! grep -q 'holds no event' '$TMP/warn'"
"$SR" simulate --export-demand "$TMP/e.json" "$TMP/empty.txt" >/dev/null 2>"$TMP/warn"
same "an empty trace: simulate exits 0" 0 $?
ok "an empty trace: simulate says there is no demand, nor an rt-app workload" \
	grep -q "has no task (no scheduler event): there is no demand to simulate, and the rt-app workload runs nothing" "$TMP/warn"
"$SR" replay -q tests/fixtures/text/succeed/trace-android-sched.txt >/dev/null 2>"$TMP/warn"
ok "sched_wakeup without sched_waking: the warning of inferred wakeups" \
	grep -q "has no sched_waking events: each wakeup decision is inferred" "$TMP/warn"

"$SR" replay -q tests/fixtures/text/succeed/lisa-trace.txt >"$TMP/fid" 2>/dev/null
got=$(grep '^migrations:' "$TMP/fid")
same "no sched_migrate_task: the migrations line says so" \
	"migrations: 0 (the trace has no sched_migrate_task event)" "$got"
"$SR" replay -q tests/fixtures/ctf/succeed/lttng-tracefile-rotation >"$TMP/fid" 2>/dev/null
ok "sched_migrate_task events: the migrations line counts them by class" \
	grep -q '^migrations: 269: wakeup [0-9]* .*(unexplained [0-9.]*%)$' "$TMP/fid"
# a trace without wakeup events: the reconciled switches are said to be its tasks' wakeups
"$SR" replay -q tests/fixtures/ctf/succeed/flipping-endianness >"$TMP/fid" 2>/dev/null
ok "no wakeup events: the reconciled switches are explained" \
	grep -q '^            the trace shows no wakeup: each switch-in of a task after its sleep is one of the 1379 switches$' "$TMP/fid"
"$SR" replay -q tests/fixtures/ctf/succeed/lttng-tracefile-rotation >"$TMP/fid" 2>/dev/null
ok "wakeup events: no such line" sh -c "! grep -q 'the trace shows no wakeup' '$TMP/fid'"
test_done
