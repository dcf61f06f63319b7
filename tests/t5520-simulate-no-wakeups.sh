#!/bin/bash
# simulate on a trace without wakeup events (LISA's sched_load: switches and
# migrations only): the recorded latency figures are '-' in the table and null
# in --json, not a latency of 0, and a warning says the simulated wakeups
# have nothing to compare with; the table says where its recorded latency
# starts (sched_waking), which is not where replay's wakeup table does.
. "$(dirname "$0")/test-lib.sh"

cd "$TOP" || exit 1
T=tests/fixtures/tracedat/succeed/lisa-sched_load.dat

"$SR" simulate "$T" >"$TMP/table" 2>"$TMP/warn" || fail "simulate runs on $T"
for q in p50 p99 mean max; do
	got=$(awk -v q="$q" '$1 == "wakeup_latency_us" && $2 == q { print $3 }' "$TMP/table")
	same "table: recorded wakeup_latency_us $q is '-'" "-" "$got"
done
got=$(awk '$1 == "wakeups" { print $2 }' "$TMP/table")
same "table: the recording has 0 wakeups" "0" "$got"
ok "a warning says the simulated wakeups have no recorded ones to compare with" \
	grep -q "has no wakeup the recording measured" "$TMP/warn"
ok "the table says its latency counts from sched_waking, replay's from sched_wakeup" \
	grep -q "^wakeup_latency_us: from a wakeup's sched_waking.*counts from sched_wakeup" \
	"$TMP/table"

if command -v python3 >/dev/null; then
	"$SR" simulate --json "$T" 2>/dev/null >"$TMP/json"
	ok "--json: the recorded latencies are null, the side's are numbers" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
r = d["recorded"]["wakeup_latency_us"]
s = d["sides"][0]["wakeup_latency_us"]
assert d["recorded"]["wakeups"] == 0
assert all(r[k] is None for k in ("p50", "p99", "mean", "max")), r
assert d["sides"][0]["wakeups"] > 0 and all(isinstance(s[k], float) for k in s), s
' "$TMP/json"
else
	skip "--json: the recorded latencies are null" "no python3"
fi

# a trace with wakeups keeps numbers in the recorded column
"$SR" simulate tests/fixtures/text/succeed/lisa-trace.txt >"$TMP/t2" 2>/dev/null
got=$(awk '$1 == "wakeup_latency_us" && $2 == "mean" { print $3 }' "$TMP/t2")
case $got in
[0-9]*.[0-9]) pass "a trace with wakeups: the recorded mean latency is a number ($got)" ;;
*) fail "a trace with wakeups: the recorded mean latency is a number" "got '$got'" ;;
esac
test_done
