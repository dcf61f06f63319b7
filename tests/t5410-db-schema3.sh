#!/bin/bash
# Schema 3 files (schedreplay-db(5), VERSION): a file of the schema before
# the decisions were split into decision_row and decision_runnable is read
# as it is, read-only too (sql, report, the TUI's queries, export, info),
# and replay --append migrates it to schema 4 inside the append's
# transaction: every old row, and what the user added, stays; the result
# reads back as a file written in schema 4 does; a migration that cannot
# finish leaves the file unchanged.  The schema 3 file is made here from a
# schema 4 one by the reverse migration, in sqlite3.
. "$(dirname "$0")/test-lib.sh"

command -v sqlite3 >/dev/null || skip_all "sqlite3 not installed (make deps)"

N=$FIX/tracedat/numa
T=$N/numa-6.12-forks.dat
replay() {
	"$SR" replay -q -m mainline -t $N/numa-6.12-forks.topo -p wake-affine-equal \
		-p exit-sync-mel "$@" $T
}
q() { sqlite3 "$1" "$2"; }

# the reference: two runs written in schema 4
replay -o "$TMP/ref.db" || fail "the fixture replays"
replay -a -o "$TMP/ref.db" || fail "and appends"
nrun=$(q "$TMP/ref.db" "SELECT count(*) FROM decision_runnable WHERE run_id = 1")
ok "the fixture has runnable wakeups in decision_runnable" test "$nrun" -gt 0
same "... and no evaluation of them" 0 \
	"$(q "$TMP/ref.db" "SELECT count(*) FROM eval_row e JOIN decision_runnable d USING (decision_id)")"
same "decision is the union of the two tables" \
	"$(q "$TMP/ref.db" "SELECT (SELECT count(*) FROM decision_row) + $(q "$TMP/ref.db" "SELECT count(*) FROM decision_runnable")")" \
	"$(q "$TMP/ref.db" "SELECT count(*) FROM decision")"

# schema 3: one decision table of every decision, the views over it
replay -o "$TMP/v3.db" || fail "the fixture replays"
sqlite3 "$TMP/v3.db" "BEGIN;
	DROP VIEW decision;
	ALTER TABLE decision_row RENAME TO decision;
	INSERT INTO decision SELECT * FROM decision_runnable;
	DROP TABLE decision_runnable;
	PRAGMA user_version = 3;
	UPDATE meta SET value = '3' WHERE key = 'schema_version';
	COMMIT;
	CREATE TABLE notes (note TEXT); INSERT INTO notes VALUES ('mine');
	CREATE VIEW runnable_n AS SELECT count(*) AS n FROM decision WHERE skip = 'runnable';" ||
	fail "the reverse migration runs"
same "the schema 3 file has a decision table and no decision_row" "table" \
	"$(q "$TMP/v3.db" "SELECT group_concat(type) FROM sqlite_schema WHERE name IN ('decision', 'decision_row', 'decision_runnable')")"
same "... and every decision of the run" \
	"$(q "$TMP/ref.db" "SELECT * FROM decision WHERE run_id = 1 ORDER BY decision_id" | md5sum)" \
	"$(q "$TMP/v3.db" "SELECT * FROM decision ORDER BY decision_id" | md5sum)"
old_dec=$(q "$TMP/v3.db" "SELECT * FROM decision ORDER BY decision_id" | md5sum)
old_eval=$(q "$TMP/v3.db" "SELECT * FROM evaluation_v ORDER BY decision_id, side_id" | md5sum)

# reading it, read-only: the same answers as the schema 4 file's
cp "$TMP/v3.db" "$TMP/ro.db"
cp "$TMP/v3.db" "$TMP/pristine.db"
chmod a-w "$TMP/ro.db"
"$SR" replay -q -m mainline -t $N/numa-6.12-forks.topo -p wake-affine-equal \
	-p exit-sync-mel -o "$TMP/one.db" $T || fail "a one-run schema 4 file"
same "info names schema 3" "format:     schedreplay database (schema 3): replay results, not a trace;" \
	"$("$SR" info "$TMP/ro.db" | sed -n 2p)"
same "sql: decision_row is every decision of a schema 3 file" \
	"$(q "$TMP/v3.db" "SELECT count(*) FROM decision")" \
	"$("$SR" sql -F csv --no-header "$TMP/ro.db" "SELECT count(*) FROM decision_row")"
same "sql: decision_runnable is empty" 0 \
	"$("$SR" sql -F csv --no-header "$TMP/ro.db" "SELECT count(*) FROM decision_runnable")"
