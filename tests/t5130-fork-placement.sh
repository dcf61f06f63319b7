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
sed 's/ 1\.001000: sched_process_fork/ 1.005000: sched_process_fork/;
	s/ 1\.001001: sched_wakeup_new/ 1.005001: sched_wakeup_new/' \
	"$S/fork-dead-load.txt" >"$TMP/dl-late.txt"
"$SR" replay -q -o "$TMP/dll.db" -t 1x2x1 "$TMP/dl-late.txt" 2>/dev/null
same "a tick later the load is gone and the child stays local" \
	"402:0" "$(forks "$TMP/dll.db")"

test_done
