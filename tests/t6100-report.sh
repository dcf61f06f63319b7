#!/bin/bash
# schedreplay report: golden text and JSON outputs of databases replayed from
# the committed real traces (patches that diverge, two runs in one file, no
# patches, no decisions, two databases side by side), numbers of the report
# against direct sqlite3 queries, the --print-sql statements run by the
# sqlite3 CLI, and one-line errors for bad databases and runs.
. "$(dirname "$0")/test-lib.sh"

cd "$TOP" || exit 1
command -v sqlite3 >/dev/null || skip_all "no sqlite3 CLI"
DB=$TMP/db
SR="$SR" GOLDEN_OUT="$TMP/now" REPORT_DBS="$DB" tests/update-golden-report.sh \
	>/dev/null 2>"$TMP/gen"
same "the databases and reports are made" 0 $?
for g in tests/fixtures/golden/report/*; do
	n=$(basename "$g")
	if cmp -s "$g" "$TMP/now/$n"; then
		pass "$n as recorded"
	else
		fail "$n as recorded" "$(cat "$TMP/gen"; diff "$g" "$TMP/now/$n" | head -n 20)"
	fi
done
for j in "$TMP"/now/*.json; do
	same "$(basename "$j") is valid JSON" 1 \
		"$(sqlite3 :memory: "SELECT json_valid(readfile('$j'))")"
done
ok "no temp path in the outputs" sh -c "! grep -rq '$TMP' '$TMP/now'"

# the report's numbers against the database
q() {
	sqlite3 "$DB/$1" "$2"
}
cd "$DB" || exit 1
"$SR" report pingpong.db >"$TMP/pp.txt"
row=$(awk '$1 == "exit-sync-mel" && $2 == "mainline" && $3 == "wakeup"' "$TMP/pp.txt")
set -- $row
same "divergent count of exit-sync-mel/mainline is the divergence view's" \
	"$(q pingpong.db "SELECT count(*) FROM divergence WHERE patch = 'exit-sync-mel'
		AND model = 'mainline' AND original_cpu IS NOT patched_cpu")" "${5:-}"
same "migrations avoided by exit-sync-mel/mainline" \
	"$(q pingpong.db "SELECT count(*) FROM divergence WHERE patch = 'exit-sync-mel'
		AND model = 'mainline' AND original_cpu IS NOT patched_cpu
		AND original_cpu IS NOT prev_cpu AND patched_cpu IS prev_cpu")" "${12:-}"
same "fidelity n of v4.15 wakeups is the wakeup placements" \
	"$(q pingpong.db "SELECT count(*) FROM decision WHERE run_id = 1 AND kind = 'wakeup'
		AND skip IS NULL")" \
	"$(awk '$1 == "v4.15" && $2 == "wakeup" { print $3 }' "$TMP/pp.txt")"
same "all migrations are the migration table's" \
	"$(q pingpong.db "SELECT count(*) FROM migration WHERE run_id = 1")" \
	"$(awk '/^migrations by class/ { m = 1 } m && $1 == "all" { print $2; exit }' "$TMP/pp.txt")"
# the reconciled table: each kind and the sum as the database has them, the
# JSON the same; a file written before the table existed reports none
same "reconciled: every kind and the sum are the reconciled table's" \
	"$(q pingpong.db "SELECT kind || ' ' || n FROM reconciled WHERE run_id = 1 ORDER BY rowid;
		SELECT 'all ' || sum(n) FROM reconciled WHERE run_id = 1")" \
	"$(awk '/^engine state reconciled/ { m = 1; next } m && /^$/ { exit }
		m && NF == 3 && $2 ~ /^[0-9]+$/ { print $1, $2 }' "$TMP/pp.txt")"
"$SR" report --json pingpong.db >"$TMP/pp.json"
same "reconciled in JSON: the sum of the kinds" \
	"$(q pingpong.db "SELECT sum(n) FROM reconciled WHERE run_id = 1")" \
	"$(sqlite3 :memory: "SELECT j.value -> 'values' -> 0 ->> 'n' FROM
		json_each(readfile('$TMP/pp.json') -> 'reports' -> 0 -> 'reconciled') j
		WHERE j.value ->> 'kind' = 'all'")"
cp pingpong.db old.db
sqlite3 old.db "DROP TABLE reconciled"
"$SR" report old.db >"$TMP/old.txt" 2>&1
same "a file without the reconciled table: report works" 0 $?
same "a file without the reconciled table: the table says none" "none" \
	"$(awk '/^engine state reconciled/ { m = 1; next } m && /^$/ { exit } m { l = $1 } END { print l }' "$TMP/old.txt")"
rm -f old.db
# the report's top tables and patch migrations are the canned queries' rows
"$SR" report --json --run 1 two-runs.db >"$TMP/tr.json"
for t in top_tasks:top-tasks:tid top_cpus:top-cpus:cpu; do
	tab=${t%%:*} rest=${t#*:}
	query=${rest%%:*} key=${rest#*:}
	same "report's $tab is sql -Q $query (key, evaluated, divergent, divergences)" \
		"$("$SR" sql -F csv -Q "$query" -r 1 -P limit=10 two-runs.db |
			sqlite3 :memory: ".import --csv /dev/stdin t" "SELECT $key || ' ' ||
			evaluated || ' ' || divergent || ' ' || divergences FROM t" 2>&1)" \
		"$(sqlite3 :memory: "SELECT j.value ->> '$key' || ' ' ||
			(j.value -> 'values' -> 0 ->> 'evaluated') || ' ' ||
			(j.value -> 'values' -> 0 ->> 'divergent') || ' ' ||
			(j.value -> 'values' -> 0 ->> 'divergences')
			FROM json_each(readfile('$TMP/tr.json') -> '\$.reports[0].$tab') j")"
done
same "report's mig+/mig- columns are sql -Q migrations" \
	"$("$SR" sql -F csv -Q migrations -r 1 two-runs.db |
		sqlite3 :memory: ".import --csv /dev/stdin t" "SELECT patch || ' ' || kind || ' ' ||
		migrations_added || ' ' || migrations_avoided FROM t
		WHERE migrations_added + migrations_avoided > 0 ORDER BY 1" 2>&1)" \
	"$(sqlite3 :memory: "SELECT j.value ->> 'patch' || ' ' || (j.value ->> 'kind') || ' ' ||
		(j.value -> 'values' -> 0 ->> 'migrations_added') || ' ' ||
		(j.value -> 'values' -> 0 ->> 'migrations_avoided')
		FROM json_each(readfile('$TMP/tr.json') -> '\$.reports[0].patch_pairs') j
		WHERE (j.value -> 'values' -> 0 ->> 'migrations_added') +
		(j.value -> 'values' -> 0 ->> 'migrations_avoided') > 0 ORDER BY 1")"
# a pair whose kernel side matches the kernel less often is no verdict: said
# next to the figure, in the report and the TUI summary.  newidle-bail is in
# 6.12; since the engine reconciles with the kernel's newidle pulls its sides
# no longer diverge on this trace, so one divergence where the original side
# matches is written into the database (the report reads only the database)
N=$TOP/tests/fixtures/tracedat/numa
"$SR" replay -q -o nb.db -p newidle-bail -t $N/numa-6.12-forks-pelt.topo \
	$N/numa-6.12-forks-pelt.dat
sqlite3 nb.db "
CREATE TEMP TABLE pick AS
SELECT d.decision_id AS id, d.actual_cpu AS cpu,
       (SELECT side_id FROM side WHERE patch = 'newidle-bail' AND variant = 'original') AS so,
       (SELECT side_id FROM side WHERE patch = 'newidle-bail' AND variant = 'patched') AS sp
FROM decision d JOIN evaluation e ON e.decision_id = d.decision_id
WHERE d.kind = 'balance_newidle' AND d.actual_cpu IS NOT NULL AND e.cpu IS d.actual_cpu
  AND e.side_id = (SELECT side_id FROM side WHERE patch = 'newidle-bail' AND variant = 'original')
ORDER BY d.decision_id LIMIT 1;
INSERT OR REPLACE INTO eval_row SELECT id, sp, (cpu + 1) % 4,
 (SELECT reason_id FROM evaluation e WHERE e.decision_id = id AND e.side_id = sp) FROM pick;
INSERT INTO diverged SELECT id, so FROM pick;
UPDATE patch_summary SET divergent = 1, original_exact = 1, patched_exact = 0
 WHERE patch = 'newidle-bail' AND kind = 'balance_newidle';"
"$SR" report nb.db >"$TMP/nb.txt"
ok "report marks the newidle-bail row whose kernel side matches less" \
	grep -q '^  newidle-bail mainline balance_newidle .*<- note 1$' "$TMP/nb.txt"
ok "... and says why under the table" sh -c "tr -s ' \n' ' ' <'$TMP/nb.txt' | grep -q 'note 1: newidle-bail mainline balance_newidle: model error likely: the kernel (6.12.117+deb12-amd64) runs the patched side (in kernels since 6.0), yet that side matches it less often (0 of 1 '"
"$SR" report --json nb.db >"$TMP/nb.json"
same "report --json has the note" "patch_pairs 0 1" \
	"$(sqlite3 :memory: "SELECT n.value ->> 'table' || ' ' || (n.value ->> 'source') || ' ' ||
		(instr(n.value ->> 'text', ': model error likely: ') > 0) FROM json_each(readfile('$TMP/nb.json') -> '\$.reports[0].notes') n")"
ok "report names the topology's source" grep -q '^  topology     file .*numa-6.12-forks-pelt.topo$' "$TMP/nb.txt"
"$SR" tui --dump summary --size 100x80 nb.db >"$TMP/nbs.txt"
ok "the TUI summary says it under the row" sh -c "grep -A1 '^  newidle-bail .* 1  *1.39%' '$TMP/nbs.txt' | grep -q '^    ^ model error likely'"
ok "the TUI summary names the topology's source" grep -q '^  topology  file ' "$TMP/nbs.txt"
"$SR" report --run 2 two-runs.db >"$TMP/r2.txt"
same "--run 2 reports the second run's decisions" \
	"$(q two-runs.db "SELECT count(*) FROM decision WHERE run_id = 2")" \
	"$(awk '$1 == "decisions" { print $2 }' "$TMP/r2.txt")"
ok "--run 2 is the appended trace" grep -q 'numa-6.12-pingpong.dat' "$TMP/r2.txt"
"$SR" report --top 3 --run 2 two-runs.db >"$TMP/r2top.txt"
ok "--run 2 is the second run of the default output" \
	sh -c "sed -n '/^run 2 of/,\$p' '$TMP/now/two-runs.txt' | cmp -s - '$TMP/r2top.txt'"
ok "comparison: the row only one side has shows -" \
	grep -q '^  wake-affine-equal mainline wakeup  decisions  *1301  *-$' "$TMP/now/compare.txt"
# a long text (the generation, a path) does not widen the number columns:
# the second run's goes on a line of its own
ok "comparison: numbers stay in narrow columns beside long texts" \
	grep -q '^  CPUs  *4  *4 (  0.00%)$' "$TMP/now/compare.txt"
ok "... the header's number rows are short" \
	sh -c "awk '/^  (CPUs|events|decisions) / && length(\$0) > 60 { bad = 1 } END { exit bad }' '$TMP/now/compare.txt'"
ok "... a long text's second value on the next line" \
	sh -c "grep -A1 '^  trace ' '$TMP/now/compare.txt' | tail -1 | grep -q '^              tests/fixtures/tracedat/numa/numa-6.12-pingpong.dat$'"
ok "no patches: one line" grep -qx 'no patch pairs in this run: .*' "$TMP/now/no-patch.txt"
ok "no decisions: says so" grep -qx 'empty.db run 1: no decisions' "$TMP/now/empty.txt"

# the same statements through the sqlite3 CLI
{
	printf '.parameter set :run 1\n.parameter set :top 10\n.parameter set :reasons 5\n'
	printf '.parameter set :limit 10\n'
	"$SR" report --print-sql
} >"$TMP/q.sql"
sqlite3 pingpong.db <"$TMP/q.sql" >"$TMP/q.out" 2>"$TMP/q.err"
same "--print-sql statements run in sqlite3" "0:" "$?:$(cat "$TMP/q.err")"
ok "... and give the exit-sync-mel row" grep -qx 'exit-sync-mel|mainline|wakeup|1301|1|0|1' "$TMP/q.out"
ok "the report binds its values" sh -c "! grep -q \"run_id = [0-9]\" '$TMP/q.sql'"

# bad inputs: one line, the file named
bad() {
	local desc=$1 want=$2 pattern=$3
	shift 3
	"$SR" report "$@" >"$TMP/o" 2>"$TMP/e"
	local rc=$?
	same "$desc: exit $want" "$want" "$rc"
	if [ "$want" = 1 ]; then
		ok "$desc: one line" sh -c "[ \$(wc -l <'$TMP/e') -eq 1 ] && grep -q -- \"$pattern\" '$TMP/e'"
	else
		ok "$desc: says why" grep -q -- "$pattern" "$TMP/e"
	fi
	ok "$desc: nothing on stdout" test ! -s "$TMP/o"
}
echo "not a database" >"$TMP/text.db"
sqlite3 "$TMP/foreign.db" "CREATE TABLE t (x); INSERT INTO t VALUES (1)"
sqlite3 "$TMP/schema1.db" "CREATE TABLE decision (decision_id INTEGER PRIMARY KEY);
	PRAGMA user_version = 1"
bad "missing file" 1 "cannot open 'nosuch.db'" nosuch.db
bad "not a database" 1 "'$TMP/text.db' is not a schedreplay database" "$TMP/text.db"
bad "foreign SQLite file" 1 "'$TMP/foreign.db' is an SQLite database, but not one" "$TMP/foreign.db"
bad "schema-1 database" 1 "'$TMP/schema1.db' is a schedreplay database of schema 1" "$TMP/schema1.db"
bad "missing second database" 1 "cannot open 'nosuch.db'" pingpong.db nosuch.db
bad "a run that does not exist" 1 "'two-runs.db' has no run 3" --run 3 two-runs.db
bad "--run2 that does not exist" 1 "'pingpong.db' has no run 2" --run2 2 two-runs.db pingpong.db
bad "--run not a number" 2 "--run wants a whole number" --run x pingpong.db
bad "no database" 2 "expected DB \[DB2\]"
bad "three databases" 2 "expected DB \[DB2\]" pingpong.db pingpong.db pingpong.db
bad "--run2 without DB2" 2 "--run2 needs a second database" --run2 1 pingpong.db
"$SR" report pingpong.db ./pingpong.db >"$TMP/o" 2>"$TMP/e"
ok "one run given twice: still a report" test -s "$TMP/o"
ok "one run given twice: a warning names the run and the file" \
	grep -q "warning: report: both sides are run 1 of 'pingpong.db': every delta is 0" "$TMP/e"
"$SR" report --run 1 --run2 2 two-runs.db two-runs.db >/dev/null 2>"$TMP/e"
ok "two runs of one file: no such warning" test ! -s "$TMP/e"
bad "unknown option" 2 "unknown or incomplete option '--bogus'" --bogus pingpong.db
test_done
