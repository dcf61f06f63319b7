#!/bin/bash
# Bad input: every case in tests/fixtures/*/fail/ must give exactly the one
# line in its .expect file (naming the file and the place), exit 1, and
# never crash — with the normal build and under ASan + UBSan.  Plus cases
# made at test time: missing file, directory where a file is expected,
# FIFO, unreadable file.
. "$(dirname "$0")/test-lib.sh"

check_case() {
	local bin=$1 label=$2 f=$3 rel
	rel=${f#"$TOP"/}
	(cd "$TOP" && "$bin" info "$rel") >"$TMP/o" 2>"$TMP/e.raw"
	local rc=$?
	# babeltrace names files by absolute path: make it relative to the checkout
	sed "s|$TOP/||g" "$TMP/e.raw" >"$TMP/e"
	if [ $rc -ne 1 ]; then
		fail "$label $rel: exits 1" "exit status $rc; $(head -c 2000 "$TMP/e")"
		return
	fi
	if [ -s "$TMP/o" ]; then
		fail "$label $rel: prints nothing on stdout" "$(head -c 300 "$TMP/o")"
		return
	fi
	if cmp -s "$f.expect" "$TMP/e"; then
		pass "$label $rel: $(cut -c1-100 "$TMP/e")"
	else
		fail "$label $rel: message as expected" \
			"expected: $(cat "$f.expect")
actual:   $(head -c 2000 "$TMP/e")"
	fi
}

# run case function $1 on fixture $2 with the normal build and under ASan + UBSan
both_builds() {
	"$1" "$SR" "" "$2"
	if [ -x "$SR_SAN" ]; then
		ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0 UBSAN_OPTIONS=print_stacktrace=1 \
			LSAN_OPTIONS=suppressions=$TEST_DIR/fuzz/lsan.supp:print_suppressions=0 \
			"$1" "$SR_SAN" "[asan+ubsan]" "$2"
	fi
}

n=0
for f in "$FIX"/*/fail/*; do
	case $f in *.expect) continue ;; esac
	n=$((n + 1))
	both_builds check_case "$f"
done

# CPU numbers out of range: replay fails with the same line and leaves no database
replay_case() {
	local bin=$1 label=$2 f=$3 rel rc
	rel=${f#"$TOP"/}
	rm -f "$TMP/oob.db"
	(cd "$TOP" && "$bin" replay -q -o "$TMP/oob.db" "$rel") >/dev/null 2>"$TMP/e"
	rc=$?
	if [ $rc -eq 1 ] && [ ! -e "$TMP/oob.db" ] && cmp -s "$f.expect" "$TMP/e"; then
		pass "$label replay $rel: exits 1, no database, the same message"
	else
		fail "$label replay $rel: exits 1, no database, the same message" \
			"exit $rc; $(ls "$TMP"/oob.db* 2>/dev/null); $(head -c 1000 "$TMP/e")"
	fi
}
for f in "$FIX"/text/fail/oob-*.txt "$FIX"/tracedat/fail/oob-*.dat; do
	both_builds replay_case "$f"
done

# the sanitizer build run by hand, without the tests' options, reports none of the libraries' leaks
if [ -x "$SR_SAN" ]; then
	f=$FIX/tracedat/fail/oob-v6-waking-target-cpu-512.dat
	(cd "$TOP" && env -u ASAN_OPTIONS -u LSAN_OPTIONS -u UBSAN_OPTIONS "$SR_SAN" info \
		"${f#"$TOP"/}") >/dev/null 2>"$TMP/e"
	same "[asan+ubsan] default options: one line, no leak report" "$(cat "$f.expect")" "$(cat "$TMP/e")"
fi

[ "$n" -ge 20 ] && pass "the corpus has $n cases (at least 20)" || fail "the corpus has at least 20 cases" "$n"

# a compressed chunk of cpu data that does not decompress, found while the
# pages are read (the structural check reads only the chunk headers): one
# line naming the chunk, exit 1, and replay writes no database
f=$FIX/tracedat/succeed/live-6.18-top-v7.dat
cp "$f" "$TMP/badchunk.dat"
printf '\377\377\377\377\377\377\377\377' |
	dd of="$TMP/badchunk.dat" bs=1 seek=$(($(stat -c %s "$f") - 20000)) conv=notrunc 2>/dev/null
"$SR" info "$TMP/badchunk.dat" >"$TMP/o" 2>"$TMP/e1"
same "a chunk of cpu data that does not decompress: exit 1" 1 $?
same "... one line naming the chunk" \
	"schedreplay: cannot read '$TMP/badchunk.dat': cpu 1 data: chunk 15 at offset 0x12eb0e: 2329 compressed bytes do not decompress to 40960 bytes" \
	"$(cat "$TMP/e1")"
"$SR" replay -q -o "$TMP/badchunk.db" "$TMP/badchunk.dat" >"$TMP/o" 2>"$TMP/e1"
same "... replay exits 1" 1 $?
ok "... and leaves no database, no temporary file" \
	sh -c "! ls '$TMP' | grep -q '^badchunk.db'"

"$SR" info "$TMP/does-not-exist.dat" >"$TMP/o" 2>"$TMP/e1"
same "missing file exits 1" 1 $?
same "missing file: one clear line" \
	"schedreplay: cannot open '$TMP/does-not-exist.dat': No such file or directory" "$(cat "$TMP/e1")"

mkdir "$TMP/adir"
"$SR" info -F tracedat "$TMP/adir" >"$TMP/o" 2>"$TMP/e1"
same "directory given as a trace.dat exits 1" 1 $?
ok "directory given as a trace.dat: says so" grep -q "^schedreplay: cannot read '$TMP/adir': is a directory, not a trace.dat file\$" "$TMP/e1"
"$SR" info -F text "$TMP/adir" >"$TMP/o" 2>"$TMP/e1"
same "directory given as text exits 1" 1 $?

mkfifo "$TMP/fifo"
"$SR" info "$TMP/fifo" >"$TMP/o" 2>"$TMP/e1"
same "FIFO exits 2" 2 $?
same "FIFO: one clear line" "schedreplay: cannot open '$TMP/fifo': not a regular file or directory" \
	"$(cat "$TMP/e1")"

cp "$FIX/text/succeed/trace-critical-path.txt" "$TMP/unreadable.txt"
chmod 000 "$TMP/unreadable.txt"
if [ "$(id -u)" = 0 ]; then
	skip "unreadable file" "running as root, which reads any file"
else
	"$SR" info "$TMP/unreadable.txt" >"$TMP/o" 2>"$TMP/e1"
	same "unreadable file exits 1" 1 $?
	same "unreadable file: one clear line" \
		"schedreplay: cannot open '$TMP/unreadable.txt': Permission denied" "$(cat "$TMP/e1")"
fi

# unreadable_refused EVENT NAME WHAT FIELD: replay of $TMP/NAME.dat, whose
# EVENT has a FIELD the reader cannot take, is refused: exit 1, one line
# naming WHAT, no database
unreadable_refused() {
	"$SR" replay -q -o "$TMP/$2.db" "$TMP/$2.dat" >"$TMP/o" 2>"$TMP/e1"
	same "$1 with an unreadable $4 exits 1" 1 $?
	ok "... one line naming $3" grep -qx \
		"schedreplay: cannot read '$TMP/$2.dat': cpu [0-9]* record at offset [0-9]*: $1 without a readable '$4' field" \
		"$TMP/e1"
	same "... and only that line" 1 "$(wc -l <"$TMP/e1")"
	ok "... and no database" test ! -e "$TMP/$2.db"
}

# v6_narrowed IN V6 OUT EVENT DECL SIZE: IN as a v6 copy V6, whose format
# text can be patched (v7 compresses it), and OUT, V6 with EVENT's field
# DECL (of SIZE bytes) said to be 3 bytes, which the reader cannot take
v6_narrowed() {
	trace-cmd convert -i "$1" -o "$2" --file-version 6 >/dev/null 2>&1 &&
	python3 -c '
import sys
d = open(sys.argv[1], "rb").read()
i = d.find(b"name: " + sys.argv[3].encode() + b"\n")
j = d.find(sys.argv[4].encode(), i)
k = d.find(b"size:" + sys.argv[5].encode() + b";", j)
if i < 0 or j < 0 or k < 0:
    sys.exit(1)
open(sys.argv[2], "wb").write(d[:k] + b"size:3;" + d[k + 6 + len(sys.argv[5]):])' "$2" "$3" "$4" "$5" "$6"
}

have_convert() {
	command -v trace-cmd >/dev/null && command -v python3 >/dev/null
}

# a trace.dat whose rqstat input probe has a c0load the reader cannot take:
# made here from the committed recording
if have_convert && v6_narrowed "$FIX/tracedat/inputs/numa-6.12-sr-mix.dat" "$TMP/rq6.dat" \
		"$TMP/rqbad.dat" rqstat "field:u64 c0load;" 8; then
	unreadable_refused rqstat rqbad "the file and the record" c0load
else
	skip "rqstat with an unreadable c0load" "no trace-cmd convert or python3"
fi

# the same for the lb_task probe (record.sh --lb-probes) and its mt
if have_convert && v6_narrowed "$FIX/tracedat/inputs/numa-6.1-tc-spread-lb.dat" "$TMP/lbt6.dat" \
		"$TMP/lbtbad.dat" lb_task "field:u32 mt;" 4; then
	unreadable_refused lb_task lbtbad "the file, the record and lb_task" mt
else
	skip "lb_task with an unreadable mt" "no trace-cmd convert or python3"
fi

# the same v6 copy with its rqstat event renamed lb_rqstat (the balance-side
# probe of record.sh --lb-probes --input-probes; three spaces of its print
# fmt give the name room, so that no offset moves): read as lb_rqstat, and
# refused the same way with an unreadable c0load
lb_rename() {	# lb_rename IN OUT [bad]: the renamed copy, c0load 3 bytes with bad
	python3 -c '
import sys
d = open(sys.argv[1], "rb").read()
i = d.find(b"name: rqstat\n")
e = d.find(b"print fmt:", i)
end = d.find(b"\n", e)
if i < 0 or e < 0 or d[e:end].count(b", REC->") < 3:
    sys.exit(1)
body = d[i + 13:e]
if len(sys.argv) > 3:
    j = body.find(b"field:u64 c0load;")
    k = body.find(b"size:8;", j)
    if j < 0 or k < 0:
        sys.exit(1)
    body = body[:k] + b"size:3;" + body[k + 7:]
out = d[:i] + b"name: lb_rqstat\n" + body + d[e:end].replace(b", REC->", b",REC->", 3) + d[end:]
if len(out) != len(d):
    sys.exit(1)
open(sys.argv[2], "wb").write(out)' "$@"
}
if [ -s "$TMP/rq6.dat" ] && lb_rename "$TMP/rq6.dat" "$TMP/lb.dat" &&
	lb_rename "$TMP/rq6.dat" "$TMP/lbbad.dat" bad; then
	"$SR" replay "$TMP/lb.dat" >"$TMP/o" 2>"$TMP/e1"
	same "a trace.dat with lb_rqstat replays" 0 $?
	ok "... and compares the engine's CPUs with it" grep -q \
		"^inputs: *balance: the engine's other CPUs against lb_rqstat ([1-9][0-9]*)" "$TMP/o"
	unreadable_refused lb_rqstat lbbad "the file, the record and the event" c0load
else
	skip "lb_rqstat in a trace.dat" "no trace-cmd convert or python3"
fi
test_done
