#!/bin/bash
# replay warns that wakeup decisions are inferred from sched_wakeup only where
# it made some: a trace without wakeup events (an empty one, a scenario with
# switches only, LISA's sched_load) gets no such warning, a trace with
# sched_wakeup and no sched_waking (Android's ftrace text) still does.
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
"$SR" replay -q tests/fixtures/text/succeed/trace-android-sched.txt >/dev/null 2>"$TMP/warn"
ok "sched_wakeup without sched_waking: the warning of inferred wakeups" \
	grep -q "has no sched_waking events: each wakeup decision is inferred" "$TMP/warn"
test_done
