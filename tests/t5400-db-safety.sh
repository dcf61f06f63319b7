#!/bin/bash
# The database is never lost: appends go through SQLite's own locking in
# one transaction (concurrent appends both land, another program's
# transaction stays, WAL works, the file keeps its mode, inode, links and
# symlink), a damaged, truncated, read-only or locked file is refused with
# a message that says so, new files are created exclusively, temporary files
# of killed replays are removed, and a signal at any point writes nothing.
# Races and signals are placed with LD_PRELOAD hooks (tests/lib/db-hooks.c)
# and sqlite3 processes fed through a fifo: no sleeps decide an outcome.
. "$(dirname "$0")/test-lib.sh"

command -v sqlite3 >/dev/null || skip_all "sqlite3 not installed (make deps)"
CC=${CC:-cc}
command -v "$CC" >/dev/null || skip_all "no C compiler for the test hooks"
"$CC" -shared -fPIC -o "$TMP/hooks.so" "$TEST_DIR/lib/db-hooks.c" -ldl ||
	skip_all "cannot build tests/lib/db-hooks.c"
"$CC" -o "$TMP/hold-ofd-lock" "$TEST_DIR/lib/hold-ofd-lock.c" ||
	skip_all "cannot build tests/lib/hold-ofd-lock.c"

# a 2-CPU recording without topology metadata: -t 1x2x1 with each replay
v7="$FIX/tracedat/succeed/live-6.18-instance-v7.dat"
runs() { sqlite3 "$1" 'SELECT count(*) FROM run'; }
# wait_for COMMAND: until it succeeds (an event the test waits for, at most 60 s)
wait_for() {
	local i=0
	until eval "$1"; do
		i=$((i + 1))
		[ $i -gt 6000 ] && return 1
		sleep 0.01
	done
}
# hold DB SQL: an sqlite3 process runs SQL on DB and keeps what it took
# (a transaction) until release
hold() {
	rm -f "$TMP/fifo" "$TMP/held"
	mkfifo "$TMP/fifo"
	sqlite3 "$1" <"$TMP/fifo" >"$TMP/holder.out" 2>&1 &
	holder=$!
	exec 3>"$TMP/fifo"
	printf '%s\n.shell touch %s\n' "$2" "$TMP/held" >&3
	wait_for "test -e '$TMP/held'"
}
release() {
	printf '%s\n.quit\n' "$1" >&3
	exec 3>&-
	wait $holder
}
# whole DB RUNS: integrity, the number of runs, unique decision ids
whole() {
	[ "$(sqlite3 "$1" 'PRAGMA integrity_check')" = ok ] &&
	[ "$(runs "$1")" = "$2" ] &&
	[ "$(sqlite3 "$1" 'SELECT count(*) = count(DISTINCT decision_id) FROM decision')" = 1 ]
}

base="$TMP/base.db"
"$SR" replay -q -o "$base" -t 1x2x1 "$v7" 2>/dev/null
dec1=$(sqlite3 "$base" 'SELECT count(*) FROM decision')

# -- concurrent appends: both land, serialized
for i in 1 2 3 4 5; do
	cp "$base" "$TMP/c.db"
	"$SR" replay -q -a -o "$TMP/c.db" -t 1x2x1 "$v7" 2>"$TMP/e1" &
	p1=$!
	"$SR" replay -q -a -o "$TMP/c.db" -m v4.15 -t 1x2x1 "$v7" 2>"$TMP/e2" &
	p2=$!
	wait $p1; r1=$?
	wait $p2; r2=$?
	if [ $r1 -eq 0 ] && [ $r2 -eq 0 ] && whole "$TMP/c.db" 3 &&
	   [ "$(sqlite3 "$TMP/c.db" 'SELECT count(*) FROM decision')" = $((dec1 * 3)) ]; then
		pass "two concurrent appends both land (try $i)"
	else
		fail "two concurrent appends both land (try $i)" "$r1 $r2 $(cat "$TMP/e1" "$TMP/e2")"
	fi
