#!/bin/bash
# The why-view: what replay -o stores of the inputs that decided
# (sched_domain, decision_input, group_stat: schedreplay-db(5)), checked
# against the reasons the models wrote with them, and how the TUI's detail
# shows them (tui --dump detail, --decision, the miss and div filters, the
# run and wait timeline), also in tmux with the detail's n, p and # keys.
# Databases come from committed real traces and scenarios, made here.
. "$(dirname "$0")/test-lib.sh"

N=tests/fixtures/tracedat/numa
S=tests/fixtures/scenario
cd "$TOP" || exit 1
command -v sqlite3 >/dev/null || skip_all "no sqlite3"
q() {
	sqlite3 "$1" "$2"
}

# v4.15 and three wakeup pairs on the 6.12 forks trace (as t7000), and
# mainline alone on the 6.1 forks trace: its fork misses take the slow path
DB=$TMP/forks.db
"$SR" replay -q -o "$DB" -m v4.15 -t $N/numa-6.12-forks.topo -p wake-affine-equal \
	-p exit-sync-mel -p exit-sync-peterz $N/numa-6.12-forks.dat ||
	skip_all "cannot replay the fixture"
F=$TMP/forks61.db
"$SR" replay -q -o "$F" -t $N/numa-6.1-forks.topo $N/numa-6.1-forks.dat
# pinned hogs: newly idle balances that find a busiest group
H=$TMP/hogs.db
"$SR" replay -q -o "$H" -t $N/numa-6.1-pinnedhogs.topo -p newidle-bail $N/numa-6.1-pinnedhogs.dat

# --- what is stored ---------------------------------------------------------
same "a fork's child PELT is the kernel's start, not a warm-up guess" 0 \
	"$(q "$F" "SELECT count(*) FROM decision_input i JOIN decision d USING (decision_id)
		WHERE d.kind = 'fork' AND i.pelt_source LIKE '%warm-up%'")"
ok "... on forks that are there" test "$(q "$F" "SELECT count(*) FROM decision_input i
	JOIN decision d USING (decision_id) WHERE d.kind = 'fork'")" -gt 0
same "sched_domain: every CPU's levels (4 CPUs, MC and NUMA)" "8 4" \
	"$(q "$DB" "SELECT count(*) || ' ' || count(DISTINCT cpu) FROM sched_domain")"
same "... MC shares the LLC, NUMA is NUMA, with v4.15's imbalance_pct" \
	"MC|0-1|117|1 NUMA|0-3|125|1" \
	"$(q "$DB" "SELECT name, span, imbalance_pct, instr(flag_names, CASE name WHEN 'MC' THEN 'SHARE_LLC' ELSE '|NUMA|' END) > 0 FROM sched_domain WHERE cpu = 0 ORDER BY level" | paste -sd' ')"
same "... and mainline's" "117 117" \
	"$(q "$F" "SELECT imbalance_pct FROM sched_domain WHERE cpu = 0 ORDER BY level" | paste -sd' ')"
# a row exactly where the base model missed a placement or a pair diverged
for db in "$DB" "$F"; do
	n=$(basename "$db")
	same "$n: decision_input rows = the placements missed or diverged" \
		"$(q "$db" "SELECT d.decision_id FROM decision d JOIN eval_row e ON e.decision_id = d.decision_id
			JOIN side s ON s.side_id = e.side_id AND s.variant = 'base'
			WHERE d.kind IN ('wakeup', 'fork') AND (e.cpu IS NOT d.actual_cpu OR d.decision_id IN (SELECT decision_id FROM diverged))
			ORDER BY 1" | md5sum)" \
		"$(q "$db" "SELECT i.decision_id FROM decision_input i JOIN decision d USING (decision_id)
			WHERE d.kind IN ('wakeup', 'fork') ORDER BY 1" | md5sum)"
	same "$n: and every balance decision missed has one" 0 \
		"$(q "$db" "SELECT count(*) FROM decision d JOIN eval_row e ON e.decision_id = d.decision_id
			JOIN side s ON s.side_id = e.side_id AND s.variant = 'base'
			WHERE d.kind NOT IN ('wakeup', 'fork') AND e.cpu IS NOT d.actual_cpu
			AND d.decision_id NOT IN (SELECT decision_id FROM decision_input)")"
