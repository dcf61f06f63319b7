#!/bin/bash
# Live kernel: record scheduler events through tracefs in a tracing instance
# of our own, save the instance's text "trace" file and a trace.dat
# (trace-cmd extract, file version 7 and converted to 6), and check that info
# reads all three as the reference tools do.  Needs root and tracefs; says
# SKIP elsewhere.  The instance is removed on every exit path.
. "$(dirname "$0")/test-lib.sh"

[ "$(id -u)" = 0 ] || skip_all "needs root to use tracefs"
command -v trace-cmd >/dev/null || skip_all "trace-cmd not installed (make deps)"
T=/sys/kernel/tracing
# a tracefs the test mounts is unmounted at its end: the machine as it was
MOUNTED=0
if [ ! -e $T/instances ]; then
	mount -t tracefs nodev $T 2>/dev/null || skip_all "tracefs cannot be mounted here"
	MOUNTED=1
	trap 'umount $T 2>/dev/null; rm -rf "$TMP"' EXIT
fi
[ -d $T/instances ] || skip_all "tracefs has no instances directory"

INST=schedreplay-test-$$
I=$T/instances/$INST
EVENTS="sched_switch sched_waking sched_wakeup sched_wakeup_new sched_migrate_task \
sched_process_fork sched_process_exit sched_process_free"
cleanup() {
	if [ -d "$I" ]; then
		echo 0 >"$I/tracing_on" 2>/dev/null
		for e in $EVENTS; do echo 0 >"$I/events/sched/$e/enable" 2>/dev/null; done
		rmdir "$I" 2>/dev/null
	fi
	[ $MOUNTED = 1 ] && umount $T 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT INT TERM

mkdir "$I" 2>/dev/null || skip_all "cannot create a tracing instance"
echo 2048 >"$I/buffer_size_kb"
for e in $EVENTS; do
	echo 1 >"$I/events/sched/$e/enable" 2>/dev/null || echo "# $e not on this kernel"
done
echo 1 >"$I/tracing_on"
for k in $(seq 1 40); do sh -c 'cat /proc/self/stat >/dev/null' & done
(yes | head -c 2000000 | md5sum >/dev/null) &
wait
echo 0 >"$I/tracing_on"

cat "$I/trace" >"$TMP/live.txt"
trace-cmd extract -B "$INST" -o "$TMP/live.dat" >/dev/null 2>&1
[ -s "$TMP/live.dat" ] || { fail "trace-cmd extract wrote a trace.dat"; test_done; exit; }
trace-cmd convert --file-version 6 --compression none -i "$TMP/live.dat" -o "$TMP/live6.dat" \
	>/dev/null 2>&1

for f in live.dat live6.dat; do
	trace-cmd report -R -t "$TMP/$f" 2>/dev/null | awk -f "$TEST_DIR/lib/tracecmd-tsv.awk" >"$TMP/ref.tsv"
	"$SR" info --events "$TMP/$f" 2>"$TMP/e1" | grep -v '	lost	' >"$TMP/our.tsv"
	if [ -s "$TMP/ref.tsv" ] && cmp -s "$TMP/ref.tsv" "$TMP/our.tsv"; then
		pass "$f: $(wc -l <"$TMP/ref.tsv") live events decode as trace-cmd report decodes them"
	else
		fail "$f: live events decode as trace-cmd report decodes them" \
			"$(cat "$TMP/e1"; diff "$TMP/ref.tsv" "$TMP/our.tsv" | head)"
	fi
done
"$SR" info "$TMP/live.dat" >"$TMP/i.txt"
ok "live trace.dat: kernel release is this kernel's" grep -q "^kernel: *$(uname -r)\$" "$TMP/i.txt"

# the instance's text "trace" file: same events as the binary file (the
# text prints microseconds, so compare counts and the event sequence)
"$SR" info --events "$TMP/live.txt" >"$TMP/txt.tsv" 2>"$TMP/e1"
same "tracefs text: info exits 0" "" "$(cat "$TMP/e1")"
cut -f2- "$TMP/txt.tsv" | cut -f1-4 >"$TMP/a"
"$SR" info --events "$TMP/live.dat" | grep -v '	lost	' | cut -f2- | cut -f1-4 >"$TMP/b"
if cmp -s "$TMP/a" "$TMP/b"; then
	pass "tracefs text: same events (cpu, name, task) in the same order as the trace.dat"
else
	fail "tracefs text: same events in the same order as the trace.dat" "$(diff "$TMP/a" "$TMP/b" | head)"
fi
test_done