done
ls "$TMP"/c.db.tmp-* >/dev/null 2>&1 && fail "no temporary file after the appends" ||
	pass "no temporary file after the appends"

# -- another writer holds a write transaction: the append waits, then both land
cp "$base" "$TMP/w.db"
ino=$(stat -c %i "$TMP/w.db")
hold "$TMP/w.db" "BEGIN IMMEDIATE; INSERT INTO meta VALUES ('other', 'writer');"
# a fresh file: the background replay truncates it only once it has
# started, and an old "is locked" there would end wait_for too soon
rm -f "$TMP/e1"
"$SR" replay -q -a -o "$TMP/w.db" -t 1x2x1 "$v7" 2>"$TMP/e1" &
rp=$!
if wait_for "grep -q 'is locked' '$TMP/e1'"; then
	pass "the append waits for the lock and says so"
else
	fail "the append waits for the lock and says so" "$(cat "$TMP/e1")"
fi
same "the notice names the holder" \
	"schedreplay: replay: '$TMP/w.db' is locked by pid $holder (sqlite3): waiting up to 10 s" \
	"$(head -n 1 "$TMP/e1")"
release "COMMIT;"
wait $rp
same "then the append succeeds" 0 $?
ok "the other writer's row stays" test "$(sqlite3 "$TMP/w.db" "SELECT value FROM meta WHERE key = 'other'")" = writer
ok "and both runs are there, the file whole" whole "$TMP/w.db" 2
same "the file keeps its inode" "$ino" "$(stat -c %i "$TMP/w.db")"

# -- the lock is not released in time: a clear failure, nothing changed
cp "$base" "$TMP/l.db"
hold "$TMP/l.db" "BEGIN IMMEDIATE; INSERT INTO meta VALUES ('other', 'writer');"
"$SR" replay -q -a --lock-timeout 0.2 -o "$TMP/l.db" -t 1x2x1 "$v7" >/dev/null 2>"$TMP/e1"
same "a lock held past --lock-timeout: exit 1" 1 $?
same "and the message says locked, by whom, and for how long it waited" \
	"schedreplay: '$TMP/l.db' is locked by pid $holder (sqlite3): gave up after 0.2 s (see --lock-timeout); the file is unchanged" \
	"$(tail -n 1 "$TMP/e1")"
release "ROLLBACK;"
ok "the database is unchanged" whole "$TMP/l.db" 1
ok "no temporary file" sh -c "! ls '$TMP'/l.db.tmp-* 2>/dev/null"

# -- an exclusive lock (readers wait too): --lock-timeout bounds the whole
# wait; the check of the runs' topologies before the replay does not wait
cp "$base" "$TMP/x2.db"
hold "$TMP/x2.db" "BEGIN EXCLUSIVE; INSERT INTO meta VALUES ('other', 'writer');"
t0=$(date +%s)
"$SR" replay -q -a --lock-timeout 0.2 -o "$TMP/x2.db" -t 1x2x1 "$v7" >/dev/null 2>"$TMP/e1"
same "an exclusive lock held past --lock-timeout: exit 1" 1 $?
ok "gave up well before the 10 s default (was: 10 s more in the topology check)" \
	test $(($(date +%s) - t0)) -lt 5
same "the message says it gave up after 0.2 s" \
	"schedreplay: '$TMP/x2.db' is locked by pid $holder (sqlite3): gave up after 0.2 s (see --lock-timeout); the file is unchanged" \
	"$(tail -n 1 "$TMP/e1")"
release "ROLLBACK;"
ok "the database is unchanged" whole "$TMP/x2.db" 1

