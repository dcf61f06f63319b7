#!/bin/bash
# schedreplay simulate -o DB: each simulated side's run in the database
# (schedreplay-db(5), SIMULATED RUNS): marked as simulated, its decisions the
# side's own, its slices and migrations the simulated machine's; the same
# figures with and without -o; replace and append as replay -o does them,
# nothing in an existing file lost, a file from before run.kind appended to;
# report and tui say the run is simulated.
. "$(dirname "$0")/test-lib.sh"

F=$FIX/tracedat/numa/numa-6.1-pingpong-aff
DB=$TMP/sim.db
q() { sqlite3 -batch -noheader "$1" "$2"; }

"$SR" simulate --json -t "$F.topo" -p newidle-bail -o "$DB" "$F.dat" >"$TMP/o.json" 2>"$TMP/o.err"
same "simulate -o exits 0" 0 $?
ok "it says which runs it wrote" \
	grep -q "simulate: runs 1-3 (3 simulated sides) written to new '$DB'" "$TMP/o.err"
"$SR" simulate --json -t "$F.topo" -p newidle-bail "$F.dat" >"$TMP/n.json" 2>/dev/null
ok "the figures are the same with and without -o" cmp "$TMP/o.json" "$TMP/n.json"

same "one run per side, marked simulated, with its variant, seed and rules" \
	"1|simulate|mainline||base|1|cfs
2|simulate|mainline|newidle-bail|original|1|cfs
3|simulate|mainline|newidle-bail|patched|1|cfs" \
	"$(q "$DB" "SELECT run_id, kind, model, patches, variant, seed, fair FROM run ORDER BY 1")"
same "run.decisions counts each run's decision rows" "0" \
	"$(q "$DB" "SELECT count(*) FROM run r WHERE decisions IS NOT
		(SELECT count(*) FROM decision d WHERE d.run_id = r.run_id)")"
ok "every run has decisions, slices and wakeups" \
	test "$(q "$DB" "SELECT count(*) FROM run r WHERE
		(SELECT count(*) FROM decision d WHERE d.run_id = r.run_id) > 100 AND
		(SELECT count(*) FROM sched_slice s WHERE s.run_id = r.run_id) > 100 AND
		(SELECT count(*) FROM wakeup w WHERE w.run_id = r.run_id) > 100")" = 3
same "the base run's placements are its side's evaluations" "0" \
	"$(q "$DB" "SELECT count(*) FROM decision d JOIN evaluation_v e USING (decision_id)
		WHERE d.run_id = 1 AND e.variant = 'base' AND d.kind IN ('wakeup', 'fork')
		AND e.cpu IS NOT d.actual_cpu")"
same "a pair's run has the base, original and patched sides" "base,original,patched" \
	"$(q "$DB" "SELECT group_concat(variant) FROM (SELECT variant FROM side
		WHERE run_id = 2 ORDER BY side_id)")"
same "the patched run's placements are the patched side's" "0" \
	"$(q "$DB" "SELECT count(*) FROM decision d JOIN evaluation_v e USING (decision_id)
		WHERE d.run_id = 3 AND e.variant = 'patched' AND d.kind IN ('wakeup', 'fork')
		AND e.cpu IS NOT d.actual_cpu")"
same "a wakeup migration goes where its decision placed the task" "0" \
	"$(q "$DB" "SELECT count(*) FROM migration m JOIN decision d USING (decision_id)
		WHERE m.class = 'wakeup' AND (m.dest_cpu IS NOT d.actual_cpu OR m.tid <> d.tid)")"
ok "wakeup migrations name their decision" \
	test "$(q "$DB" "SELECT count(*) FROM migration WHERE class = 'wakeup'
		AND decision_id IS NOT NULL")" -gt 0
same "no fidelity and no CPU snapshots for a simulated run" "0|0" \
	"$(q "$DB" "SELECT (SELECT count(*) FROM fidelity), (SELECT count(*) FROM cpu_state)")"
same "a slice's CPU ran one task at a time" "0" \
	"$(q "$DB" "SELECT count(*) FROM sched_slice a JOIN sched_slice b ON a.run_id = b.run_id
		AND a.cpu = b.cpu AND a.ts < b.ts AND a.ts + a.dur > b.ts")"
same "the woken slices name the decision that placed them" "0" \
	"$(q "$DB" "SELECT count(*) FROM wakeup w JOIN decision d USING (decision_id)
		WHERE d.tid <> w.tid OR d.actual_cpu IS NOT w.target_cpu OR d.run_id <> w.run_id")"

# the report and the TUI say so; a replay's run does not
"$SR" report -r 2 "$DB" >"$TMP/r.txt" 2>&1
ok "report marks the run simulated" \
	grep -q "^  simulated    yes: the original side, seed 1, cfs rules" "$TMP/r.txt"
"$SR" tui --dump summary "$DB" >"$TMP/t.txt" 2>&1
ok "tui's summary marks the run simulated" grep -q "simulated base side, seed 1, cfs" "$TMP/t.txt"
"$SR" tui --dump summary --size 160x60 "$DB" >"$TMP/t2.txt" 2>&1
ok "tui's runs list tells the sides apart" \
	sh -c "grep -q 'run 2 .* simulated original side of newidle-bail\$' '$TMP/t2.txt' &&
		grep -q 'run 3 .* simulated patched side of newidle-bail\$' '$TMP/t2.txt'"
