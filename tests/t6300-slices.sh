#!/bin/bash
# The slice tables (sched_slice, task_state, wakeup, task, cpu_idle) and the
# canned queries over them (latency, timehist, idle), held to an independent
# computation from "trace-cmd report -t" on real traces (tests/lib/sched-ref.py
# reads trace-cmd's text only); their consistency with each other and with
# the decisions; and an append that copies them.
. "$(dirname "$0")/test-lib.sh"

cd "$TOP" || exit 1
command -v trace-cmd >/dev/null || skip_all "trace-cmd is not installed"
command -v python3 >/dev/null || skip_all "python3 is not installed"
N=tests/fixtures/tracedat/numa
REF=tests/lib/sched-ref.py

# compare KIND REF.csv SR.csv: the reference's rows against the query's
compare() {
	python3 - "$@" <<'EOF'
import csv, sys
kind, ref, got = sys.argv[1:4]
def us(x):
    return None if x == '' else round(float(x) * 1000)
bad = []
if kind == 'latency':
    r = {int(l[0]): l for l in csv.reader(open(ref))}
    g = {int(l['tid']): l for l in csv.DictReader(open(got))}
    if set(r) != set(g):
        bad.append('tasks differ: only ref %s, only db %s' % (sorted(set(r) - set(g))[:5],
                                                              sorted(set(g) - set(r))[:5]))
    for t in sorted(set(r) & set(g)):
        a, b = r[t], g[t]
        if (a[1], int(a[2]), int(a[4]), int(a[5]), int(a[6])) != \
           (b['comm'], int(b['wakeups']), us(b['p95_us']), us(b['p99_us']), us(b['max_us'])) \
           or abs(float(a[3]) - float(b['avg_us'])) > 0.0015:
            bad.append('tid %d: ref %s db %s' % (t, a, dict(b)))
elif kind == 'timehist':
    r = sorted(tuple(l) for l in csv.reader(open(ref)))
    g = sorted((l['ts'], l['cpu'], l['tid'],
                '' if l['wait_us'] == '' else str(us(l['wait_us'])),
                '' if l['sch_delay_us'] == '' else str(us(l['sch_delay_us'])),
                str(us(l['run_us'])), 'R' if l['state'].startswith('R') else 'S')
               for l in csv.DictReader(open(got)))
    if len(r) != len(g):
        bad.append('%d rows in the reference, %d in the database' % (len(r), len(g)))
    bad += ['ref %s db %s' % (a, b) for a, b in zip(r, g) if a != b]
elif kind == 'idle':
    r = {l[0]: [int(x) for x in l[1:]] for l in csv.reader(open(ref))}
    g = {l['cpu']: [round(float(l['idle_ms']) * 1e6), int(l['idle_periods']),
                    round(float(l['waiting_ms']) * 1e6), int(l['waiting_periods']),
                    round(float(l['node_waiting_ms']) * 1e6), int(l['node_waiting_periods'])]
         for l in csv.DictReader(open(got)) if l['scope'] == 'cpu'}
    for c in sorted(set(r) | set(g)):
        a, b = r.get(c), g.get(c)
        # the query prints ms with 3 decimals: the ns sums to the µs
        if not a or not b or a[1::2] != b[1::2] or \
           any(abs(x - y) > 500 for x, y in zip(a[0::2], b[0::2])):
            bad.append('cpu %s: ref %s db %s' % (c, a, b))
for b in bad[:10]:
    print(b)
sys.exit(1 if bad else 0)
EOF
}

for t in numa-6.1-messaging numa-6.12-forks numa-6.1-pingpong numa-6.12-busyloops; do
	db=$TMP/$t.db
	if ! "$SR" replay -q -t $N/$t.topo -o "$db" $N/$t.dat 2>"$TMP/e"; then
		fail "$t: replayed" "$(cat "$TMP/e")"
		continue
	fi
	trace-cmd report -t $N/$t.dat >"$TMP/$t.txt" 2>/dev/null
	for q in latency timehist idle; do
		python3 $REF $q $N/$t.topo <"$TMP/$t.txt" >"$TMP/$t.ref.$q"
		"$SR" sql -F csv -Q $q "$db" >"$TMP/$t.db.$q"
		ok "$t: $q equals the computation from trace-cmd report ($(wc -l <"$TMP/$t.ref.$q") rows)" \
			compare $q "$TMP/$t.ref.$q" "$TMP/$t.db.$q"
	done
	ok "$t: the reference is not empty" test "$(wc -l <"$TMP/$t.ref.latency")" -gt 3