done
ok "a fork miss took the slow path somewhere" test \
	"$(q "$F" "SELECT count(*) FROM group_stat g JOIN decision d USING (decision_id) WHERE d.kind = 'fork'")" -gt 0

# wake_wide: the stored flips and factor give the verdict the base model wrote
bad=$(q "$DB" "SELECT count(*) FROM decision_input i JOIN eval_row e USING (decision_id)
	JOIN side s ON s.side_id = e.side_id AND s.variant = 'base' JOIN reason r USING (reason_id)
	JOIN decision d USING (decision_id) WHERE d.kind = 'wakeup' AND
	((r.text LIKE 'wake_wide%') <> (min(i.wakee_flips, coalesce(i.waker_flips, 0)) >= i.wake_wide_factor
	  AND max(i.wakee_flips, coalesce(i.waker_flips, 0)) >= min(i.wakee_flips, coalesce(i.waker_flips, 0)) * i.wake_wide_factor))")
same "wake_wide's verdict follows from the stored flips and factor" 0 "$bad"
ok "... at some wakeups" test "$(q "$DB" "SELECT count(*) FROM decision_input i JOIN decision d USING (decision_id) WHERE d.kind = 'wakeup'")" -gt 0

# wake_affine_weight: "weight: this X op prev Y" is the stored loads' arithmetic
# (this_load [- waker_load] + task_load) * 100 * capacity, (prev_load - task_load) * (100 + (pct - 100) / 2) * capacity
weights() {
	q "$1" "SELECT r.text, i.this_load, i.prev_load, i.task_load, coalesce(i.waker_load, 0), d.sync,
		ct.capacity, cp.capacity, sd.imbalance_pct
		FROM decision_input i JOIN decision d USING (decision_id)
		JOIN eval_row e ON e.decision_id = d.decision_id JOIN side s ON s.side_id = e.side_id AND s.variant = 'base'
		JOIN reason r ON r.reason_id = e.reason_id
		JOIN cpu ct ON ct.run_id = d.run_id AND ct.cpu = d.this_cpu
		JOIN cpu cp ON cp.run_id = d.run_id AND cp.cpu = d.prev_cpu
		JOIN sched_domain sd ON sd.run_id = d.run_id AND sd.cpu = d.this_cpu
		AND instr(r.text, 'affine ' || sd.name || ' >') > 0
		WHERE r.text LIKE '%weight: this %'" |
	awk -F'|' '{
		match($1, /weight: this -?[0-9]+ [<>=]+ prev -?[0-9]+/); split(substr($1, RSTART, RLENGTH), w, " ")
		x = w[3]; op = w[4]; y = w[6]; strict = (op == "<" || op == ">=")
		tx = ($2 - ($6 ? $5 : 0) + $4) * 100 * $8
		ty = ($3 - $4) * (100 + int(($9 - 100) / 2)) * $7 + ($6 && strict)
		n++; if (tx != x || ty != y) { bad++; print "# " $0 " -> " tx " " ty > "/dev/stderr" }
	} END { print n + 0, bad + 0 }'
}
for db in "$DB" "$TMP/forks-mainline.db"; do
	[ "$db" = "$DB" ] || "$SR" replay -q -o "$db" -t $N/numa-6.12-forks.topo -p exit-sync-mel \
		$N/numa-6.12-forks.dat
	set -- $(weights "$db" 2>"$TMP/werr")
	ok "$(basename "$db"): weight comparisons recomputed from the stored loads ($1)" test "${1:-0}" -gt 0
	same "... every one the same numbers" 0 "${2:-x}"