# -- a signal while waiting for the lock: 130, nothing written
cp "$base" "$TMP/s.db"
cp "$base" "$TMP/s.orig"
hold "$TMP/s.db" "BEGIN IMMEDIATE; CREATE TABLE other (x);"
# a fresh file: the background replay truncates it only once it has
# started, and an old "is locked" there would end wait_for too soon
rm -f "$TMP/e1"
"$SR" replay -q -a -o "$TMP/s.db" -t 1x2x1 "$v7" >/dev/null 2>"$TMP/e1" &
rp=$!
wait_for "grep -q 'is locked' '$TMP/e1'"
kill -INT $rp
wait $rp
same "SIGINT while waiting for the lock exits 130" 130 $?
release "ROLLBACK;"
ok "and the database is unchanged" cmp "$TMP/s.db" "$TMP/s.orig"
ok "and no temporary file is left" sh -c "! ls '$TMP'/s.db.tmp-* 2>/dev/null"

# -- WAL mode with an open reader
cp "$base" "$TMP/wal.db"
sqlite3 "$TMP/wal.db" 'PRAGMA journal_mode = WAL' >/dev/null
hold "$TMP/wal.db" "BEGIN; SELECT count(*) FROM run;"
"$SR" replay -q -a -o "$TMP/wal.db" -t 1x2x1 "$v7" 2>"$TMP/e1"
same "an append to a WAL database with an open reader succeeds" 0 $?
release "COMMIT;"
ok "the reader saw one run (its snapshot)" grep -qx 1 "$TMP/holder.out"
ok "the WAL database is whole with two runs" whole "$TMP/wal.db" 2
same "and still in WAL mode" wal "$(sqlite3 "$TMP/wal.db" 'PRAGMA journal_mode')"

# -- --force over a database another writer holds: waits, then replaces it
cp "$base" "$TMP/fw.db"
hold "$TMP/fw.db" "BEGIN IMMEDIATE; INSERT INTO meta VALUES ('other', 'writer');"
# a fresh file: the background replay truncates it only once it has
# started, and an old "is locked" there would end wait_for too soon
rm -f "$TMP/e1"
"$SR" replay -q -f -o "$TMP/fw.db" -m v4.15 -t 1x2x1 "$v7" 2>"$TMP/e1" &
rp=$!
if wait_for "grep -q 'is locked' '$TMP/e1'"; then
	pass "--force waits for the other writer's lock"
else
	fail "--force waits for the other writer's lock" "$(cat "$TMP/e1")"
fi
release "COMMIT;"
wait $rp
same "then replaces the file" "0 v4.15" "$? $(sqlite3 "$TMP/fw.db" 'SELECT model FROM run')"

# -- the file's mode, links and symlink
cp "$base" "$TMP/m.db"
chmod 600 "$TMP/m.db"
"$SR" replay -q -a -o "$TMP/m.db" -t 1x2x1 "$v7"
same "mode 0600 is kept" 600 "$(stat -c %a "$TMP/m.db")"
cp "$base" "$TMP/ro.db"
chmod 444 "$TMP/ro.db"
"$SR" replay -q -a -o "$TMP/ro.db" -t 1x2x1 "$v7" 2>"$TMP/e1"
same "a read-only (0444) database is not written: exit 1" 1 $?
same "and the message says read-only" \
	"schedreplay: cannot append to '$TMP/ro.db': it is read-only (mode 0444); make it writable or write a new database" \
	"$(cat "$TMP/e1")"
ok "the read-only file is unchanged" cmp "$TMP/ro.db" "$base"
same "and keeps its mode" 444 "$(stat -c %a "$TMP/ro.db")"
cp "$base" "$TMP/target.db"
ln -s target.db "$TMP/link.db"
"$SR" replay -q -a -o "$TMP/link.db" -t 1x2x1 "$v7"
ok "an append through a symlink keeps the symlink" test -L "$TMP/link.db"
ok "and its target gets the run" whole "$TMP/target.db" 2
"$SR" replay -q -f -o "$TMP/link.db" -t 1x2x1 "$v7"
ok "--force through a symlink keeps the symlink" test -L "$TMP/link.db"
ok "and replaces its target" whole "$TMP/target.db" 1
cp "$base" "$TMP/h1.db"
ln "$TMP/h1.db" "$TMP/h2.db"
"$SR" replay -q -a -o "$TMP/h1.db" -t 1x2x1 "$v7"
same "a hard link stays a link" 2 "$(stat -c %h "$TMP/h1.db")"
ok "and sees the run" whole "$TMP/h2.db" 2
cp "$base" "$TMP/fm.db"
chmod 640 "$TMP/fm.db"
"$SR" replay -q -f -o "$TMP/fm.db" -t 1x2x1 "$v7"
same "--force keeps the replaced file's mode" 640 "$(stat -c %a "$TMP/fm.db")"