done

# consistency on one database
db=$TMP/numa-6.1-messaging.db
q() { sqlite3 "$db" "$1"; }
same "no running slices overlap on a CPU" 0 "$(q "SELECT count(*) FROM (SELECT ts, dur,
	lag(ts + dur) OVER (PARTITION BY cpu ORDER BY ts) AS prev_end FROM sched_slice)
	WHERE prev_end > ts")"
same "no task is in two states at once" 0 "$(q "SELECT count(*) FROM (SELECT ts,
	lag(ts + dur) OVER (PARTITION BY tid ORDER BY ts, dur) AS prev_end FROM thread_state)
	WHERE prev_end > ts")"
same "a task's slices meet: each begins where the one before ended" 0 "$(q "SELECT count(*)
	FROM (SELECT ts, lag(ts + dur) OVER (PARTITION BY tid ORDER BY ts, dur) AS prev_end,
	row_number() OVER (PARTITION BY tid ORDER BY ts, dur) AS k FROM thread_state)
	WHERE k > 1 AND prev_end IS NOT ts")"
same "only the last slice of a task is open" 0 "$(q "SELECT count(*) FROM (SELECT dur,
	row_number() OVER (PARTITION BY tid ORDER BY ts DESC, dur IS NULL DESC) AS k
	FROM thread_state) WHERE dur IS NULL AND k > 1")"
same "a runnable slice from a wakeup lasts the wakeup's delay" 0 "$(q "SELECT count(*)
	FROM wakeup w JOIN task_state s ON s.tid = w.tid AND s.ts = w.ts AND s.state = 'R'
	WHERE s.dur IS NOT w.delay")"
same "the task totals add up the slices" 0 "$(q "SELECT count(*) FROM task t WHERE
	t.run_ns != (SELECT coalesce(sum(dur), 0) FROM sched_slice s WHERE s.tid = t.tid)
	OR t.wakeups != (SELECT count(*) FROM wakeup w WHERE w.tid = t.tid)")"
same "every linked wakeup is its decision's (task, sched_wakeup time, CPU)" 0 \
	"$(q "SELECT count(*) FROM wakeup w JOIN decision d USING (decision_id)
	WHERE d.tid != w.tid OR d.done_ts != w.ts OR d.actual_cpu IS NOT w.target_cpu
	OR d.kind NOT IN ('wakeup', 'fork')")"
ok "most wakeup decisions are linked" test "$(q "SELECT count(*) FROM wakeup
	WHERE decision_id IS NOT NULL")" -gt "$(q "SELECT count(*) / 2 FROM decision
	WHERE kind = 'wakeup' AND skip IS NULL")"
same "a busy target CPU's queue counts its running task" 0 "$(q "SELECT count(*) FROM wakeup
	WHERE cpu_idle = 0 AND cpu_nr < 1 OR cpu_nr < 0")"
ok "some wakeups found their CPU idle, some busy" test "$(q "SELECT count(DISTINCT cpu_idle)
	FROM wakeup WHERE cpu_idle IS NOT NULL")" -eq 2

# an append copies the slice tables, run by run
one=$TMP/numa-6.12-forks.db
both=$TMP/both.db
cp "$db" "$both"
ok "a second run appended" "$SR" replay -q -a -t $N/numa-6.12-forks.topo -o "$both" \
	$N/numa-6.12-forks.dat
for t in sched_slice task_state wakeup task cpu_idle thread_state; do
	same "append: run 2's $t is the standalone run's" \
		"$(sqlite3 "$one" "SELECT count(*) FROM $t")" \
		"$(sqlite3 "$both" "SELECT count(*) FROM $t WHERE run_id = 2")"
done
same "append: run 2's wakeups link to run 2's decisions" 0 "$(sqlite3 "$both" "SELECT count(*)
	FROM wakeup w JOIN decision d USING (decision_id) WHERE w.run_id = 2
	AND (d.run_id != 2 OR d.tid != w.tid OR d.done_ts != w.ts)")"
same "append: latency of run 2 is the standalone run's" \
	"$("$SR" sql -F csv -Q latency "$one" | cut -d, -f2-)" \
	"$("$SR" sql -F csv -Q latency -P run=2 "$both" | cut -d, -f2-)"

