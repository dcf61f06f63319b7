#!/bin/bash
# Terminal safety: task names carrying escape sequences, CR/LF, BEL, DEL and
# C1 controls (tests/fixtures/tracedat/hostile/, found by fuzzing) never
# reach a terminal or a line-based output raw.  Every output that prints a
# string from the trace is checked for raw control bytes, and the line-based
# ones (info --events TSV, sql and TUI CSV) for one row per line: they are
# parsed back and counted.
. "$(dirname "$0")/test-lib.sh"

H=$FIX/tracedat/hostile
command -v python3 >/dev/null || skip_all "no python3 to parse the outputs"
command -v sqlite3 >/dev/null || skip_all "no sqlite3"

# raw FILE: the number of raw control bytes in FILE (a line feed counts
# only when it does not end a line: there is none in these outputs but the
# line ends); C1 controls as UTF-8 (C2 80..9F) count too
raw() {
	python3 - "$1" <<'EOF'
import re, sys
b = open(sys.argv[1], 'rb').read()
n = len(re.findall(rb'[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]', b))
print(n)
EOF
}
no_raw() {
	local n
	n=$(raw "$2")
	if [ "$n" = 0 ]; then
		pass "$1: no raw control byte"
	else
		fail "$1: no raw control byte" "$n raw control bytes: $(grep -a -m 3 -P '[\x00-\x08\x0b-\x1f\x7f]' "$2" | cat -v)"
	fi
}
# csv_rows FILE: the rows python's csv module reads, and "same" when every
# row has as many fields as the header
csv_rows() {
	python3 - "$1" <<'EOF'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline='')))
print(len(rows), "same" if len(set(len(r) for r in rows)) == 1 else "ragged")
EOF
}

# --- info --events: one TSV row per event, every field in place ---------------
for f in esc-comm-ansi-v6 esc-comm-newline-osc-v6; do
	"$SR" info --events "$H/$f.dat" >"$TMP/$f.tsv" || fail "$f: info --events runs"
	no_raw "$f: info --events" "$TMP/$f.tsv"
	"$SR" info --json "$H/$f.dat" >"$TMP/$f.json"
	same "$f: info --events: one line per event" "$(json_get "$TMP/$f.json" events)" \
		"$(wc -l <"$TMP/$f.tsv")"
	# fields per event: the man page's list, plus ts, cpu and the name
	same "$f: info --events: every row has its fields" "" \
		"$(awk -F'\t' '{ n[$3] = n[$3] " " NF } END { for (e in n) print e n[e] }' "$TMP/$f.tsv" |
		   awk '{ for (i = 3; i <= NF; i++) if ($i != $2) { print $1; next } }')"
	same "$f: info --events: sched_switch has 10 fields" "" \
		"$(awk -F'\t' '$3 == "sched_switch" && NF != 10' "$TMP/$f.tsv" | head -n 1)"
done
ok "the ANSI name is shown escaped" grep -q $'\tsched_switch\t\\\\x1b\\[2J\\\\x1b\\[H\t' \
	"$TMP/esc-comm-ansi-v6.tsv"
ok "the CR/LF name is shown escaped" grep -q $'\tA\\\\nB\\\\r\\\\nCD\t' "$TMP/esc-comm-newline-osc-v6.tsv"
ok "the OSC name with BEL is shown escaped" grep -q $'\t\\\\x1b\\]0;PW\\\\x07\t' \
	"$TMP/esc-comm-newline-osc-v6.tsv"

# --- databases of the hostile traces -------------------------------------------
for f in esc-comm-ansi-v6 esc-comm-newline-osc-v6; do
	"$SR" replay -q -o "$TMP/$f.db" -t 2 -m mainline -p wake-affine-equal "$H/$f.dat" ||
		fail "$f: replays"
done
# a database with divergences whose tasks carry every kind of hostile name
# (DEL and a C1 control U+009B too, which the traces do not have), from a
# NUMA fixture
N=$FIX/tracedat/numa
DB=$TMP/div.db
"$SR" replay -q -o "$DB" -m v4.15 -t $N/numa-6.12-forks.topo -p wake-affine-equal \
	-p exit-sync-mel $N/numa-6.12-forks.dat || fail "the NUMA fixture replays"
sqlite3 "$DB" "ATTACH '$TMP/esc-comm-newline-osc-v6.db' AS h;
	UPDATE decision_row SET comm = (SELECT comm FROM h.decision WHERE comm LIKE '%PW%' LIMIT 1)
	WHERE tid = 18;
	UPDATE decision_row SET comm = 'x,'||char(34)||char(127)||char(155)||'\\'||char(13)||char(10)||'y'
	WHERE tid = 1567;
	UPDATE decision_row SET waker_comm = (SELECT waker_comm FROM h.decision
		WHERE waker_comm LIKE 'A%CD' LIMIT 1);
	UPDATE decision_runnable SET comm = (SELECT comm FROM h.decision WHERE comm LIKE '%PW%' LIMIT 1)
	WHERE tid = 18;
	UPDATE decision_runnable SET comm = 'x,'||char(34)||char(127)||char(155)||'\\'||char(13)||char(10)||'y'
	WHERE tid = 1567;
	UPDATE decision_runnable SET waker_comm = (SELECT waker_comm FROM h.decision
		WHERE waker_comm LIKE 'A%CD' LIMIT 1);
	UPDATE thread SET name = (SELECT comm FROM decision d WHERE d.tid = thread.tid LIMIT 1)
	WHERE tid IN (18, 1567);
	UPDATE run SET kernel = '6.12'||char(27)||'[31m', host = 'h'||char(7)"