# -- damaged and truncated databases are named so and left alone
cp "$base" "$TMP/bad.db"
head -c 16384 /dev/zero | tr '\0' '\377' |
	dd of="$TMP/bad.db" bs=16384 seek=20 conv=notrunc 2>/dev/null
cp "$TMP/bad.db" "$TMP/bad.orig"
"$SR" replay -q -a -o "$TMP/bad.db" -t 1x2x1 "$v7" 2>"$TMP/e1"
same "a database that fails quick_check is refused: exit 1" 1 $?
ok "the message says damaged" grep -q "^schedreplay: '$TMP/bad.db' is damaged (PRAGMA quick_check: .*): not appending to it; the file is unchanged\$" "$TMP/e1"
ok "the damaged file is unchanged" cmp "$TMP/bad.db" "$TMP/bad.orig"
head -c 50 "$base" >"$TMP/t50.db"
"$SR" replay -q -a -o "$TMP/t50.db" -t 1x2x1 "$v7" 2>"$TMP/e1"
same "a 50-byte database: refused as truncated" \
	"schedreplay: '$TMP/t50.db' is damaged: truncated to 50 bytes (an SQLite database's header alone is 100)" \
	"$(cat "$TMP/e1")"
"$SR" sql "$TMP/t50.db" 'SELECT 1' >/dev/null 2>"$TMP/e1"
ok "sql says the same" grep -q "is damaged: truncated to 50 bytes" "$TMP/e1"
head -c 100000 "$base" >"$TMP/t100k.db"
"$SR" sql "$TMP/t100k.db" 'SELECT 1' >/dev/null 2>"$TMP/e1"
same "a database cut inside a page: truncated" \
	"schedreplay: '$TMP/t100k.db' is damaged: truncated (100000 bytes, not a whole number of 16384-byte pages)" \
	"$(cat "$TMP/e1")"

# -- new files are created exclusively
hook() { env LD_PRELOAD="$TMP/hooks.so" SR_HOOK="$1" "${@:2}"; }
printf 'another program wrote this\n' >"$TMP/other.txt"
hook "create=$TMP/other.txt" "$SR" replay -q -o "$TMP/race.db" -t 1x2x1 "$v7" 2>"$TMP/e1"
same "a path created by another process during the replay: exit 1" 1 $?
same "and the message says so" \
	"schedreplay: '$TMP/race.db' exists (another process created it during the replay): use -f to replace it, -a to append to it" \
	"$(cat "$TMP/e1")"
ok "the other file is untouched" cmp "$TMP/race.db" "$TMP/other.txt"
ok "no temporary file" sh -c "! ls '$TMP'/race.db.tmp-* 2>/dev/null"
hook "create=$base" "$SR" replay -q -a -o "$TMP/race2.db" -t 1x2x1 "$v7"
same "with --append, a database created meanwhile gets the run" 0 $?
ok "both runs are there" whole "$TMP/race2.db" 2
for i in 1 2 3 4 5; do
	rm -f "$TMP/new.db"
	"$SR" replay -q -o "$TMP/new.db" -t 1x2x1 "$v7" 2>"$TMP/e1" &
	p1=$!
	"$SR" replay -q -o "$TMP/new.db" -m v4.15 -t 1x2x1 "$v7" 2>"$TMP/e2" &
	p2=$!
	wait $p1; r1=$?
	wait $p2; r2=$?
	if [ $((r1 + r2)) -eq 1 ] && grep -q "exists" "$TMP/e1" "$TMP/e2" && whole "$TMP/new.db" 1; then
		pass "two replays racing to a new path: exactly one succeeds (try $i)"
	else
		fail "two replays racing to a new path: exactly one succeeds (try $i)" \
			"$r1 $r2 $(cat "$TMP/e1" "$TMP/e2")"
	fi