done

# the groups: a fork that went to an idlest group went to a picked one
bad=$(q "$F" "SELECT count(*) FROM decision_input i JOIN decision d USING (decision_id)
	JOIN eval_row e ON e.decision_id = d.decision_id JOIN side s ON s.side_id = e.side_id AND s.variant = 'base'
	JOIN reason r ON r.reason_id = e.reason_id
	WHERE d.kind = 'fork' AND r.text LIKE 'fork > NUMA: idlest group%'
	AND NOT EXISTS (SELECT 1 FROM group_stat g WHERE g.decision_id = d.decision_id AND g.call = 0
		AND g.picked AND g.fn = 'find_idlest_group' AND e.cpu BETWEEN g.first_cpu AND g.first_cpu + g.weight - 1)")
same "fork: 'NUMA: idlest group, cpu N' has N in the picked group" 0 "$bad"
bad=$(q "$F" "SELECT count(*) FROM decision_input i JOIN decision d USING (decision_id)
	JOIN eval_row e ON e.decision_id = d.decision_id JOIN side s ON s.side_id = e.side_id AND s.variant = 'base'
	JOIN reason r ON r.reason_id = e.reason_id
	WHERE d.kind = 'fork' AND r.text LIKE 'fork > NUMA: local%'
	AND EXISTS (SELECT 1 FROM group_stat g WHERE g.decision_id = d.decision_id AND g.call = 0 AND g.picked)")
same "fork: 'NUMA: local' picked no group" 0 "$bad"
same "fork: one local group per call" 0 \
	"$(q "$F" "SELECT count(*) FROM (SELECT decision_id, call FROM group_stat GROUP BY 1, 2 HAVING sum(local) <> 1)")"
bad=$(q "$F" "SELECT count(*) FROM decision_input i JOIN decision d USING (decision_id)
	JOIN eval_row e ON e.decision_id = d.decision_id JOIN side s ON s.side_id = e.side_id AND s.variant = 'base'
	JOIN reason r ON r.reason_id = e.reason_id
	WHERE r.text LIKE 'newidle > MC: busiest cpu %' AND NOT EXISTS (SELECT 1 FROM group_stat g
		WHERE g.decision_id = d.decision_id AND g.call = 0 AND g.picked AND g.fn = 'find_busiest_group'
		AND CAST(substr(r.text, 26) AS INTEGER) BETWEEN g.first_cpu AND g.first_cpu + g.weight - 1)")
ok "balance: busiest groups stored" test "$(q "$F" "SELECT count(*) FROM group_stat WHERE fn = 'find_busiest_group' AND picked")" -gt 0
same "balance: 'MC: busiest cpu N' has N in the picked group" 0 "$bad"

# --- the detail ---------------------------------------------------------------
"$SR" tui --dump detail --decision '#6320' --size 160x120 "$DB" >"$TMP/d" 2>"$TMP/e"
same "--decision #ID: the detail of that decision" \
	"decision 6320: wakeup at 8.716743 s (ts 32746529931), model v4.15, patch exit-sync-mel" \
	"$(sed -n 2p "$TMP/d")"
ok "wake_flags as flags" grep -q '^wake_flags 0x18 (TTWU|SYNC) ' "$TMP/d"
ok "the base model's CPU is marked, and the miss said" grep -q '^model v4.15 chose 0, the kernel 2: a MISS$' "$TMP/d"
ok "... B on its CPU" grep -q '^     cpu   0 T  BO ' "$TMP/d"
ok "wake_wide's inputs and verdict" grep -q '^    smaller 0 < factor 2, larger 2 >= 0 x 2: not wide$' "$TMP/d"
ok "the task's PELT signal and its source" grep -q '^  task PELT (engine, warm-up): load 0, util 0, runnable 0' "$TMP/d"
ok "the domains with flags and imbalance_pct" \
	grep -q '^    NUMA level 1  cpus 0-3 (4)  imbalance_pct 125  flags 0x697 ' "$TMP/d"
ok "where the pair's paths split" \
	grep -q '^      ^ the paths split at token 3: original "sync, waker alone", patched "sync, waker alone, exiting, no shared LLC"$' "$TMP/d"
ok "what a weight figure is" \
	grep -q '^        this 102400 = (cpu_load(0) 1 + task load 0) x 100 x capacity(2) 1024$' "$TMP/d"
ok "... checked against the inputs" grep -q 'not taken as sync, as the stored inputs give them' "$TMP/d"
for w in 'ts 32746529931' 32746529931 8.716743 6320 'id 6320'; do
	"$SR" tui --dump detail --decision "$w" --size 100x5 "$DB" >"$TMP/o"
	same "--decision '$w'" "decision 6320: wakeup at 8.716743 s (ts 32746529931), model v4.15, patch exit-sync-mel" \
		"$(sed -n 2p "$TMP/o")"
done
"$SR" tui --dump detail --decision 'ts 32746529932' --size 100x5 "$DB" >"$TMP/o"
ok "--decision 'ts N': the first decision at or after it" sh -c "sed -n 2p '$TMP/o' | grep -q '^decision 6321: '"
"$SR" tui --dump detail --decision 'x1' "$DB" >/dev/null 2>"$TMP/e"
same "--decision: a bad value exits 1" 1 $?
same "... in one line" "schedreplay: tui: '$DB': go to 'x1': expected a decision id (#N), a timestamp in ns (ts N) or seconds like 1.5" \
	"$(cat "$TMP/e")"
"$SR" tui --dump detail --decision '#999999' "$DB" >/dev/null 2>"$TMP/e"
same "--decision: no such id" "1 schedreplay: tui: '$DB': no decision 999999 in this database" "$? $(cat "$TMP/e")"

# a fork miss: the groups find_idlest_group compared, with their numbers
id=$(q "$F" "SELECT d.decision_id FROM decision d JOIN eval_row e USING (decision_id) JOIN reason r USING (reason_id)
	WHERE d.kind = 'fork' AND e.cpu IS NOT d.actual_cpu AND r.text LIKE 'fork > NUMA: idlest group%' ORDER BY 1 LIMIT 1")
"$SR" tui --dump detail --decision "#$id" --size 120x80 "$F" >"$TMP/f"
ok "fork miss: find_idlest_group at NUMA" grep -q '^  find_idlest_group on cpu [0-3], NUMA (imbalance_pct 117): ' "$TMP/f"
want=$(q "$F" "SELECT printf('    IDLEST  cpus %-5s %-10s nr %d  idle %d  load %d  avg %d  util %d  runnable %d',
	sd.span, g.type, g.nr_running, g.idle_cpus, g.load, g.avg_load, g.util, g.runnable)
	FROM group_stat g JOIN sched_domain sd ON sd.run_id = 1 AND sd.cpu = g.first_cpu AND sd.level = g.level - 1
	WHERE g.decision_id = $id AND g.call = 0 AND g.picked")
ok "... the idlest group's line is group_stat's row" grep -qxF -- "$want" "$TMP/f"
ok "... and the local group's" grep -q '^    local   cpus ' "$TMP/f"
# a balance: find_busiest_group's groups (numa-6.1-forks: the pinnedhogs fixture's one such
# decision was a newly idle pull evaluated as periodic, now newidle > no overload)
id=$(q "$F" "SELECT decision_id FROM group_stat WHERE fn = 'find_busiest_group' AND picked ORDER BY 1 LIMIT 1")
"$SR" tui --dump detail --decision "#$id" --size 120x80 "$F" >"$TMP/b"
ok "balance: find_busiest_group's groups, loads in weight" \
	grep -q '^  find_busiest_group on cpu [0-3], MC (imbalance_pct 117): load = queued CFS weight' "$TMP/b"
ok "... the busiest marked" grep -q '^    BUSIEST cpus [0-3] ' "$TMP/b"

# the timeline: the woken task's run slice on the CPU it ran on (sched_slice)
set -- $(q "$DB" "SELECT cpu || ' ' || (ts - (SELECT ts FROM decision WHERE decision_id = 6320)) FROM sched_slice WHERE decision_id = 6320")
ok "timeline: the woken task ran within the window" test "${2:-999999999}" -lt 500000
grep -A1 "^  cpu   $1 " "$TMP/d" | tail -n 1 >"$TMP/run"
ok "... its run row on cpu ${1:-?} shows it (*)" grep -q '^     run  .*\*' "$TMP/run"
same "... a run row per CPU" 4 "$(grep -c '^     run' "$TMP/d")"
# its wait, alone on that CPU in the window: the columns [ts - delay, ts) covers
# (160 columns: 101 of 1000000 / 101 + 1 ns from the decision's ts - 500 us)
want=$(q "$DB" "SELECT ((s.ts - 1 - (d.ts - 500000)) / 9901) - ((s.ts - s.delay - (d.ts - 500000)) / 9901) + 1
	FROM sched_slice s JOIN decision d ON d.decision_id = s.decision_id WHERE s.decision_id = 6320")
same "... only its wait is on that CPU in the window" 1 \
	"$(q "$DB" "SELECT count(*) FROM sched_slice WHERE queue_cpu = $1 AND delay IS NOT NULL AND ts - delay < 32746529931 + 500000 AND ts > 32746529931 - 500000")"
same "... and its wait row covers the columns of its delay ($want)" "$want" \
	"$(grep -A2 "^  cpu   $1 " "$TMP/d" | sed -n 's/^     wait  *//p' | tr -cd '1-9+' | wc -c)"

# a decision without stored inputs, and a database from before the tables
"$SR" tui --dump detail --all --select 2 --size 100x60 "$DB" >"$TMP/o"
ok "no inputs stored where nothing missed" grep -q '^inputs that decided: not stored for this decision$' "$TMP/o"
cp "$DB" "$TMP/old.db"
q "$TMP/old.db" "DROP TABLE decision_input; DROP TABLE group_stat; DROP TABLE sched_domain"
"$SR" tui --dump detail --size 100x60 "$TMP/old.db" >"$TMP/o" 2>"$TMP/e"
same "an older database: the detail still opens" 0 $?
ok "... and says the inputs are not in it" grep -q '^inputs that decided: not in this database$' "$TMP/o"
ok "... its views read as before" test "$(q "$TMP/old.db" "SELECT count(*) FROM divergence_estimate")" -eq 3
"$SR" replay -q -a -o "$TMP/old.db" -t $N/numa-6.12-forks.topo -p exit-sync-mel $N/numa-6.12-forks.dat
same "an append adds the tables, with the new run's rows only" "1 2 2" \
	"$(q "$TMP/old.db" "SELECT count(DISTINCT run_id) || ' ' || min(run_id) FROM sched_domain") $(q "$TMP/old.db" "SELECT min(run_id) FROM decision_input JOIN decision USING (decision_id)")"

# --- filters ---------------------------------------------------------------------
# rows of a list: its CSV export, less the header
rows() {
	"$SR" tui --dump csv "$@" | tail -n +2 | wc -l
}
same "miss=yes: the decisions the base model missed" \
	"$(q "$F" "SELECT count(*) FROM decision d JOIN eval_row e USING (decision_id) WHERE e.cpu IS NOT d.actual_cpu")" \
	"$(rows --all --filter miss=yes "$F")"
same "miss=no: those it placed as the kernel did" \
	"$(q "$F" "SELECT count(*) FROM decision d JOIN eval_row e USING (decision_id) WHERE e.cpu IS d.actual_cpu")" \
	"$(rows --all --filter miss=no "$F")"
same "miss=yes in the divergence list" \
	"$(q "$DB" "SELECT count(*) FROM divergence v JOIN eval_row e ON e.decision_id = v.decision_id AND e.side_id = 1 WHERE e.cpu IS NOT v.actual_cpu")" \
	"$(rows --filter miss=yes "$DB")"
same "div=yes: the decisions where a pair diverged" \
	"$(q "$DB" "SELECT count(DISTINCT decision_id) FROM diverged")" "$(rows --all --filter div=yes "$DB")"
same "div=no miss=yes: the misses no pair changed" \
	"$(q "$DB" "SELECT count(*) FROM decision d JOIN eval_row e ON e.decision_id = d.decision_id AND e.side_id = 1 WHERE d.kind = 'wakeup' AND e.cpu IS NOT d.actual_cpu AND d.decision_id NOT IN (SELECT decision_id FROM diverged)")" \
	"$(rows --all --filter 'div=no kind=wakeup miss=yes' "$DB")"
"$SR" tui --dump list --filter miss=maybe "$DB" >/dev/null 2>"$TMP/e"
same "miss=maybe: exit 2" "2 schedreplay: tui: filter 'miss=maybe': expected yes or no" "$? $(cat "$TMP/e")"
same "the SQL of miss=yes div=no gives the list's rows" "$(rows --all --filter 'miss=yes div=no' "$DB")" \
	"$("$SR" tui --dump sql --all --filter 'miss=yes div=no' "$DB" | sqlite3 "$DB" | wc -l)"
ok "... some" test "$(rows --all --filter 'miss=yes div=no' "$DB")" -gt 0

# --- in tmux ------------------------------------------------------------------------
if ! command -v tmux >/dev/null; then
	skip "the why-view in tmux" "no tmux"
	test_done
	exit
fi
. "$TOP/tests/lib/tmux.sh"
if ! tmux_setup sr-why; then
	skip "the why-view in tmux" "$TMUX_WHY"
	test_done
	exit
fi
tm new-session -d -s t -x 100 -y 30 "$SR tui --all --filter 'kind=fork miss=yes' $F; sleep 30"
ok "the misses listed" wait_for "fork > NUMA"
ids=$(q "$F" "SELECT d.decision_id FROM decision d JOIN eval_row e USING (decision_id) WHERE d.kind = 'fork' AND e.cpu IS NOT d.actual_cpu ORDER BY d.ts, d.decision_id LIMIT 2")
first=$(echo "$ids" | sed -n 1p) second=$(echo "$ids" | sed -n 2p)
tm send-keys -t t Enter
ok "Enter: the first miss's detail" wait_for "^decision $first: fork"
ok "... a miss" wait_for ': a MISS'
tm send-keys -t t n
ok "n: the next miss of the list" wait_for "^decision $second: fork"
tm send-keys -t t p
ok "p: back to the first" wait_for "^decision $first: fork"
ok "the inputs that decided" wait_for '^inputs that decided (as mainline read them)'
tm send-keys -t t C-f
ok "paging down: the groups compared" wait_for '^  find_idlest_group on cpu '
tm send-keys -t t '#'
ok "#: asks where to go" wait_for '^go to (#id, ts NS or seconds): '
tm send-keys -t t '#6' Enter
ok "... and goes to that decision" wait_for '^decision 6: '
tm send-keys -t t n
ok "n after a go-to: the next decision of the run in time" \
	wait_for "^decision $(q "$F" "SELECT decision_id FROM decision WHERE ts > (SELECT ts FROM decision WHERE decision_id = 6) OR (ts = (SELECT ts FROM decision WHERE decision_id = 6) AND decision_id > 6) ORDER BY ts, decision_id LIMIT 1"): "
tm send-keys -t t q q
tm kill-server 2>/dev/null

test_done
