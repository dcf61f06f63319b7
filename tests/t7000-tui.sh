#!/bin/bash
# schedreplay tui: the views as text (--dump) against goldens, the SQL and
# CSV a list gives, the real TUI driven in tmux (keys, filter, detail, help,
# resize, run switching, quit and SIGTERM leave the terminal as it was), and
# bad databases.  Databases come from committed real traces, made here.
. "$(dirname "$0")/test-lib.sh"

GOLD=$FIX/golden/tui
N=tests/fixtures/tracedat/numa
cd "$TOP" || exit 1

# v4.15 with three patch pairs on the 6.12 forks trace: 3 divergent rows
DB=$TMP/forks.db
"$SR" replay -q -o "$DB" -m v4.15 -t $N/numa-6.12-forks.topo -p wake-affine-equal \
	-p exit-sync-mel -p exit-sync-peterz $N/numa-6.12-forks.dat ||
	{ echo "1..0 # SKIP cannot replay the fixture"; exit 0; }
# every decision's CPU state, and a second run appended
SNAP=$TMP/snap.db
"$SR" replay -q -o "$SNAP" -m v4.15 --snapshots all -t $N/numa-6.12-pingpong.topo \
	-p wake-affine-equal $N/numa-6.12-pingpong.dat
"$SR" replay -q -a -o "$SNAP" -m mainline -t $N/numa-6.1-pingpong.topo \
	-p exit-sync-mel $N/numa-6.1-pingpong.dat

# --- views as text --------------------------------------------------------
dump_same() {
	local name=$1
	shift
	"$SR" tui "$@" >"$TMP/dump" 2>"$TMP/err"
	if cmp -s "$GOLD/$name.txt" "$TMP/dump"; then
		pass "--dump $name matches the golden"
	else
		fail "--dump $name matches the golden" "$(diff "$GOLD/$name.txt" "$TMP/dump" | head -n 20)"
	fi
}
dump_same list --dump list "$DB"
dump_same list-all --dump list --all --size 100x30 "$DB"
dump_same detail --dump detail --select 2 --size 80x60 "$DB"
dump_same summary --dump summary --size 90x40 "$DB"
dump_same help --dump help --size 80x40 "$DB"
dump_same detail-nostate --dump detail --all --select 2 --size 80x40 "$DB"
dump_same detail-snap --dump detail --all --select 5 --size 80x40 "$SNAP"