done

# -- temporary files of killed replays
# (env execs the replay: $! is its PID)
env LD_PRELOAD="$TMP/hooks.so" SR_HOOK=stop "$SR" replay -q -o "$TMP/k.db" -t 1x2x1 "$v7" 2>/dev/null &
kp=$!
wait_for "ls '$TMP'/k.db.tmp-$kp >/dev/null 2>&1"
kill -9 $kp
wait $kp 2>/dev/null
ok "a replay killed with SIGKILL leaves its temporary file" test -e "$TMP/k.db.tmp-$kp"
: >"$TMP/k.db.tmp-999999999"
"$SR" replay -q -o "$TMP/k.db" -t 1x2x1 "$v7" 2>"$TMP/e1"
same "the next replay succeeds" 0 $?
ok "and removes the stale temporary file" test ! -e "$TMP/k.db.tmp-$kp"
ok "and says so" grep -qx "schedreplay: replay: removed '$TMP/k.db.tmp-$kp': a temporary file left by replay process $kp, which was killed" "$TMP/e1"
ok "a name with a PID that does not exist is stale too" test ! -e "$TMP/k.db.tmp-999999999"
# a live replay's temporary file (its lock held) is left alone
: >"$TMP/k.db.tmp-$$"
rm -f "$TMP/lk"
mkfifo "$TMP/lk"
"$TMP/hold-ofd-lock" "$TMP/k.db.tmp-$$" <"$TMP/lk" >"$TMP/lk.out" &
lp=$!
exec 4>"$TMP/lk"
wait_for "grep -q locked '$TMP/lk.out'"
"$SR" replay -q -f -o "$TMP/k.db" -t 1x2x1 "$v7" 2>"$TMP/e1"
ok "a locked (live) temporary file is kept" test -e "$TMP/k.db.tmp-$$"
exec 4>&-
wait $lp

# -- a signal at the end of the replay writes nothing
hook fsync "$SR" replay -q -o "$TMP/late.db" -t 1x2x1 "$v7" 2>"$TMP/e1"
same "SIGINT after the index build, before the file is put in place: 130" 130 $?
ok "no database and no temporary file" sh -c "! ls '$TMP'/late.db* 2>/dev/null"
same "and it says so" "schedreplay: replay: interrupted, nothing written to '$TMP/late.db'" "$(cat "$TMP/e1")"
cp "$base" "$TMP/late2.db"
hook journal "$SR" replay -q -a -o "$TMP/late2.db" -t 1x2x1 "$v7" 2>"$TMP/e1"
same "SIGINT during the append's copy: 130" 130 $?
ok "the database is unchanged" cmp "$TMP/late2.db" "$base"
ok "no journal or temporary file is left" sh -c "! ls '$TMP'/late2.db?* 2>/dev/null"

# -- an appended run equals the same run written alone, table by table
"$SR" replay -q -o "$TMP/alone.db" -m v4.15 -p wake-affine-equal -p exit-sync-peterz \
	--snapshots all "$v7" 2>/dev/null
cp "$base" "$TMP/app.db"
"$SR" replay -q -a -o "$TMP/app.db" -m v4.15 -p wake-affine-equal -p exit-sync-peterz \
	--snapshots all "$v7" 2>/dev/null
for t in $(sqlite3 "$TMP/alone.db" "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT IN ('meta', 'reason') AND name NOT LIKE 'sqlite%' ORDER BY name"); do
	a=$(sqlite3 "$TMP/alone.db" "SELECT count(*) FROM $t")
	b=$(( $(sqlite3 "$TMP/app.db" "SELECT count(*) FROM $t") - $(sqlite3 "$base" "SELECT count(*) FROM $t") ))
	same "appended rows of $t equal the run alone ($a)" "$a" "$b"
