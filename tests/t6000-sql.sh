#!/bin/bash
# schedreplay sql: the canned queries against goldens on a database of three
# real runs, the three output formats, parameters bound (never pasted into
# the SQL), read-only opening, and the one-line errors.
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIR/lib/sql-golden.sh"

cd "$TOP" || exit 1
DB=$TMP/golden.db
if ! sql_golden_db "$SR" "$DB" 2>"$TMP/e"; then
	fail "three runs replayed into one database" "$(cat "$TMP/e")"
	test_done
	exit 1
fi
same "the database passes integrity_check" ok "$(sqlite3 "$DB" 'PRAGMA integrity_check')"
same "three runs in the file" 3 "$(sqlite3 "$DB" 'SELECT count(*) FROM run')"

# every canned query against its golden
sql_golden_outputs "$SR" "$DB" "$TMP/now" 2>"$TMP/e" || fail "canned queries run" "$(cat "$TMP/e")"
for g in "$FIX"/golden/sql/*; do
	n=$(basename "$g")
	if cmp -s "$g" "$TMP/now/$n"; then
		pass "golden $n ($(($(wc -l <"$g") - 1)) rows)"
	else
		fail "golden $n" "$(diff "$g" "$TMP/now/$n" | head -n 20)"
	fi
done
ok "the divergence queries have rows" test "$(wc -l <"$FIX/golden/sql/divergences.csv")" -gt 3

# --list names every reports/*.sql with its description and parameters
"$SR" sql --list >"$TMP/list"
for f in reports/*.sql; do
	n=$(basename "$f" .sql)
	ok "--list lists $n" grep -q "^$n  " "$TMP/list"
done
ok "--list shows the parameters and their defaults" \
	grep -q '^ *:ts integer  the time in ns, trace clock (required)$' "$TMP/list"
ok "every canned query says what it does and what it takes" sh -c '
	for f in reports/*.sql; do
		head -n 1 "$f" | grep -q "^-- [a-z]" || exit 1
		for p in $(grep -o ":[a-z_][a-z_]*" "$f" | sort -u); do
			grep -q "^-- param $p " "$f" || { echo "$f: $p"; exit 1; }
		done
	done'

# the three formats agree
for q in fidelity timeline-wide; do
	args="-Q $q"
	[ $q = timeline-wide ] && args="-Q timeline -P ts=32746529931 -P window=20000000"
	"$SR" sql -F table $args "$DB" >"$TMP/t.txt"
	"$SR" sql -F csv $args "$DB" >"$TMP/c.csv"
	"$SR" sql -F json $args "$DB" >"$TMP/j.json"
	same "$q: table, csv and json have the same rows" \
		"$(($(wc -l <"$TMP/t.txt") - 2)) $(($(wc -l <"$TMP/c.csv") - 1))" \
		"$(sqlite3 :memory: "SELECT json_array_length(readfile('$TMP/j.json'))") $(($(wc -l <"$TMP/c.csv") - 1))"
	same "$q: json is valid" 1 "$(sqlite3 :memory: "SELECT json_valid(readfile('$TMP/j.json'))")"
done
"$SR" sql -F table --no-header -Q runs "$DB" >"$TMP/t.txt"
same "--no-header: only the rows" 3 "$(wc -l <"$TMP/t.txt")"
ok "table: numbers right-aligned, text left" \
	grep -q '^1  replay    tests/fixtures/tracedat/numa/numa-6.12-forks.dat     trace.dat' "$TMP/t.txt"
# the table streams: the widths come from the first 1000 rows, later rows
# are printed as they come (a longer value widens only its own row), and
# memory does not grow with the rows
N="WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1002)"
"$SR" sql -F table "$DB" "$N SELECT i, CASE WHEN i = 1001 THEN 'longer' ELSE 'x' END AS t, i AS j FROM n" >"$TMP/t.txt"
same "table: the first block sets the widths" "   i  t     j" "$(head -n 1 "$TMP/t.txt")"
same "table: a later row keeps them, a longer value widens its own row" \
	"1001  longer  1001|1002  x  1002" "$(tail -n 2 "$TMP/t.txt" | paste -sd '|')"
if [ -x /usr/bin/time ]; then
	/usr/bin/time -f %M -o "$TMP/rss" "$SR" sql -F table "$DB" \
		"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000000) SELECT i, 'row ' || i AS t FROM n" >"$TMP/big.txt"
	same "table: two million rows, all printed" 2000002 "$(wc -l <"$TMP/big.txt")"
	ok "table: memory does not grow with the rows (peak $(cat "$TMP/rss") KiB < 64 MiB)" \
		test "$(cat "$TMP/rss")" -lt 65536
else
	skip "table: two million rows, all printed" "no /usr/bin/time (Debian time; make deps)"
	skip "table: memory does not grow with the rows" "no /usr/bin/time (Debian time; make deps)"
fi
"$SR" sql "$DB" 'SELECT 1 AS n' >"$TMP/o"
same "csv when stdout is not a terminal" "n
1" "$(cat "$TMP/o")"

# csv quoting is RFC 4180, with control characters escaped (one row, one
# line); json quoting is SQLite's: awkward text survives a round trip
Q="SELECT 'a,b' AS comma, 'say \"hi\"' AS quote, 'two'||char(10)||'lines' AS nl, '' AS empty, NULL AS nul, 2.5 AS x, X'00ff' AS b"
"$SR" sql -F csv "$DB" "$Q" >"$TMP/q.csv"
same "csv quotes only where needed, a line end is escaped" 'comma,quote,nl,empty,nul,x,b
"a,b","say ""hi""",two\nlines,"",,2.5,X'"'00FF'" "$(cat "$TMP/q.csv")"
sqlite3 "$TMP/rt.db" ".import --csv '$TMP/q.csv' t"
same "a csv field with a comma or a quote round-trips, a line end comes back as \\n" "1|1|1|1" \
	"$(sqlite3 "$TMP/rt.db" "SELECT comma = 'a,b', quote = 'say \"hi\"', nl = 'two\\nlines', x = '2.5' FROM t")"
"$SR" sql -F json "$DB" "$Q" >"$TMP/q.json"
same "json: the same values back" '1|1|1|1|1|1' \
	"$(sqlite3 :memory: "SELECT j->>'\$[0].comma' = 'a,b', j->>'\$[0].quote' = 'say \"hi\"', j->>'\$[0].nl' = 'two'||char(10)||'lines', j->'\$[0].nul' = 'null', j->'\$[0].x' = '2.5', j->>'\$[0].b' = '00FF' FROM (SELECT readfile('$TMP/q.json') AS j)")"
"$SR" sql -F json "$DB" "SELECT 1 WHERE 0" >"$TMP/o"
same "json: no rows is an empty array" "[]" "$(cat "$TMP/o")"

# parameters are bound, by name, with their type
same "an integer parameter binds as an integer, text as text, empty as NULL" "integer/text/null" \
	"$("$SR" sql --no-header -P a=42 -P b=4x -P c= "$DB" "SELECT typeof(:a) || '/' || typeof(:b) || '/' || typeof(:c)")"
cp "$DB" "$TMP/before.db"
ndec=$(sqlite3 "$DB" 'SELECT count(*) FROM decision')
"$SR" sql -F csv --no-header -Q top-tasks -P "comm=x' OR '1'='1" "$DB" >"$TMP/o" 2>"$TMP/e"
same "a quote in a parameter cannot widen the query" "0 0" "$? $(wc -c <"$TMP/o")"
"$SR" sql -F csv --no-header -Q top-tasks -P "comm=x'; DROP TABLE decision; --" "$DB" >"$TMP/o" 2>"$TMP/e"
same "a statement in a parameter is only text" "0 0" "$? $(wc -c <"$TMP/o")"
ok "the database is byte-identical afterwards" cmp "$DB" "$TMP/before.db"
same "and the decision table is still there" "$ndec" "$(sqlite3 "$DB" 'SELECT count(*) FROM decision')"

# read-only unless --write
"$SR" sql "$DB" "DELETE FROM decision_row" >"$TMP/o" 2>"$TMP/e"
same "a write fails with exit 1" 1 $?
same "in one line" "schedreplay: sql: the statement would change the database, which sql opens read-only (see --write)" "$(cat "$TMP/e")"
ok "and changes nothing" cmp "$DB" "$TMP/before.db"
"$SR" sql "$DB" "PRAGMA user_version = 7" >"$TMP/o" 2>"$TMP/e"
same "a pragma that writes fails too" 1 $?
cp "$DB" "$TMP/w.db"
ok "--write opens read-write" "$SR" sql --write "$TMP/w.db" "DELETE FROM skipped"
same "and the write happened" 0 "$(sqlite3 "$TMP/w.db" 'SELECT count(*) FROM skipped')"

# two databases side by side
"$SR" sql -F csv --no-header -A b="$TMP/w.db" "$DB" \
	"SELECT (SELECT count(*) FROM main.skipped), (SELECT count(*) FROM b.skipped)" >"$TMP/o"
same "--attach puts a second database beside the first" "21,0" "$(cat "$TMP/o")"

# errors: one line, exit 1 for the query and the database, 2 for the command line
err() {	# DESC STATUS MESSAGE sql-args...
	local desc=$1 st=$2 msg=$3
	shift 3
	"$SR" sql "$@" >"$TMP/o" 2>"$TMP/e"
	same "$desc" "$st $msg" "$? $(cat "$TMP/e")"
}
err "syntax error with the offset" 1 'schedreplay: sql: near "FORM": syntax error (query offset 9)' \
	"$DB" "SELECT * FORM decision"
err "no such table" 1 'schedreplay: sql: no such table: nosuch' \
	"$DB" "SELECT * FROM nosuch"
err "one statement at a time" 1 'schedreplay: sql: one statement at a time (a second one starts at query offset 10)' \
	"$DB" "SELECT 1; SELECT 2"
err "unknown canned query" 2 "schedreplay: sql: unknown query 'nosuch' (see 'schedreplay sql --list')" \
	-Q nosuch "$DB"
err "missing parameter" 2 'schedreplay: sql: missing parameter :ts (give -P ts=VALUE)' \
	-Q timeline "$DB"
err "unknown parameter" 2 "schedreplay: sql: unknown parameter 'tz': the query takes :ts, :window, :run" \
	-Q timeline -P ts=1 -P tz=2 "$DB"
err "--run on a query without :run" 2 "schedreplay: sql: unknown parameter 'run': the query takes no parameters" \
	--run 1 "$DB" "SELECT 1"
err "bad -P" 2 "schedreplay: sql: -P takes NAME=VALUE, not 'ts'" -P ts -Q timeline "$DB"
err "bad format" 2 "schedreplay: sql: unknown format 'xml' (table, csv or json)" -F xml "$DB" "SELECT 1"
"$SR" sql -Q runs "$DB" "SELECT 1" >"$TMP/o" 2>"$TMP/e"
same "QUERY and --query are exclusive" "2 schedreplay: sql: give a QUERY or --query NAME, not both" \
	"$? $(head -n 1 "$TMP/e")"
"$SR" sql "$DB" "SELECT :x AS x" -P x=1 -F csv >"$TMP/o" 2>"$TMP/e"
same "options after DB and QUERY are options" "0 x 1 " "$? $(tr '\n' ' ' <"$TMP/o")$(cat "$TMP/e")"
"$SR" sql "$DB" "-- a comment first, as in reports/*.sql
SELECT 2 AS y" -F csv >"$TMP/o" 2>"$TMP/e"
same "a QUERY that begins with '-- ' is the query" "0 y 2 " "$? $(tr '\n' ' ' <"$TMP/o")$(cat "$TMP/e")"
"$SR" sql -F csv -- "$DB" "SELECT 3 AS z" >"$TMP/o" 2>"$TMP/e"
same "after --, DB and QUERY" "0 z 3 " "$? $(tr '\n' ' ' <"$TMP/o")$(cat "$TMP/e")"
err "a missing file" 1 "schedreplay: cannot open '$TMP/none.db': No such file or directory" \
	"$TMP/none.db" "SELECT 1"
err "QUERY and DB swapped: the order is named" 2 "schedreplay: sql: cannot open 'SELECT 1': no such file; the database comes first (schedreplay sql '$DB' QUERY)" \
	"SELECT 1" "$DB"
# the canned queries' parameters are checked against their declared types
err "a negative limit" 2 "schedreplay: sql: -P limit=-5: query 'top-tasks' takes a whole number >= 0 for :limit: rows at most (default: 20)" \
	-Q top-tasks -P limit=-5 "$DB"
err "a time that is no number" 2 "schedreplay: sql: -P ts=abc: query 'timeline' takes a whole number for :ts: the time in ns, trace clock (required)" \
	-Q timeline -P ts=abc "$DB"
err "a huge integer" 2 "schedreplay: sql: -P limit=99999999999999999999 is out of range: query 'top-tasks' takes a whole number for :limit: rows at most (default: 20)" \
	-Q top-tasks -P limit=99999999999999999999 "$DB"
err "run 0" 2 "schedreplay: sql: -P run=0: query 'runs' takes a whole number >= 1 for :run: run id (default: NULL, every run)" \
	-Q runs -r 0 "$DB"
err "an empty required value" 2 "schedreplay: sql: -P ts= is empty: query 'timeline' needs a value for :ts: the time in ns, trace clock (required)" \
	-Q timeline -P ts= "$DB"
"$SR" sql -F csv --no-header -Q runs -P run= "$DB" >"$TMP/o" 2>"$TMP/e"
same "an empty value of a NULL-default parameter is no filter" "0 3" "$? $(wc -l <"$TMP/o")"
ok "every canned parameter declares its type" sh -c '
	! grep -h "^-- param " reports/*.sql | grep -v "^-- param :[a-z_]* \(text\|integer\|integer>=[0-9]*\)  [a-z]"' 
printf 'not a database\n' >"$TMP/text.db"
err "a file that is not a database" 1 "schedreplay: '$TMP/text.db' is not a schedreplay database (not SQLite)" \
	"$TMP/text.db" "SELECT 1"
sqlite3 "$TMP/foreign.db" "CREATE TABLE t (x)"
err "a foreign SQLite database" 1 "schedreplay: '$TMP/foreign.db' is an SQLite database, but not one schedreplay wrote" \
	"$TMP/foreign.db" "SELECT 1"
sqlite3 "$TMP/v1.db" "CREATE TABLE decision (decision_id INTEGER PRIMARY KEY, ts INTEGER); PRAGMA user_version = 1"
err "a schema-1 database" 1 "schedreplay: '$TMP/v1.db' is a schedreplay database of schema 1; this schedreplay reads schemas 3 to 4: replay the trace again" \
	"$TMP/v1.db" "SELECT 1"
cp "$DB" "$TMP/v5.db"
sqlite3 "$TMP/v5.db" "PRAGMA user_version = 5"
err "a newer schema" 1 "schedreplay: '$TMP/v5.db' has database schema 5; this schedreplay reads schemas 3 to 4: use a newer schedreplay" \
	"$TMP/v5.db" "SELECT 1"
err "--attach checks the other file too" 1 "schedreplay: '$TMP/v5.db' has database schema 5; this schedreplay reads schemas 3 to 4: use a newer schedreplay" \
	-A new="$TMP/v5.db" "$DB" "SELECT 1"

# schedreplay-db(5) covers the whole schema the replay writes
missing=$(sqlite3 "$DB" "SELECT m.name || '.' || p.name FROM sqlite_schema m, pragma_table_info(m.name) p
	WHERE m.type IN ('table', 'view') AND m.name NOT LIKE 'sqlite_%' UNION ALL SELECT name FROM sqlite_schema WHERE type IN ('table', 'view', 'index')
	AND name NOT LIKE 'sqlite_%'" | while read -r w; do
		t=${w%%.*}
		c=${w#*.}
		grep -q "^\.[A-Z]* *$t\b\|[ (\"]$t\b" man/schedreplay-db.5 || { echo "$w"; continue; }
		[ "$c" = "$w" ] || grep -q "\b$c\b" man/schedreplay-db.5 || echo "$w"
	done)
same "schedreplay-db(5) names every table, view, index and column" "" "$missing"
if command -v man >/dev/null; then
	ok "schedreplay-db(5) renders without warnings" \
		sh -c "MANWIDTH=80 man --warnings -l man/schedreplay-db.5 2>&1 >/dev/null | (! grep .)"
else
	skip "schedreplay-db(5) renders without warnings" "man is not installed (Debian man-db; make deps)"
fi

# a canned query's run that the database does not hold: an error naming the
# runs it holds, not an empty result; an own query's :run is left alone (it may
# be an attached database's)
"$SR" sql -r 9 -Q latency "$DB" >"$TMP/o" 2>"$TMP/e"
same "sql -r 9 -Q latency on a three-run database: exit 1" 1 $?
ok "... says the database has no run 9, and prints nothing" sh -c \
	"grep -q \"^schedreplay: sql: '.*golden.db' has no run 9 (runs 1 to 3)\$\" '$TMP/e' && ! test -s '$TMP/o'"
"$SR" sql -F csv -P run=9 -Q divergences "$DB" >/dev/null 2>&1
same "sql -P run=9 -Q divergences: exit 1" 1 $?
ok "sql -r 1 -Q latency: the run is there" "$SR" sql -r 1 -Q latency "$DB"
ok "an own query's :run is not checked" "$SR" sql -P run=9 "$DB" "SELECT :run"

# a write cut off in its transaction leaves a hot journal, which a read-only
# open cannot roll back: the copies of the file and its journal taken then
cp "$DB" "$TMP/hot-src.db"
sqlite3 "$TMP/hot-src.db" >/dev/null <<EOF
PRAGMA cache_size = 1;
BEGIN;
UPDATE decision_row SET comm = comm || 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx';
UPDATE sched_slice SET ts = ts + 1;
.shell cp '$TMP/hot-src.db' '$TMP/hot.db' && cp '$TMP/hot-src.db-journal' '$TMP/hot.db-journal'
ROLLBACK;
EOF
"$SR" sql "$TMP/hot.db" "SELECT count(*) FROM run" >/dev/null 2>"$TMP/e"
same "a file with a cut-off write's journal: exit 1" 1 $?
ok "... the message names the journal and what rolls it back" \
	grep -q "cannot read '$TMP/hot.db': a write to it was cut off and left its journal ('$TMP/hot.db-journal'), which a read-only open cannot roll back" "$TMP/e"
sqlite3 "$TMP/hot.db" "PRAGMA quick_check" >/dev/null
same "... after a read-write open, every committed row is back" \
	"$(sqlite3 "$DB" "SELECT count(*) || ' ' || sum(ts) FROM sched_slice")" \
	"$("$SR" sql -F csv --no-header "$TMP/hot.db" "SELECT count(*) || ' ' || sum(ts) FROM sched_slice" 2>&1)"
test_done
