#!/bin/bash
# task_h_load() at a wakeup (schedreplay-models(7) §3.4): the root cfs_rq's
# h_load that update_cfs_rq_h_load() keeps for a jiffy, on the constructed
# scenario tests/fixtures/scenario/wake-h-load-jiffy.txt, whose comment
# gives the kernel rule and the numbers.
. "$(dirname "$0")/test-lib.sh"

command -v sqlite3 >/dev/null || skip_all "sqlite3 not installed (make deps)"

S="$FIX/scenario"

# wakes DB: "tid:model cpu" of every wakeup, in time order
wakes() {
	sqlite3 "$1" "SELECT d.tid || ':' || e.cpu FROM decision d JOIN evaluation_v e
		USING (decision_id) WHERE d.kind = 'wakeup' AND e.model = 'mainline'
		ORDER BY d.ts" | paste -sd' '
}

ok "h_load jiffy: replay" "$SR" replay -q -o "$TMP/hj.db" -t 1x3x1 "$S/wake-h-load-jiffy.txt"
same "the waker's task_h_load() over the jiffy's h_load: B stays on CPU 1" \
	"301:0 201:1" "$(wakes "$TMP/hj.db")"
same "as the kernel did" "2 2" \
	"$(sqlite3 "$TMP/hj.db" "SELECT count(*), sum(e.cpu = d.kernel_cpu) FROM decision d
		JOIN evaluation_v e USING (decision_id) WHERE d.kind = 'wakeup' AND
		e.model = 'mainline'" | tr '|' ' ')"

# B's wakeup in the next jiffy: h_load is taken afresh and B comes to CPU 0
sed 's/ 10\.002000: sched_waking/ 10.004100: sched_waking/;
	s/ 10\.002001: select_rq/ 10.004101: select_rq/;
	s/ 10\.002002: select_rq_ret/ 10.004102: select_rq_ret/;
	s/ 10\.002003: sched_wakeup/ 10.004103: sched_wakeup/;
	s/ 10\.003000: sched_switch/ 10.005000: sched_switch/' \
	"$S/wake-h-load-jiffy.txt" >"$TMP/next.txt"
ok "next jiffy: replay" "$SR" replay -q -o "$TMP/nj.db" -t 1x3x1 "$TMP/next.txt"
same "a jiffy later the waker's load is read against a fresh h_load: B comes" \
	"301:0 201:0" "$(wakes "$TMP/nj.db")"

# --hz moves the jiffy: at 100 Hz, [10.000, 10.010) holds both wakeups
ok "next jiffy at 100 Hz: replay" "$SR" replay -q -o "$TMP/n100.db" --hz 100 -t 1x3x1 \
	"$TMP/next.txt"
same "at 100 Hz both wakeups share a jiffy: B stays" \
	"301:0 201:1" "$(wakes "$TMP/n100.db")"

test_done