for query in top-tasks top-cpus divergences migrations runs fidelity; do
	same "sql -Q $query: the same as on schema 4" \
		"$("$SR" sql -F csv -Q "$query" "$TMP/one.db" 2>&1)" \
		"$("$SR" sql -F csv -Q "$query" "$TMP/ro.db" 2>&1)"
done
same "report: the same as on schema 4" \
	"$("$SR" report "$TMP/one.db" 2>&1 | sed "s|$TMP/one.db|DB|g")" \
	"$("$SR" report "$TMP/ro.db" 2>&1 | sed "s|$TMP/ro.db|DB|g")"
for args in "--all" "--all --sort task" "--all --filter kind=wakeup --select 40" \
	"--all --filter patch=exit-sync-mel --sort patched --reverse" "--all --filter miss=yes" \
	"--all --filter text=idle --sort base" "--all --sort pid --select 100" "" "--sort original"; do
	# shellcheck disable=SC2086
	same "tui list $args: the same as on schema 4" \
		"$("$SR" tui --dump list --size 100x30 $args "$TMP/one.db" 2>&1 | tail -n +2)" \
		"$("$SR" tui --dump list --size 100x30 $args "$TMP/ro.db" 2>&1 | tail -n +2)"
	# shellcheck disable=SC2086
	same "tui csv $args: the same as on schema 4" \
		"$("$SR" tui --dump csv $args "$TMP/one.db" 2>&1)" \
		"$("$SR" tui --dump csv $args "$TMP/ro.db" 2>&1)"
done
id=$(q "$TMP/one.db" "SELECT min(decision_id) FROM decision_runnable")
same "tui detail of a runnable wakeup: the same as on schema 4" \
	"$("$SR" tui --dump detail --decision "#$id" "$TMP/one.db" 2>&1 | tail -n +2)" \
	"$("$SR" tui --dump detail --decision "#$id" "$TMP/ro.db" 2>&1 | tail -n +2)"
same "export: the same as on schema 4" \
	"$("$SR" export "$TMP/one.db" 2>/dev/null | md5sum)" \
	"$("$SR" export "$TMP/ro.db" 2>/dev/null | md5sum)"
same "tui --dump sql of the schema 3 file runs in sqlite3: the rows of schema 4" \
	"$("$SR" tui --dump sql --all --sort task "$TMP/one.db" | sqlite3 -readonly "$TMP/one.db" 2>&1 | md5sum)" \
	"$("$SR" tui --dump sql --all --sort task "$TMP/ro.db" | sqlite3 -readonly "$TMP/ro.db" 2>&1 | md5sum)"
chmod u+w "$TMP/ro.db"
ok "reading changed nothing in the file" cmp "$TMP/ro.db" "$TMP/pristine.db"

# a migration that cannot finish: the file is unchanged
cp "$TMP/v3.db" "$TMP/clash.db"
q "$TMP/clash.db" "CREATE TABLE decision_runnable (x)"
cp "$TMP/clash.db" "$TMP/clash-before.db"
replay -a -o "$TMP/clash.db" 2>"$TMP/e"
same "an append whose migration fails: exit 1" 1 $?
ok "... says why" grep -q "cannot write '$TMP/clash.db': migrate schema 3 to 4: .*decision_runnable" "$TMP/e"
ok "... and the file is unchanged" cmp "$TMP/clash.db" "$TMP/clash-before.db"
"$SR" sql -w "$TMP/clash.db" "CREATE VIEW v AS SELECT 1" 2>"$TMP/e"
same "sql --write whose migration fails: exit 1" 1 $?
ok "... says why" grep -q "cannot migrate '$TMP/clash.db' from schema 3 to 4: .*decision_runnable.*the file is unchanged" "$TMP/e"
ok "... and the file is unchanged" cmp "$TMP/clash.db" "$TMP/clash-before.db"

# sql --write migrates a schema 3 file first: a view it stores may name
# decision_row, which a schema 3 file has only as a temporary view
cp "$TMP/v3.db" "$TMP/w.db"
"$SR" sql -w "$TMP/w.db" "CREATE VIEW my_rows AS SELECT count(*) AS n FROM decision_row" 2>"$TMP/e" ||
	fail "sql --write into a schema 3 file"
ok "sql --write on schema 3: one line says the file was migrated" \
	grep -q "sql: '$TMP/w.db' was migrated from schema 3 to 4 for --write" "$TMP/e"