done
q="SELECT d.decision_id - (SELECT min(decision_id) FROM decision WHERE run_id = d.run_id), s.model, s.patch, s.variant, e.cpu, e.reason FROM decision d JOIN evaluation_v e USING (decision_id) JOIN side s USING (side_id) WHERE d.run_id = (SELECT max(run_id) FROM run) ORDER BY 1, 2, 3, 4"
same "its evaluations and reasons are the same" \
	"$(sqlite3 "$TMP/alone.db" "$q" | md5sum)" "$(sqlite3 "$TMP/app.db" "$q" | md5sum)"

# -- options that mean nothing alone, or together
"$SR" replay -q -a -t 1x2x1 "$v7" >/dev/null 2>"$TMP/e1"
same "-a without -o is refused" "2 schedreplay: replay: --append needs --output DB" "$? $(cat "$TMP/e1")"
"$SR" replay -q -f -t 1x2x1 "$v7" >/dev/null 2>"$TMP/e1"
same "-f without -o is refused" 2 $?
"$SR" replay -q --json --fidelity -t 1x2x1 "$v7" >/dev/null 2>"$TMP/e1"
same "--json with --fidelity is refused" 2 $?
"$SR" replay -q -a -o "$TMP/x.db" --lock-timeout soon -t 1x2x1 "$v7" >/dev/null 2>"$TMP/e1"
same "a bad --lock-timeout is refused" 2 $?

# -- what replay -o says
rm -f "$TMP/say.db"
"$SR" replay -o "$TMP/say.db" -p wake-affine-equal -t 1x2x1 "$v7" >"$TMP/o" 2>"$TMP/e1"
same "replay -o says what it wrote, on stderr" \
	"schedreplay: replay: run 1 written to new '$TMP/say.db': $dec1 decisions, $(sqlite3 "$TMP/say.db" 'SELECT count(*) FROM divergence') divergences (a decision counts once per patch pair whose sides differ there)" \
	"$(grep -v 'carries no topology' "$TMP/e1")"
same "and nothing on stdout" "" "$(cat "$TMP/o")"
"$SR" replay -a -o "$TMP/say.db" -t 1x2x1 "$v7" >/dev/null 2>"$TMP/e1"
same "an append names the run" \
	"schedreplay: replay: run 2 appended to '$TMP/say.db': $dec1 decisions" \
	"$(grep -v 'carries no topology' "$TMP/e1")"
"$SR" replay -q -a -o "$TMP/say.db" -t 1x2x1 "$v7" >/dev/null 2>"$TMP/e1"
same "-q: nothing" "" "$(cat "$TMP/e1")"

# -- memory runs out: one clear line, nothing written (23 MB of address space:
# replay -o fits in 28 since libtracecmd parses neither the kallsyms section
# nor the formats of other systems than sched, schedreplay and ftrace; 22 to
# 24 run out before the first event, 25 to 27 at an insert, the same way)
rm -f "$TMP/oom.db"*
(ulimit -v 23000 && exec "$SR" replay -q -o "$TMP/oom.db" --snapshots all -t 1x2x1 "$v7") >/dev/null 2>"$TMP/e1"
same "out of memory (ulimit -v 23000): exit 1" 1 $?
ok "the message says out of memory" grep -q "out of memory" "$TMP/e1"
ok "and nothing is written" sh -c "! ls '$TMP'/oom.db* 2>/dev/null"
# less (17 MB; from 12 to 20 alike): memory runs out while the file's
# compressed header sections are checked, which is no damage in the file
(ulimit -v 17000 && exec "$SR" replay -q -o "$TMP/oom.db" -t 1x2x1 "$v7") >/dev/null 2>"$TMP/e1"
same "out of memory in the file check (ulimit -v 17000): exit 1" 1 $?
ok "the message says out of memory" grep -q "out of memory" "$TMP/e1"
ok "not that a section does not decompress" sh -c "! grep -q 'decompress' '$TMP/e1'"
ok "and nothing is written" sh -c "! ls '$TMP'/oom.db* 2>/dev/null"