# the open-loop estimates at divergent decisions
est=$TMP/est.db
if "$SR" replay -q -m v4.15 -p wake-affine-equal -p exit-sync-mel -t $N/numa-6.12-forks.topo \
	-o "$est" $N/numa-6.12-forks.dat 2>"$TMP/e"; then
	q() { sqlite3 "$est" "$1"; }
	ok "the run has divergences" test "$(q "SELECT count(*) FROM divergence")" -gt 0
	same "one estimate per divergence" "$(q "SELECT count(*) FROM divergence")" \
		"$(q "SELECT count(*) FROM divergence_estimate")"
	same "every side's CPU and the kernel's has its estimate" 0 "$(q "SELECT count(*)
		FROM divergence v WHERE NOT EXISTS (SELECT 1 FROM cpu_estimate e WHERE
		e.decision_id = v.decision_id AND e.cpu = v.original_cpu) OR NOT EXISTS (SELECT 1
		FROM cpu_estimate e WHERE e.decision_id = v.decision_id AND e.cpu = v.patched_cpu)")"
	same "the kernel's delay is the wakeup's" 0 "$(q "SELECT count(*) FROM divergence_estimate
		x JOIN wakeup w USING (decision_id) WHERE x.actual_delay_ns IS NOT w.delay")"
	ok "some estimated CPU was busy, with its running task's rest known" \
		test "$(q "SELECT count(*) FROM cpu_estimate WHERE idle = 0 AND
		remaining_ns > 0")" -gt 0
	same "the running task's rest is its slice's" 0 "$(q "SELECT count(*) FROM cpu_estimate e
		WHERE e.idle = 0 AND e.remaining_ns IS NOT NULL AND NOT EXISTS (SELECT 1 FROM
		sched_slice s WHERE s.cpu = e.cpu AND s.tid = e.curr_tid AND s.ts = e.ts - e.ran_ns
		AND s.ts + s.dur = e.ts + e.remaining_ns)")"
	same "an idle CPU's wait estimate is 0" 0 "$(q "SELECT count(*) FROM divergence_estimate
		WHERE original_idle = 1 AND original_nr = 0 AND original_wait_estimate_ns IS NOT 0
		OR patched_idle = 1 AND patched_nr = 0 AND patched_wait_estimate_ns IS NOT 0")"
	same "... and none where tasks were queued there already" 0 \
		"$(q "SELECT count(*) FROM divergence_estimate WHERE original_idle = 1 AND
		original_nr > 0 AND original_wait_estimate_ns IS NOT NULL OR patched_idle = 1 AND
		patched_nr > 0 AND patched_wait_estimate_ns IS NOT NULL")"
	# the divergences' woken slices are a table of their own, not an index of every one
	same "no index of every woken slice by its decision" "" \
		"$(q "SELECT name FROM sqlite_schema WHERE name = 'sched_slice_decision'")"
	ok "some divergence has its woken slice" \
		test "$(q "SELECT count(*) FROM divergent_wakeup")" -gt 0
	same "divergent_wakeup: the woken slices of the divergent decisions, no other" \
		"$(q "SELECT DISTINCT w.run_id, w.decision_id, w.delay FROM wakeup w JOIN diverged
		USING (decision_id) ORDER BY 2")" \
		"$(q "SELECT run_id, decision_id, delay FROM divergent_wakeup ORDER BY 2")"
	ok "the same run appended" "$SR" replay -q -a -m v4.15 -p wake-affine-equal \
		-p exit-sync-mel -t $N/numa-6.12-forks.topo -o "$est" $N/numa-6.12-forks.dat
	same "append: run 2's estimates read run 2's wakeups" 0 "$(q "SELECT count(*) FROM
		divergence_estimate x JOIN wakeup w USING (decision_id) WHERE x.run_id = 2 AND
		(w.run_id != 2 OR x.actual_delay_ns IS NOT w.delay)")"
	same "append: as many estimates with a delay in each run" \
		"$(q "SELECT count(actual_delay_ns) FROM divergence_estimate WHERE run_id = 1")" \
		"$(q "SELECT count(actual_delay_ns) FROM divergence_estimate WHERE run_id = 2")"
else
	fail "replayed with patch pairs" "$(cat "$TMP/e")"
fi

test_done