"$SR" tui --dump list --filter 'patch=exit-sync-mel' "$DB" >"$TMP/o"
same "a filter narrows the list" 1 "$(grep -c '^ *[0-9]*\.[0-9]\{6\} ' "$TMP/o")"
"$SR" tui --dump list --all --filter 'kind=fork cpu=3' --size 80x200 "$DB" >"$TMP/o"
n_fork3=$(sqlite3 "$DB" "SELECT count(*) FROM decision d LEFT JOIN evaluation e ON
	e.decision_id = d.decision_id AND e.side_id = 1 WHERE kind = 'fork' AND 3 IN
	(this_cpu, prev_cpu, actual_cpu, e.cpu)")
ok "the position shows the filtered count" grep -q " 1/$n_fork3 " "$TMP/o"
"$SR" tui --dump list --all --sort prev --reverse "$DB" >"$TMP/o"
ok "sorted by prev, reversed: the first row has the highest prev" \
	sh -c "sed -n 4p '$TMP/o' | awk '{ exit !(\$5 == 3) }'"

# the SQL the TUI shows runs in sqlite3 and gives the rows of the CSV export
if command -v sqlite3 >/dev/null; then
	for f in '' 'kind=wakeup' "comm=trace-cmd cross=node" 't=8-9 text=exiting'; do
		"$SR" tui --dump sql --filter "$f" "$DB" | sqlite3 "$DB" >"$TMP/sql.out"
		"$SR" tui --dump csv --filter "$f" "$DB" >"$TMP/x.csv"
		rm -f "$TMP/csv.db"
		sqlite3 "$TMP/csv.db" ".import --csv $TMP/x.csv t" "SELECT * FROM t" >"$TMP/csv.out"
		ok "SQL of '$f' gives the rows of the CSV export" cmp "$TMP/sql.out" "$TMP/csv.out"
	done
	"$SR" tui --dump sql --all --filter 'cpu=2 kind=fork' "$DB" | sqlite3 "$DB" | wc -l >"$TMP/n"
	"$SR" tui --dump list --all --filter 'cpu=2 kind=fork' "$DB" | tail -n 1 >"$TMP/pos"
	ok "every-decision SQL: as many rows as the list counts" grep -q "/$(cat "$TMP/n") " "$TMP/pos"
	# a value that looks like SQL stays a value
	evil="x' OR 1=1 --"
	"$SR" tui --dump sql --filter "comm=\"$evil\"" "$DB" >"$TMP/evil.sql"
	ok "a filter value is not in the SQL text" sh -c "! grep -v '^\.parameter' '$TMP/evil.sql' | grep -q 'OR 1=1'"
	same "... it is a bound parameter that matches nothing" "" "$(sqlite3 "$DB" <"$TMP/evil.sql")"
	same "... and the database still has its decisions" 6330 \
		"$(sqlite3 "$DB" 'SELECT count(*) FROM decision')"
else
	skip "SQL of the list runs in sqlite3" "no sqlite3"
fi
"$SR" tui --dump csv --all "$DB" >"$TMP/all.csv"
same "CSV export: every row and a header, not one screen" 6331 "$(wc -l <"$TMP/all.csv")"

"$SR" tui --dump list --filter 'kind=exec' "$DB" >"$TMP/o" 2>"$TMP/e"
same "bad filter exits 2" 2 $?
same "... in one line" "schedreplay: tui: filter 'kind=exec': expected wakeup, fork, balance_periodic, balance_newidle, balance_nohz or newidle" "$(cat "$TMP/e")"
# every decision kind the database has is a kind the filter takes, and
# counts what the database counts
for k in $(sqlite3 "$DB" "SELECT DISTINCT kind FROM decision ORDER BY kind"); do
	"$SR" tui --dump list --all --filter "kind=$k" --size 200x8 "$DB" >"$TMP/o" 2>"$TMP/e"
	same "kind=$k: as many rows as the database has" \
		"$(sqlite3 "$DB" "SELECT '/' || count(*) || ' ' FROM decision WHERE kind = '$k'")" \
		"$(tail -n 1 "$TMP/o" | grep -o '/[0-9]* ')"
done
# every kind the help lists is in the man page's filter list
kinds=$("$SR" tui --dump help --size 200x60 "$DB" | sed -n 's/^ *(KIND: \(.*\))$/\1/p')
ok "the help lists the kinds" test -n "$kinds"
for k in $kinds; do
	ok "tui(1) lists kind=$k" grep -q "^\.BR kind=.*$k" "$TOP/man/schedreplay-tui.1"
done
# times: strict syntax, out-of-range values refused with a message
for f in 't=1e308-' 't=0x10-' 't=9223372036.854775808-' 't=9223372030000-'; do
	"$SR" tui --dump list --filter "$f" "$DB" >"$TMP/o" 2>"$TMP/e"
	same "filter '$f' is refused (exit 2)" 2 $?
done
same "... out of range says so" \
	"schedreplay: tui: filter 't=9223372030000-': out of range (at most 9223372036.854775807 s)" \
	"$(cat "$TMP/e")"
# the times that overflowed (UBSan: signed overflow) run clean in the sanitizer build
if [ -x "$SR_SAN" ]; then
	for f in 't=9223372030-' 't=9223372036.854775807-' 't=-9223372036.854775807' 't=1e308-'; do
		UBSAN_OPTIONS=halt_on_error=1 ASAN_OPTIONS=detect_leaks=0 \
			"$SR_SAN" tui --dump list --filter "$f" "$DB" >/dev/null 2>"$TMP/e"
		ok "sanitizer build: filter '$f' without a runtime error" \
			sh -c "! grep -q 'runtime error\|AddressSanitizer' '$TMP/e'"
	done
else
	skip "sanitizer build: the t= filter" "no $SR_SAN (make SANITIZE=1)"
fi
"$SR" tui --dump list --all --filter 't=8.5-9.000250' --size 200x8 "$DB" >"$TMP/o"
first=$(sqlite3 "$DB" "SELECT first_ts FROM run")
same "t=8.5-9.000250 counts the decisions in that span, to the nanosecond" \
	"$(sqlite3 "$DB" "SELECT '/' || count(*) || ' ' FROM decision WHERE ts BETWEEN $first + 8500000000 AND $first + 9000250000")" \
	"$(tail -n 1 "$TMP/o" | grep -o '/[0-9]* ')"
"$SR" tui "$DB" </dev/null >"$TMP/o" 2>"$TMP/e"
same "not a terminal: exit 2" 2 $?
same "... with one line" "schedreplay: tui: not a terminal: use --dump VIEW to print a view" \
	"$(cat "$TMP/e")"

# --- column layout: the width the screen has ---------------------------------
# two base models: the divergent list names each row's model, the detail too
DB2=$TMP/two.db
"$SR" replay -q -o "$DB2" -m v4.15 -m mainline -t $N/numa-6.12-forks.topo -p wake-affine-equal \
	-p exit-sync-mel -p exit-sync-peterz $N/numa-6.12-forks.dat
for w in 80 200; do
	"$SR" tui --dump list --size ${w}x12 "$DB2" >"$TMP/l$w"
	ok "two models, $w columns: a model column" grep -q '^time(s)^ task/pid  *kind  *model ' "$TMP/l$w"
	same "two models, $w columns: each row names its model" \
		"$(sqlite3 "$DB2" "SELECT model FROM divergence ORDER BY ts, decision_id, patch, model")" \
		"$(sed -n '4,8p' "$TMP/l$w" | awk '{ print $4 }')"
	same "two models, $w columns: no two rows alike" 5 "$(sed -n '4,8p' "$TMP/l$w" | sort -u | wc -l)"
	ok "two models, $w columns: no model name cut" sh -c "! grep -q 'v4\.1 \|v4\.1~\|main~' '$TMP/l$w'"
	"$SR" tui --dump list --all --size ${w}x12 "$DB2" >"$TMP/a$w"
	ok "every decision, $w columns: each base model's name whole" \
		grep -q '^time(s)^ .* v4\.15 mainline orig  new ' "$TMP/a$w"
	"$SR" tui --dump list --all --filter kind=balance_newidle --size ${w}x12 "$DB2" >"$TMP/k$w"
done
ok "200 columns: patch names whole" grep -q ' exit-sync-peterz  *not wide' "$TMP/l200"
ok "200 columns: the reason column" grep -q "patched side's reason" "$TMP/l200"
ok "80 columns: a long patch name cut with ~" grep -q ' exit-sync-pet~$' "$TMP/l80"
ok "80 columns: no line wider than the screen" sh -c "! awk 'length > 80' '$TMP/l80' '$TMP/a80' | grep -q ."
ok "200 columns: a load-balance kind whole" grep -q ' balance_newidle  *[0-9]' "$TMP/k200"
ok "80 columns: abbreviated when short of room" grep -q ' lbnew  *[0-9]' "$TMP/k80"
"$SR" tui --dump list --all --filter kind=balance_newidle --size 120x12 "$DB2" >"$TMP/k120"
ok "120 columns: whole again" grep -q ' balance_newidle  *[0-9]' "$TMP/k120"
"$SR" tui --dump detail --select 2 --size 120x12 "$DB2" >"$TMP/d"
ok "the detail header names the model and the patch" \
	grep -q '^decision 6320: wakeup at 8.716743 s (ts 32746529931), model mainline, patch exit-sync-mel$' "$TMP/d"
ok "... and the sides are that model's" \
	grep -q '^patch exit-sync-mel on model mainline: original chose 0, patched chose 2$' "$TMP/d"
# the export's columns: named, none called unused
"$SR" tui --dump csv "$DB2" | head -n 1 >"$TMP/h1"
"$SR" tui --dump csv --all "$DB2" | head -n 1 >"$TMP/h2"
same "CSV of the divergent list: its columns" \
	"decision_id,ts,tid,comm,kind,this_cpu,prev_cpu,actual_cpu,original_cpu,patched_cpu,patch,original_reason,patched_reason,model,base_cpu" \
	"$(cat "$TMP/h1")"
same "CSV of every decision: its columns, none unused" \
	"decision_id,ts,tid,comm,kind,this_cpu,prev_cpu,actual_cpu,original_cpu,patched_cpu,diverged,base_reason,base0_cpu,base1_cpu" \
	"$(cat "$TMP/h2")"

# --dump -o FILE: an existing file only with --force
"$SR" tui --dump csv -o "$TMP/out.csv" "$DB"
same "--dump csv -o writes the file" 4 "$(wc -l <"$TMP/out.csv")"
"$SR" tui --dump csv --all -o "$TMP/out.csv" "$DB" 2>"$TMP/e"
same "... an existing file is refused (exit 1)" 1 $?
same "... saying how to replace it" \
	"schedreplay: tui: '$TMP/out.csv' exists: not overwritten (--force replaces it)" "$(cat "$TMP/e")"
same "... and is left as it was" 4 "$(wc -l <"$TMP/out.csv")"
"$SR" tui --dump list -o "$TMP/out.csv" "$DB" 2>/dev/null
same "... for every view" "1 4" "$? $(wc -l <"$TMP/out.csv")"
"$SR" tui --dump csv --all -o "$TMP/out.csv" --force "$DB"
same "--force replaces it" 6331 "$(wc -l <"$TMP/out.csv")"
"$SR" tui --dump list --size 80x10 -o "$TMP/out.txt" "$DB"
same "--dump list -o: the view in the file" "$("$SR" tui --dump list --size 80x10 "$DB")" \
	"$(cat "$TMP/out.txt")"
"$SR" tui -o "$TMP/x" "$DB" 2>"$TMP/e"
same "-o without --dump: exit 2" "2 schedreplay: tui: --output goes with --dump VIEW" "$? $(cat "$TMP/e")"

# a patch name longer than any fixed buffer (a --patch-file pair may be
# called anything): the detail finds the sides by the whole name
CC=${CC:-cc}
long=stay-on-prev-with-a-name-longer-than-forty-eight-characters
if command -v "$CC" >/dev/null 2>&1 &&
   sed "s/\"stay-on-prev\"/\"$long\"/" "$FIX/patch-file/stay-on-prev.c" >"$TMP/long.c" &&
   "$CC" -shared -fPIC -I"$TOP/include" -o "$TMP/long.so" "$TMP/long.c" &&
   "$SR" replay -q -o "$TMP/long.db" -t $N/numa-6.12-forks.topo --patch-file "$TMP/long.so" \
	-p "$long" $N/numa-6.12-forks.dat; then
	want=$(sqlite3 "$TMP/long.db" "SELECT 'patch $long on model ' || model || ': original chose ' || original_cpu ||
		', patched chose ' || patched_cpu FROM divergence ORDER BY ts, decision_id LIMIT 1")
	same "detail: a long patch name's sides are found" "$want" \
		"$("$SR" tui --dump detail --select 1 --size 120x20 "$TMP/long.db" | grep '^patch ')"
else
	skip "detail: a long patch name's sides are found" "no C compiler"
fi

# --- bad databases ----------------------------------------------------------
: >"$TMP/empty.db"
echo "hello" >"$TMP/text.db"
sqlite3 "$TMP/v1.db" 'PRAGMA user_version = 1; CREATE TABLE decision (decision_id INTEGER PRIMARY KEY);'
cp "$DB" "$TMP/nodec.db"
sqlite3 "$TMP/nodec.db" 'DELETE FROM decision_row; DELETE FROM decision_runnable; DELETE FROM diverged;
	DELETE FROM eval_row;'
bad_db() {
	"$SR" tui --dump list "$1" >"$TMP/o" 2>"$TMP/e"
	same "$2: exit 1" 1 $?
	same "$2: says why" "$3" "$(cat "$TMP/e")"
}
bad_db "$TMP/missing.db" "missing file" "schedreplay: cannot open '$TMP/missing.db': No such file or directory"
bad_db "$TMP/empty.db" "empty file" "schedreplay: '$TMP/empty.db' is not a schedreplay database (not SQLite)"
bad_db "$TMP/text.db" "text file" "schedreplay: '$TMP/text.db' is not a schedreplay database (not SQLite)"
bad_db "$TMP/v1.db" "schema 1" "schedreplay: '$TMP/v1.db' is a schedreplay database of schema 1; this schedreplay reads schemas 3 to 4: replay the trace again"
"$SR" tui --dump list "$TMP/nodec.db" >"$TMP/o" 2>"$TMP/e"
same "no decisions: exit 0" 0 $?
ok "no decisions: a notice and no rows" grep -q 'this run has no decisions' "$TMP/o"

# --- the real TUI in tmux ---------------------------------------------------
if ! command -v tmux >/dev/null; then
	skip "the TUI in tmux" "no tmux"
	test_done
	exit
fi
. "$TOP/tests/lib/tmux.sh"
if ! tmux_setup sr-test; then
	skip "the TUI in tmux" "$TMUX_WHY"
	test_done
	exit
fi
wait_file() {
	local i
	for i in $(seq 600); do
		[ -s "$1" ] && return 0
		sleep 0.1
	done
	return 1
}
start() {
	rm -f "$TMP/before" "$TMP/after" "$TMP/rc"
	tm new-session -d -s t -x 80 -y 24 "sh -c 'stty -a >$TMP/before; $SR tui $*; \
echo \$? >$TMP/rc; stty -a >$TMP/after; sleep 60'"
}
sane() {
	wait_file "$TMP/after" || { fail "$1" "no stty -a after"; return; }
	# the size may have changed: compare the modes
	if diff <(sed 's/rows [0-9]*; columns [0-9]*;//' "$TMP/before") \
		<(sed 's/rows [0-9]*; columns [0-9]*;//' "$TMP/after") >"$TMP/diff"; then
		pass "$1"
	else
		fail "$1" "$(cat "$TMP/diff")"
	fi
}
stop() {
	tm kill-session -t t 2>/dev/null
}

start "$DB"
ok "the list shows the divergent rows" wait_for 'rcu_preempt/18 .*wake-affine-equal'
ok "... three of them" wait_for ' 1/3 '
tm send-keys -t t f
ok "f asks for a filter" wait_for '^filter: '
tm send-keys -t t 'patch=exit-sync-mel' Enter
ok "the filter narrows the list" wait_for ' 1/1 '
ok "... to the patch's row" grep -q 'trace-cmd/1567 .*exit-sync-mel' "$TMP/screen"
tm send-keys -t t Enter
ok "Enter shows the detail" wait_for 'decision 6320: wakeup'
ok "... with the CPUs marked" grep -q 'cpu   0 T  BO' "$TMP/screen"
tm send-keys -t t C-f C-f
ok "... and every side's reason" wait_for 'exit-sync-mel patched -> cpu 2'
tm send-keys -t t q '?'
ok "? shows the help" wait_for 'PgUp PgDn'
ok "... listing the keys" grep -q 'export the whole list as CSV' "$TMP/screen"
tm send-keys -t t q
ok "q leaves the help" wait_for 'task/pid'
tm resize-window -t t -x 120 -y 40
ok "a resize lays the list out again" wait_for "patched side's reason"
tm send-keys -t t Tab
ok "Tab shows the summary" wait_for 'patch pairs'
tm send-keys -t t q q
wait_file "$TMP/rc"
same "q quits with status 0" 0 "$(cat "$TMP/rc" 2>/dev/null)"
sane "the terminal is as before after q"
stop

# the export asks before it replaces a file
echo keep >"$TMP/keep.csv"
start "$DB"
wait_for 'task/pid' >/dev/null
tm send-keys -t t w C-u "$TMP/keep.csv" Enter
ok "export to an existing file: asks" wait_for "keep.csv' exists: overwrite it? (y/n)"
same "... and has not written yet" keep "$(cat "$TMP/keep.csv")"
tm send-keys -t t n
ok "n: not overwritten" wait_for "not overwritten: nothing written"
same "... the file is as it was" keep "$(cat "$TMP/keep.csv")"
tm send-keys -t t w C-u "$TMP/keep.csv" Enter
wait_for 'overwrite it?' >/dev/null
tm send-keys -t t y
ok "y: the list is written" wait_for "wrote 3 rows to $TMP/keep.csv"
same "... over the old file" 4 "$(wc -l <"$TMP/keep.csv")"
tm send-keys -t t q
wait_file "$TMP/rc"
stop

start "$SNAP"
ok "two runs: the first is shown" wait_for 'run 1 (1/2)'
tm send-keys -t t ']'
ok "] switches to the second run" wait_for 'run 2 (2/2)'
ok "... and lists its divergent decisions" wait_for 'exit-sync-mel'
tm send-keys -t t a
ok "a lists every decision" wait_for 'every decision'
tm send-keys -t t C-f
ok "Ctrl-F pages down" wait_for ' 21/'
tm send-keys -t t Escape Escape q
wait_file "$TMP/rc"
sane "the terminal is as before after Esc and q"
stop

start "$DB"
ok "the TUI is up before SIGTERM" wait_for 'task/pid'
# the TUI is a descendant of the pane's process, how deep depends on the
# user's shell (bash runs a lone -c command in place, dash forks it): walk
# down to the process whose command is schedreplay (through /proc, which
# needs no procps)
tui_pid() {
	local p=$1 c
	for c in $(cat /proc/"$p"/task/*/children 2>/dev/null); do
		if [ "$(cat /proc/"$c"/comm 2>/dev/null)" = schedreplay ]; then
			echo "$c"
			return
		fi
		tui_pid "$c"
	done
}
tuipid=$(tui_pid "$(tm display -p -t t '#{pane_pid}')" | head -n 1)
if [ -n "$tuipid" ]; then
	kill -TERM "$tuipid"
	wait_file "$TMP/rc"
	same "SIGTERM ends the TUI by the signal" 143 "$(cat "$TMP/rc" 2>/dev/null)"
	sane "the terminal is as before after SIGTERM"
else
	fail "SIGTERM: the TUI's process was not found"
fi
stop

start "$TMP/v1.db"
wait_file "$TMP/rc"
same "schema 1 in a terminal: exit 1 before the screen" 1 "$(cat "$TMP/rc" 2>/dev/null)"
ok "... the message is on the terminal" wait_for 'schema 1'
sane "the terminal is as before after a bad database"
stop

start "$TMP/nodec.db"
ok "no decisions: the TUI says so" wait_for 'this run has no decisions'
tm send-keys -t t q
wait_file "$TMP/rc"
sane "the terminal is as before after an empty run"
stop

test_done