# the detail: the actual CPU is the simulator's choice, no match or MISS against a kernel
"$SR" tui --dump detail --all --select 1 --size 120x40 "$DB" >"$TMP/d.txt" 2>&1
ok "tui's detail of a simulated decision names the simulated machine" \
	grep -q "^model mainline .*(a simulated run: the simulated machine's own choice, not the kernel's)" "$TMP/d.txt"
ok "... and does not call it a match with the kernel" eval "! grep -q 'the kernel .*: a \(match\|MISS\)' '$TMP/d.txt'"

# an existing file: refused, replaced with -f, appended to with -a
sum=$(md5sum <"$DB")
"$SR" simulate -t "$F.topo" -o "$DB" "$F.dat" >/dev/null 2>"$TMP/e.err"
same "an existing DB is refused without -f or -a" "1" $?
ok "... with a message naming it" grep -q "'$DB' exists" "$TMP/e.err"
same "... and is left as it was" "$sum" "$(md5sum <"$DB")"
"$SR" simulate -o "$DB" "$TMP/no-such-trace.dat" >/dev/null 2>"$TMP/e.err"
ok "... refused before the trace is read (a missing trace is not what it says)" \
	sh -c "grep -q \"'$DB' exists\" '$TMP/e.err' && ! grep -q no-such-trace '$TMP/e.err'"
"$SR" simulate -f "$F.dat" >/dev/null 2>&1
same "--force without -o is a usage error" 2 $?

R=$TMP/replay.db
"$SR" replay -q -t "$F.topo" -o "$R" "$F.dat" 2>/dev/null
before=$(q "$R" "SELECT * FROM decision ORDER BY decision_id" | md5sum)
"$SR" simulate -t "$F.topo" -a -o "$R" "$F.dat" >/dev/null 2>"$TMP/a.err"
same "simulate -a adds to a replay's database" 0 $?
ok "... as run 2" grep -q "runs 2-2 (1 simulated side) appended to" "$TMP/a.err"
same "the replay's run stays a replay, the new one is simulated" "1|replay
2|simulate" "$(q "$R" "SELECT run_id, kind FROM run ORDER BY 1")"
same "the replay's decisions are untouched" "$before" \
	"$(q "$R" "SELECT * FROM decision WHERE run_id = 1 ORDER BY decision_id" | md5sum)"
same "decision ids stay unique" "0" \
	"$(q "$R" "SELECT count(*) - count(DISTINCT decision_id) FROM decision")"
"$SR" report -r 1 "$R" >"$TMP/r1.txt" 2>&1
ok "report does not call the replay simulated" sh -c "! grep -q simulated '$TMP/r1.txt'"

# a file written before run.kind existed: the append adds the columns, its run a replay
O=$TMP/old.db
"$SR" replay -q -t "$F.topo" -o "$O" "$F.dat" 2>/dev/null
sqlite3 "$O" "ALTER TABLE run DROP COLUMN kind; ALTER TABLE run DROP COLUMN variant;
	ALTER TABLE run DROP COLUMN seed; ALTER TABLE run DROP COLUMN fair"
"$SR" report -r 1 "$O" >/dev/null 2>"$TMP/old.err"
same "report reads a file without run.kind" "0:" "$?:$(cat "$TMP/old.err")"
"$SR" simulate -t "$F.topo" -a -o "$O" "$F.dat" >/dev/null 2>"$TMP/old.err"
same "simulate -a appends to it" "0" $?
same "its old run is a replay, the new one simulated" "1|replay|
2|simulate|base" "$(q "$O" "SELECT run_id, kind, variant FROM run ORDER BY 1")"

# the kernel generation as replay stores it, whole (6.12's text is 323
# bytes, longer than the 255 simulate's buffer held)
G=$FIX/tracedat/numa/numa-6.12-forks
"$SR" simulate -t "$G.topo" -o "$TMP/kg-s.db" "$G.dat" >/dev/null 2>&1
"$SR" replay -q -t "$G.topo" -o "$TMP/kg-r.db" "$G.dat"
same "run.kernel_gen of simulate is replay's" \
	"$(q "$TMP/kg-r.db" "SELECT length(kernel_gen) > 255, kernel_gen FROM run")" \
	"$(q "$TMP/kg-s.db" "SELECT DISTINCT length(kernel_gen) > 255, kernel_gen FROM run")"
# and --kernel's, as replay --kernel's (the option named as the source)
"$SR" simulate --kernel 6.1 -t "$G.topo" -o "$TMP/kg-s1.db" "$G.dat" >/dev/null 2>&1
"$SR" replay -q --kernel 6.1 -t "$G.topo" -o "$TMP/kg-r1.db" "$G.dat" 2>/dev/null
same "simulate --kernel: run.kernel_gen is replay --kernel's" \
	"$(q "$TMP/kg-r1.db" "SELECT kernel_gen FROM run")" \
	"$(q "$TMP/kg-s1.db" "SELECT DISTINCT kernel_gen FROM run")"
ok "simulate --kernel: run.kernel_gen names 6.1 from the option" \
	sh -c "q() { sqlite3 -batch -noheader \"\$1\" \"\$2\"; }; q '$TMP/kg-s1.db' 'SELECT kernel_gen FROM run' | grep -q '^6\.1'"

# a database that cannot be written: one line, exit 1, nothing left behind
"$SR" simulate -t "$F.topo" -o "$TMP/no/such/dir/x.db" "$F.dat" >/dev/null 2>"$TMP/w.err"
same "an unwritable DB path exits 1" 1 $?
same "... with one line" 1 "$(wc -l <"$TMP/w.err")"
ok "... naming the file" grep -q "$TMP/no/such/dir/x.db" "$TMP/w.err"

test_done