same "... the file is schema 4" 4 "$(q "$TMP/w.db" "PRAGMA user_version")"
same "... and the stored view works in sqlite3 too" "$(q "$TMP/pristine.db" "SELECT count(*) FROM decision")" \
	"$(q "$TMP/w.db" "SELECT n FROM my_rows")"
same "... and in sql" "$(q "$TMP/pristine.db" "SELECT count(*) FROM decision")" \
	"$("$SR" sql -F csv --no-header "$TMP/w.db" "SELECT n FROM my_rows")"
"$SR" sql -w "$TMP/w.db" "CREATE VIEW v2 AS SELECT 1" 2>"$TMP/e" || fail "sql --write again"
ok "... a second --write says nothing of a migration" sh -c "! grep -q migrated '$TMP/e'"

# appending to it: migrated in the append, nothing lost
replay -a -o "$TMP/v3.db" 2>"$TMP/e" || fail "replay -a into a schema 3 file"
ok "one line says the append migrated the file" \
	grep -q "replay: '$TMP/v3.db' was migrated from schema 3 to 4 by the append" "$TMP/e"
same "the file is schema 4" "4 4" \
	"$(q "$TMP/v3.db" "PRAGMA user_version") $(q "$TMP/v3.db" "SELECT value FROM meta WHERE key = 'schema_version'")"
same "its old decisions are all there, unchanged" "$old_dec" \
	"$(q "$TMP/v3.db" "SELECT * FROM decision WHERE run_id = 1 ORDER BY decision_id" | md5sum)"
same "... in decision_row" "$(q "$TMP/pristine.db" "SELECT count(*) FROM decision")" \
	"$(q "$TMP/v3.db" "SELECT count(*) FROM decision_row WHERE run_id = 1")"
same "its old evaluations too" "$old_eval" \
	"$(q "$TMP/v3.db" "SELECT * FROM evaluation_v WHERE run_id = 1 ORDER BY decision_id, side_id" | md5sum)"
same "the new run's runnable wakeups are in decision_runnable" "$nrun" \
	"$(q "$TMP/v3.db" "SELECT count(*) FROM decision_runnable WHERE run_id = 2")"
same "the user's table stays" mine "$(q "$TMP/v3.db" "SELECT note FROM notes")"
same "the user's view reads both runs' decisions" "$((2 * nrun))" \
	"$(q "$TMP/v3.db" "SELECT n FROM runnable_n")"
same "the file is sound" ok "$(q "$TMP/v3.db" "PRAGMA integrity_check")"
same "every index of schema 4" \
	"$(q "$TMP/ref.db" "SELECT name, tbl_name FROM sqlite_schema WHERE type = 'index' ORDER BY 1")" \
	"$(q "$TMP/v3.db" "SELECT name, tbl_name FROM sqlite_schema WHERE type = 'index' ORDER BY 1")"
for t in decision evaluation_v divergence fidelity patch_summary thread migration cpu_state \
	sched_slice; do
	same "$t: the same rows as two runs written in schema 4" \
		"$(q "$TMP/ref.db" "SELECT * FROM $t ORDER BY 1, 2, 3" | md5sum)" \
		"$(q "$TMP/v3.db" "SELECT * FROM $t ORDER BY 1, 2, 3" | md5sum)"
done
for query in top-tasks top-cpus divergences runs; do
	same "sql -Q $query after the migration: as on schema 4" \
		"$("$SR" sql -F csv -Q "$query" "$TMP/ref.db" 2>&1)" \
		"$("$SR" sql -F csv -Q "$query" "$TMP/v3.db" 2>&1)"
done
for args in "--all --run 1" "--all --run 2 --sort task" "--all --run 2 --filter kind=wakeup --select 40" \
	"--all --run 1 --filter text=idle" "--run 2"; do
	# shellcheck disable=SC2086
	same "tui list $args after the migration: as on schema 4" \
		"$("$SR" tui --dump list --size 100x30 $args "$TMP/ref.db" 2>&1 | tail -n +2)" \
		"$("$SR" tui --dump list --size 100x30 $args "$TMP/v3.db" 2>&1 | tail -n +2)"
done
replay -a -o "$TMP/v3.db" || fail "a second append"
same "a second append to the migrated file: three runs" 3 "$(q "$TMP/v3.db" "SELECT count(*) FROM run")"
same "... its decision ids unique" 1 \
	"$(q "$TMP/v3.db" "SELECT count(*) = count(DISTINCT decision_id) FROM decision")"

test_done
