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

test_done
