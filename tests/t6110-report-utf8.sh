#!/bin/bash
# report's one-run tables line up a task name with non-ASCII UTF-8 letters
# (é, ß): its columns are counted in characters, not bytes, as sql's table
# counts them, so the figures after the name stay under their header.
. "$(dirname "$0")/test-lib.sh"

cd "$TOP" || exit 1
cat >"$TMP/utf8.txt" <<'TRACE'
# tracer: nop
#
 café-ßé-10 [000] d... 100.000000: sched_switch: prev_comm=café-ßé prev_pid=10 prev_prio=120 prev_state=S ==> next_comm=b next_pid=11 next_prio=120
 b-11 [000] d... 100.000100: sched_waking: comm=café-ßé pid=10 prio=120 target_cpu=000
 b-11 [000] d... 100.000101: sched_wakeup: comm=café-ßé pid=10 prio=120 target_cpu=000
 b-11 [000] d... 100.000200: sched_switch: prev_comm=b prev_pid=11 prev_prio=120 prev_state=S ==> next_comm=café-ßé next_pid=10 next_prio=120
 café-ßé-10 [000] d... 100.000300: sched_switch: prev_comm=café-ßé prev_pid=10 prev_prio=120 prev_state=S ==> next_comm=b next_pid=11 next_prio=120
TRACE
"$SR" replay -q -o "$TMP/u.db" "$TMP/utf8.txt" 2>/dev/null || fail "the UTF-8 trace replays"
"$SR" report "$TMP/u.db" >"$TMP/rep" || fail "report runs"
# the latency table: header and the task's row end in the same column
hdr=$(grep -A1 '^  tid *comm *wakeups' "$TMP/rep" | head -n 1)
row=$(grep -A1 '^  tid *comm *wakeups' "$TMP/rep" | tail -n 1)
case $row in
*"café-ßé"*) pass "the latency table has the task" ;;
*) fail "the latency table has the task" "$row" ;;
esac
hw=$(printf '%s' "$hdr" | LC_ALL=C.UTF-8 wc -m)
rw=$(printf '%s' "$row" | LC_ALL=C.UTF-8 wc -m)
same "the task's row is as wide as the header, in characters" "$hw" "$rw"
test_done