ndec=$(sqlite3 "$DB" "SELECT count(*) FROM decision")

# --- sql ------------------------------------------------------------------------
"$SR" sql -F csv "$DB" "SELECT * FROM decision" >"$TMP/dec.csv"
no_raw "sql -F csv" "$TMP/dec.csv"
same "sql -F csv parses back to one row per decision" "$((ndec + 1)) same" \
	"$(csv_rows "$TMP/dec.csv")"
same "... one line per row" "$((ndec + 1))" "$(wc -l <"$TMP/dec.csv")"
same "sql -F csv: comma, quote, DEL, C1, backslash and CR/LF in one name" \
	'"x,""\x7f\xc2\x9b\\\r\ny"' \
	"$("$SR" sql -F csv --no-header "$DB" "SELECT DISTINCT comm FROM decision WHERE tid = 1567")"
rm -f "$TMP/imp.db"
sqlite3 "$TMP/imp.db" ".import --csv '$TMP/dec.csv' d"
same "sqlite3 .import reads as many rows" "$ndec" "$(sqlite3 "$TMP/imp.db" "SELECT count(*) FROM d")"
"$SR" sql -F table "$DB" "SELECT tid, comm, waker_comm FROM decision WHERE tid IN (18, 1567)" \
	>"$TMP/t.txt"
no_raw "sql -F table" "$TMP/t.txt"
ok "sql -F table shows the escapes" grep -q '\\x1b\]0;PW\\x07  *A\\nB\\r\\nCD' "$TMP/t.txt"
"$SR" sql -F json "$DB" "SELECT tid, comm, waker_comm FROM decision WHERE tid IN (18, 1567)" \
	>"$TMP/j.json"
no_raw "sql -F json" "$TMP/j.json"
same "sql -F json: the same names back" 1 "$(python3 - "$TMP/j.json" "$DB" <<'EOF'
import json, sqlite3, sys
got = [tuple(o.values()) for o in json.load(open(sys.argv[1]))]
want = sqlite3.connect(sys.argv[2]).execute(
    "SELECT tid, comm, waker_comm FROM decision WHERE tid IN (18, 1567)").fetchall()
print(int(got == want and len(got) > 0))
EOF
)"

# --- report ---------------------------------------------------------------------
"$SR" report "$DB" >"$TMP/r.txt"
no_raw "report" "$TMP/r.txt"
ok "report: the kernel string escaped" grep -q '^  kernel  *6.12\\x1b\[31m$' "$TMP/r.txt"
ok "report: a top task's name escaped" grep -q '\\x1b\]0;PW\\x07' "$TMP/r.txt"
"$SR" report --json "$DB" >"$TMP/r.json"
no_raw "report --json" "$TMP/r.json"
ok "report --json is JSON" sqlite3 :memory: "SELECT json('$(sed "s/'/''/g" "$TMP/r.json")')"

# --- the TUI ----------------------------------------------------------------------
for v in list detail summary; do
	"$SR" tui --dump $v --size 200x40 "$DB" >"$TMP/tui-$v.txt"
	no_raw "tui --dump $v" "$TMP/tui-$v.txt"
done
ok "tui list: the name escaped" grep -q '\\x1b\]0;PW\\x07/18' "$TMP/tui-list.txt"
"$SR" tui --dump detail --filter pid=1567 --size 200x40 "$DB" >"$TMP/tui-d.txt"
ok "tui detail: task and waker escaped" \
	grep -q 'task x,"\\x7f\\xc2\\x9b\\\\\\r\\ny/1567   waker A\\nB\\r\\nCD/' "$TMP/tui-d.txt"
for f in "$TMP/div" "$TMP/esc-comm-ansi-v6" "$TMP/esc-comm-newline-osc-v6"; do
	n=$(sqlite3 "$f.db" "SELECT count(*) FROM decision")
	"$SR" tui --dump csv --all "$f.db" >"$TMP/x.csv"
	no_raw "tui CSV export of $(basename "$f")" "$TMP/x.csv"
	same "... parses back to one row per decision" "$((n + 1)) same" "$(csv_rows "$TMP/x.csv")"
done

# --- info's summary: an event name from the trace, in text and JSON -------------
f=$FIX/text/succeed/atrace-test.txt
{ head -n 30 "$f"
  printf 'rcu_preempt-7     (    7) [001] d..3 214168.480611: evil\033]0;pwned\007name: x=1\n'
  tail -n +31 "$f"; } >"$TMP/evil.txt"
"$SR" info "$TMP/evil.txt" >"$TMP/evil.out"
no_raw "info: an event name with OSC and BEL" "$TMP/evil.out"
ok "info: the name is shown escaped" grep -q '^  evil\\x1b\]0;pwned\\x07name  *1$' "$TMP/evil.out"
"$SR" info --json "$TMP/evil.txt" >"$TMP/evil.json"
no_raw "info --json: an event name with OSC and BEL" "$TMP/evil.json"
same "info --json: the name comes back whole" "$(printf 'evil\033]0;pwned\007name')" \
	"$(sqlite3 :memory: "SELECT key FROM json_each(readfile('$TMP/evil.json') -> '\$.counts') WHERE key LIKE 'evil%'")"

test_done
