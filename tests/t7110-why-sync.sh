#!/bin/bash
# The why-view's waker load line says whether this wakeup took the waker's
# load off this_cpu: only a sync wakeup does (wake_affine_weight()); the
# database keeps the waker's load at every wakeup, sync or not.
. "$(dirname "$0")/test-lib.sh"

N=tests/fixtures/tracedat/numa
cd "$TOP" || exit 1
command -v sqlite3 >/dev/null || skip_all "no sqlite3"

DB=$TMP/forks.db
"$SR" replay -q -o "$DB" -m v4.15 -t $N/numa-6.12-forks.topo -p wake-affine-equal \
	-p exit-sync-mel -p exit-sync-peterz $N/numa-6.12-forks.dat ||
	skip_all "cannot replay the fixture"

# the first stored wakeup of each kind: not sync with a waker load, and sync
pick() {
	sqlite3 "$DB" "SELECT d.decision_id FROM decision d JOIN decision_input i USING (decision_id)
		WHERE d.kind = 'wakeup' AND d.sync = $1 AND i.waker_load > 0 ORDER BY 1 LIMIT 1"
}
ns=$(pick 0)
sy=$(pick 1)
ok "the fixture has a stored non-sync wakeup with a waker load" test -n "$ns"
ok "... and a stored sync one" test -n "$sy"

"$SR" tui --dump detail --decision "#$ns" --size 160x80 "$DB" >"$TMP/ns"
same "a non-sync wakeup: the waker's load is not said to be taken off" \
	"1 0" "$(grep -c 'waker load .*not a sync wakeup: it stays on this_cpu' "$TMP/ns") $(grep -c 'taken off this_cpu by a sync wakeup' "$TMP/ns")"
"$SR" tui --dump detail --decision "#$sy" --size 160x80 "$DB" >"$TMP/sy"
same "a sync wakeup: it is" 1 "$(grep -c 'waker load .*taken off this_cpu by a sync wakeup' "$TMP/sy")"

# a decision no model evaluated (bound: not a placement) has no base side
id=$(sqlite3 "$DB" "SELECT decision_id FROM decision WHERE decision_id NOT IN (SELECT decision_id FROM eval_row) ORDER BY 1 LIMIT 1")
ok "the fixture has a decision without evaluations" test -n "$id"
ok "its detail renders" "$SR" tui --dump detail --decision "#$id" --size 120x40 "$DB"

test_done
