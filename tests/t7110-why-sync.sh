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

# a balance decision has no waker, wake flags nor select_task_rq_fair; a
# newidle one's task is the one that switched out (its slice ends there)
id=$(sqlite3 "$DB" "SELECT d.decision_id FROM decision d JOIN sched_slice s ON s.run_id = d.run_id
	AND s.cpu = d.this_cpu AND s.ts + s.dur = d.ts AND s.tid = d.tid WHERE d.kind = 'newidle' ORDER BY 1 LIMIT 1")
ok "the fixture has a newidle decision whose task switched out there" test -n "$id"
"$SR" tui --dump detail --decision "#$id" --size 120x40 "$DB" >"$TMP/ni"
same "its detail: the task that switched out, no wakeup lines" "1 0" \
	"$(grep -c '^task .* (switched out as the CPU went newly idle)$' "$TMP/ni") $(grep -c 'waker\|wake_flags\|select_task_rq_fair' "$TMP/ni")"
id=$(sqlite3 "$DB" "SELECT decision_id FROM decision WHERE kind LIKE 'balance%' AND actual_cpu IS NOT NULL ORDER BY 1 LIMIT 1")
"$SR" tui --dump detail --decision "#$id" --size 120x40 "$DB" >"$TMP/lb"
same "a pull's detail: the task pulled, no wakeup lines" "1 0" \
	"$(grep -c '^task .* (the task the kernel pulled)$' "$TMP/lb") $(grep -c 'waker\|wake_flags\|select_task_rq_fair' "$TMP/lb")"

test_done
