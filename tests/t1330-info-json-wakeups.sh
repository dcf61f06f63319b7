#!/bin/bash
# info --json: replay.wakeup_decisions is true wherever replay makes wakeup
# decisions, as the text's "wakeups" line says, and wakeup_decisions_from
# says where they open: sched_waking, or sched_wakeup in a trace without it
# (perf-taskset2: replay infers 124 wakeup decisions there), none in a trace
# without wakeup events (LISA's sched_load).
. "$(dirname "$0")/test-lib.sh"

cd "$TOP" || exit 1
command -v python3 >/dev/null || skip_all "no python3 to parse the JSON"
check() {
	"$SR" info --json "$1" | python3 -c '
import json, sys
r = json.load(sys.stdin)["replay"]
want = {"true": True, "false": False}[sys.argv[1]]
frm = None if sys.argv[2] == "null" else sys.argv[2]
if r["wakeup_decisions"] is not want or r.get("wakeup_decisions_from", "absent") != frm:
    print("got", r["wakeup_decisions"], r.get("wakeup_decisions_from", "absent"))
    sys.exit(1)' "$2" "$3"
}
ok "perf-taskset2 (sched_wakeup only): wakeup decisions, from sched_wakeup" \
	check tests/fixtures/ctf/succeed/perf-taskset2 true sched_wakeup
ok "lttng-tracefile-rotation: wakeup decisions, from sched_waking" \
	check tests/fixtures/ctf/succeed/lttng-tracefile-rotation true sched_waking
ok "lisa sched_load (no wakeup events): no wakeup decisions" \
	check tests/fixtures/tracedat/succeed/lisa-sched_load.dat false null
n=$("$SR" replay -q tests/fixtures/ctf/succeed/perf-taskset2 2>/dev/null |
	sed -n 's/^decisions: *\([0-9]*\) wakeup.*/\1/p')
case $n in
'' | 0) fail "perf-taskset2: replay makes wakeup decisions" "got '$n'" ;;
*) pass "perf-taskset2: replay makes wakeup decisions ($n), as info --json says" ;;
esac
test_done