# -- the progress line: on a terminal only, with share, rate and time left
# (script(1) needs a pseudo-terminal: none in a chroot without /dev/pts)
pty_why=
if ! command -v script >/dev/null; then
	pty_why="no script(1)"
elif ! script -qec true /dev/null >"$TMP/pty.out" 2>&1; then
	pty_why="script(1) cannot make a pseudo-terminal here: $(head -n 1 "$TMP/pty.out")"
fi
if [ -z "$pty_why" ]; then
	for i in $(seq 1 100); do cat "$FIX/text/succeed/atrace-test.txt"; done |
		awk '/^#/ && NR > 20 { next } { print }' |
		awk 'BEGIN { off = 0; last = 0 }
		     /^#/ { print; next }
		     { match($0, /[0-9]+\.[0-9]+:/); ts = substr($0, RSTART, RLENGTH - 1) + 0
		       if (ts + off < last) off += 10; t = ts + off; last = t
		       printf "%s%.6f%s\n", substr($0, 1, RSTART - 1), t, substr($0, RSTART + RLENGTH - 1) }' \
		>"$TMP/long.txt"
	script -qec "'$SR' replay -o '$TMP/p.db' '$TMP/long.txt'" /dev/null >"$TMP/tty.out" 2>&1
	tr '\r' '\n' <"$TMP/tty.out" >"$TMP/tty.lines"
	ok "on a terminal: events, share of the file, rate, time left" \
		grep -Eq '^replay: [0-9]+ events, [0-9]+% of [0-9]+ MB, [0-9.]+ M events/s(, [0-9:]+ left)?' "$TMP/tty.lines"
	ok "then the last steps" grep -q '^replay: writing the database and its indexes' "$TMP/tty.lines"
	ok "and the line is cleared before the summary" grep -q "^.\[Kschedreplay: replay: run 1 written to new '$TMP/p.db'" "$TMP/tty.lines"
	script -qec "'$SR' replay -q -f -o '$TMP/p.db' '$TMP/long.txt'" /dev/null >"$TMP/tty.out" 2>&1
	same "-q on a terminal: nothing but the warnings" "" "$(grep -v 'schedreplay: warning:' "$TMP/tty.out" | tr -d '\r\n')"
	# SIGINT in the last steps, as a user presses Ctrl-C on seeing them: 130
	# and nothing written, or (the signal came after the commit) 0 and a
	# whole database; never anything in between
	for phase in "the last decisions" "writing the database and its indexes"; do
		rm -f "$TMP/ph.db" "$TMP/pid"
		script -qefc "echo \$\$ >'$TMP/pid'; exec '$SR' replay -o '$TMP/ph.db' '$TMP/long.txt'" \
			/dev/null >"$TMP/tty.out" 2>&1 &
		sp=$!
		wait_for "grep -q '$phase' '$TMP/tty.out' || ! kill -0 $sp 2>/dev/null"
		kill -INT "$(cat "$TMP/pid")" 2>/dev/null
		wait $sp
		rc=$?
		if [ $rc -eq 130 ] && ! ls "$TMP"/ph.db* >/dev/null 2>&1; then
			pass "SIGINT at '$phase': 130, nothing written"
		elif [ $rc -eq 0 ] && whole "$TMP/ph.db" 1 && ! ls "$TMP"/ph.db.tmp-* >/dev/null 2>&1; then
			pass "SIGINT at '$phase': came after the commit, a whole database"
		else
			fail "SIGINT at '$phase'" "rc $rc: $(ls "$TMP"/ph.db* 2>&1; tr '\r' '\n' <"$TMP/tty.out" | tail -n 3)"
		fi
	done
	"$SR" replay -f -o "$TMP/p.db" "$TMP/long.txt" 2>"$TMP/e1"
	ok "stderr not a terminal: no progress line" sh -c "! grep -q '^replay: [0-9]* events' '$TMP/e1' && ! grep -q \"\$(printf '\\r')\" '$TMP/e1'"
else
	skip "the progress line on a terminal" "$pty_why"
fi

test_done
