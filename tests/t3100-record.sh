#!/bin/bash
# schedreplay record on the live kernel: a recording around a fork + pipe
# load reads back in trace-cmd report and in info with the same counts, has
# no lost events and carries the metadata print events; the command's exit
# status passes through; --balance-probes and --input-probes record their
# probe events where the kernel can (replay skips the input probes' and
# still pairs every fork); -d, SIGINT, SIGTERM, a crashing or missing command,
# a second recorder, a bad -e and a stale instance left by SIGKILL all leave
# tracefs as it was found (instances, top-level set_event, tracing_on, the
# sched enables, kprobe_events, uprobe_events, mounts).  Without kprobe
# events, the setaffinity probe is a uprobe: two taskset calls show with their
# masks.  Needs root and tracefs; says SKIP elsewhere.  The sanitizer build records once too.
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIR/lib/tracecmd.sh"

[ "$(id -u)" = 0 ] || skip_all "needs root to use tracefs"
T=/sys/kernel/tracing
# a tracefs the test mounts is unmounted at its end: the machine as it was
if ! grep -q ' tracefs ' /proc/self/mounts; then
	mount -t tracefs nodev $T 2>/dev/null || skip_all "tracefs cannot be mounted here"
	trap 'umount $T 2>/dev/null; rm -rf "$TMP"' EXIT
fi
[ -d $T/instances ] || skip_all "tracefs has no instances directory"
[ -d $T/events/sched/sched_switch ] || skip_all "the kernel has no sched events"
I=$T/instances/schedreplay
if [ -d "$I" ]; then
	skip_all "a tracing instance 'schedreplay' exists (a recorder is running?)"
fi
HAVE_TC=0
command -v trace-cmd >/dev/null && HAVE_TC=1

# everything the recorder must leave as it was (other tests' instances are
# theirs: only ours is looked at)
state() {
	[ -d "$I" ] && echo "instance schedreplay exists"
	echo "set_event: $(cat $T/set_event | tr '\n' ' ')"
	echo "tracing_on: $(cat $T/tracing_on)"
	echo "buffer_size_kb: $(cat $T/buffer_size_kb)"
	echo "current_tracer: $(cat $T/current_tracer)"
	for f in $T/events/sched/*/enable; do echo "$f: $(cat "$f")"; done
	[ -r $T/kprobe_events ] && echo "kprobe_events: $(cat $T/kprobe_events)"
	[ -r $T/dynamic_events ] && echo "dynamic_events: $(cat $T/dynamic_events)"
	[ -r $T/uprobe_events ] && echo "uprobe_events: $(cat $T/uprobe_events)"
	grep -E ' (tracefs|debugfs) ' /proc/self/mounts | sort
}
state >"$TMP/before"

# same_state WHAT: tracefs is as it was before the tests
same_state() {
	state >"$TMP/after"
	if cmp -s "$TMP/before" "$TMP/after"; then
		pass "$1: tracefs left as it was found"
	else
		fail "$1: tracefs left as it was found" "$(diff "$TMP/before" "$TMP/after")"
	fi
}

# wait_tracing: until the recorder's instance traces (10 s at most)
wait_tracing() {
	local i
	for i in $(seq 1 100); do
		[ "$(cat "$I/tracing_on" 2>/dev/null)" = 1 ] && return 0
		sleep 0.1
	done
	return 1
}

LOAD='i=0; while [ $i -lt 60 ]; do (echo ping | cat | cat >/dev/null) & i=$((i + 1)); done; wait'

# ---- COMMAND mode around a fork + pipe load
D=$TMP/load.dat
"$SR" record -o "$D" -- sh -c "$LOAD" >"$TMP/rec.out" 2>"$TMP/rec.err"
same "COMMAND: exits with the command's status (0)" 0 $?
same_state "COMMAND"
ok "COMMAND: the file is written" test -s "$D"
ok "COMMAND: the summary names the file and its size" \
	grep -q "^schedreplay: wrote '.*load.dat' ([0-9]* bytes)\$" "$TMP/rec.err"
ok "COMMAND: nothing on standard output" test ! -s "$TMP/rec.out"
"$SR" info "$D" >"$TMP/info.txt" 2>&1
ok "info: a trace.dat v6 of this kernel" sh -c "grep -q '^format: *trace.dat v6\$' '$TMP/info.txt' &&
	grep -q '^kernel: *$(uname -r)\$' '$TMP/info.txt'"
ok "info: no lost events" grep -q '^lost: *none$' "$TMP/info.txt"
ok "summary: no lost events" grep -q ' events, 0 lost$' "$TMP/rec.err"
"$SR" info --json "$D" >"$TMP/info.json"
forks=$(json_count "$TMP/info.json" sched_process_fork)
ok "the load's forks are recorded ($forks)" test "${forks:-0}" -ge 60
compare_with_tracecmd "$D" "COMMAND"
summary_events=$(sed -n 's/.*: \([0-9]*\) events, [0-9]* lost$/\1/p' "$TMP/rec.err")
same "summary: events are what info counts" "$(json_get "$TMP/info.json" events)" \
	"$summary_events"

# ---- the metadata print events
"$SR" info --events "$D" >"$TMP/all.tsv"
if [ $HAVE_TC = 1 ]; then
	trace-cmd report "$D" 2>/dev/null | sed -n 's/.*tracing_mark_write: schedreplay: //p' \
		>"$TMP/meta"
	same "metadata: the first line" "meta version 1" "$(head -n 1 "$TMP/meta")"
	ok "metadata: kernel release" grep -q "^kernel $(uname -r)\\( hz [0-9]*\\)\\{0,1\\}\$" \
		"$TMP/meta"
	same "metadata: the kernel's build string (uname -v)" "kernel-build $(uname -v)" \
		"$(grep '^kernel-build ' "$TMP/meta")"
	online=$(awk -F, '{ for (i = 1; i <= NF; i++) { n = split($i, r, "-");
		c += n == 2 ? r[2] - r[1] + 1 : 1 } } END { print c }' /sys/devices/system/cpu/online)
	same "metadata: one topology line per online cpu" "$online" \
		"$(grep -c '^topology cpu ' "$TMP/meta")"
	ok "metadata: task lines, pid 1 among them" grep -q '^task pid 1 tgid 1 comm ' "$TMP/meta"
	ok "metadata: the events enabled" grep -q '^event sched:sched_switch$' "$TMP/meta"
	last=$(tail -n 1 "$TMP/meta")
	same "metadata: the last line counts the lines" "$(wc -l <"$TMP/meta")" \
		"$(echo "$last" | sed -n 's/^meta end tasks [0-9]* lines \([0-9]*\)$/\1/p')"
	sed -n 's/^topology //p' "$TMP/meta" >"$TMP/topo"
	ok "metadata: the topology lines are a topology file replay reads" \
		"$SR" replay -q -t "$TMP/topo" "$D"
	if [ -e $T/kprobe_events ]; then
		ok "probes: select_rq events recorded" grep -q '	select_rq$' "$TMP/all.tsv"
	else
		ok "probes: metadata says they are off" \
			grep -qE '^probes off( affinity uprobe)?$' "$TMP/meta"
		same "probes: one warning where the kernel has no kprobe events" 1 \
			"$(grep -c 'no kprobe events' "$TMP/rec.err")"
	fi
else
	skip "metadata checks" "trace-cmd not installed"
fi

# ---- without kprobe events: the setaffinity probe as a uprobe on the C library
TS=$(command -v taskset)
if [ -e $T/kprobe_events ]; then
	skip "setaffinity uprobe" "the kernel has kprobe events (the kprobe is used)"
elif [ ! -e $T/uprobe_events ]; then
	skip "setaffinity uprobe" "the kernel has neither kprobe nor uprobe events"
elif [ -z "$TS" ] || ! ldd "$TS" 2>/dev/null | grep -q 'libc\.so'; then
	skip "setaffinity uprobe" "no dynamically linked taskset"
else
	"$SR" record -o "$TMP/aff.dat" -- sh -c "'$TS' -c 0 true; '$TS' -c 0-1 true" \
		>/dev/null 2>"$TMP/aff.err"
	same "setaffinity uprobe: the recording exits 0" 0 $?
	same_state "setaffinity uprobe"
	"$SR" info --events "$TMP/aff.dat" | awk -F'\t' '$3 == "setaffinity" { print $4, $5 }' \
		>"$TMP/aff.tsv"
	same "setaffinity uprobe: both calls, pid 0 (the caller) and their masks" \
		"0 0x1
0 0x3" "$(cat "$TMP/aff.tsv")"
	"$SR" info "$TMP/aff.dat" >"$TMP/aff.info"
	ok "setaffinity uprobe: info counts the two calls" \
		grep -q '^  affinity   2 setaffinity calls, ' "$TMP/aff.info"
	if [ $HAVE_TC = 1 ]; then
		ok "setaffinity uprobe: the metadata says so" \
			sh -c "trace-cmd report '$TMP/aff.dat' 2>/dev/null |
			grep -q 'schedreplay: probes off affinity uprobe\$'"
	fi
	ok "setaffinity uprobe: no note about the probe" \
		sh -c "! grep -q 'setaffinity probe' '$TMP/aff.err'"
fi

# ---- exit status of a failing, crashing or missing command
"$SR" record -o "$TMP/x.dat" -- sh -c 'exit 3' 2>"$TMP/rec.err"
same "a command that exits 3: exit status 3" 3 $?
ok "a command that exits 3: the file is written" test -s "$TMP/x.dat"
"$SR" record -o "$TMP/x.dat" -- sh -c 'kill -SEGV $$' 2>"$TMP/rec.err"
same "a command that crashes: 128 + SIGSEGV" 139 $?
same_state "crashing command"
rm -f "$TMP/y.dat"
"$SR" record -o "$TMP/y.dat" -- /nonexistent/command 2>"$TMP/rec.err"
same "a command that does not exist: 127" 127 $?
ok "a command that does not exist: says so" \
	grep -q "^schedreplay: cannot run '/nonexistent/command': No such file or directory\$" \
	"$TMP/rec.err"
ok "a command that does not exist: no file" test ! -e "$TMP/y.dat"
same_state "missing command"

# ---- -d
"$SR" record -o "$TMP/d.dat" -d 1 2>"$TMP/rec.err"
same "-d 1: exits 0" 0 $?
ok "-d 1: records about one second" grep -q '^schedreplay: recorded 1\.0[0-9]* s on ' "$TMP/rec.err"
ok "-d 1: the file reads back" "$SR" info "$TMP/d.dat"
same_state "-d"

# ---- --balance-probes: recorded where the kernel has kprobes, else one warning
"$SR" record --balance-probes -o "$TMP/bal.dat" -- sh -c "$LOAD" >/dev/null 2>"$TMP/rec.err"
same "--balance-probes: exits 0" 0 $?
ok "--balance-probes: the file reads back" "$SR" info "$TMP/bal.dat"
if [ $HAVE_TC = 1 ]; then
	trace-cmd report "$TMP/bal.dat" 2>/dev/null >"$TMP/bal.txt"
	if [ -e $T/kprobe_events ]; then
		ok "--balance-probes: metadata says on" \
			grep -q 'schedreplay: balance-probes on$' "$TMP/bal.txt"
		ok "--balance-probes: balance_rq events with a cpu and an idle type" \
			grep -q ' balance_rq: .*cpu=[0-9]* idle=[0-9]' "$TMP/bal.txt"
		ok "--balance-probes: balance_rq_ret events with the count moved" \
			grep -q ' balance_rq_ret: .*moved=' "$TMP/bal.txt"
	else
		ok "--balance-probes: metadata says off" \
			grep -q 'schedreplay: balance-probes off$' "$TMP/bal.txt"
		same "--balance-probes: one warning where the kernel has no kprobe events" 1 \
			"$(grep -c 'no kprobe events: recording without the balance probes' "$TMP/rec.err")"
	fi
else
	skip "--balance-probes: metadata" "trace-cmd not installed"
fi
same_state "--balance-probes"

# ---- --input-probes: rqstat and cfs_pelt where the kernel can, else one
# warning; replay skips both and still pairs every fork with its select_rq
"$SR" record --input-probes -o "$TMP/in.dat" -- sh -c "$LOAD" >/dev/null 2>"$TMP/rec.err"
same "--input-probes: exits 0" 0 $?
ok "--input-probes: the file reads back" "$SR" info "$TMP/in.dat"
if [ $HAVE_TC = 1 ]; then
	trace-cmd report "$TMP/in.dat" 2>/dev/null >"$TMP/in.txt"
	inp=$(sed -n 's/.*schedreplay: input-probes //p' "$TMP/in.txt" | head -1)
	if [ ! -e $T/kprobe_events ]; then
		same "--input-probes: metadata says off" "off" "$inp"
		same "--input-probes: one warning where the kernel has no kprobe events" 1 \
			"$(grep -c 'no kprobe events: recording without the input probes' "$TMP/rec.err")"
	else
		case " $inp " in
		*" cfs_pelt "*)
			ok "--input-probes: cfs_pelt events with a cpu and the averages" \
				grep -q ' cfs_pelt: .*cpu=[0-9]* lut=[0-9]* load=[0-9]* util=[0-9]* runnable=[0-9]' \
				"$TMP/in.txt" ;;
		*)
			ok "--input-probes: without cfs_pelt, a warning says why" \
				grep -q 'recording without the cfs_pelt probe' "$TMP/rec.err" ;;
		esac
		case " $inp " in
		*" rqstat "*)
			same "--input-probes: one rqstat for every select_rq" \
				"$(grep -c ' select_rq: ' "$TMP/in.txt")" "$(grep -c ' rqstat: ' "$TMP/in.txt")"
			ok "--input-probes: rqstat has load, util, run, ue, nr and ttwu of CPU 0" \
				grep -q ' rqstat: .*c0load=[0-9]* c0util=[0-9]* c0run=[0-9]* c0ue=[0-9]* c0nr=[0-9]* c0ttwu=[0-9]' \
				"$TMP/in.txt" ;;
		*)
			ok "--input-probes: without rqstat, a warning says why" \
				grep -q 'rqstat probe' "$TMP/rec.err" ;;
		esac
	fi
	"$SR" replay -q -o "$TMP/in.db" "$TMP/in.dat" >/dev/null 2>"$TMP/in-replay.err"
	same "--input-probes: replay exits 0" 0 $?
	same "--input-probes: replay pairs every fork with its select_rq" \
		"$(grep -c ' select_rq: .* wake_flags=0x4 ' "$TMP/in.txt")" \
		"$(sqlite3 "$TMP/in.db" "SELECT count(*) FROM decision WHERE kind = 'fork' AND kernel_cpu IS NOT NULL")"
else
	skip "--input-probes: metadata" "trace-cmd not installed"
fi
same_state "--input-probes"
"$SR" record --input-probes -o "$TMP/in2.dat" 2>"$TMP/rec.err" &
pid=$!
if wait_tracing; then
	sleep 0.3
	kill -INT $pid
	wait $pid
	same "--input-probes + SIGINT mid-recording: exits 0" 0 $?
else
	kill -KILL $pid
	wait $pid
	fail "--input-probes + SIGINT: the recorder starts tracing" "$(cat "$TMP/rec.err")"
fi
same_state "--input-probes + SIGINT"

# ---- until a signal, with the signal sent mid-recording
for sig in INT TERM; do
	rm -f "$TMP/s.dat"
	"$SR" record -o "$TMP/s.dat" 2>"$TMP/rec.err" &
	pid=$!
	if ! wait_tracing; then
		kill -KILL $pid
		wait $pid
		fail "SIG$sig: the recorder starts tracing" "$(cat "$TMP/rec.err")"
		continue
	fi
	sleep 0.3
	kill -$sig $pid
	wait $pid
	same "SIG$sig mid-recording: exits 0" 0 $?
	ok "SIG$sig mid-recording: the file reads back" "$SR" info "$TMP/s.dat"
	same_state "SIG$sig"
done

# ---- COMMAND mode: signals reach the command (job control, so that the
# background command does not start with SIGINT ignored; and env resets
# SIGINT to its default, as a shell started with SIGINT ignored, such as a
# make check run as a background job without job control, keeps it ignored
# for every child whatever set -m does, and the command would inherit that)
set -m
env --default-signal=INT "$SR" record -o "$TMP/c.dat" -- sleep 30 2>"$TMP/rec.err" &
pid=$!
wait_tracing && sleep 0.3
kill -INT $pid
wait $pid
same "COMMAND + SIGINT: passed on, the command's status" 130 $?
"$SR" record -o "$TMP/c.dat" -- sleep 30 2>"$TMP/rec.err" &
pid=$!
wait_tracing && sleep 0.3
kill -TERM $pid
wait $pid
same "COMMAND + SIGTERM: passed on, the command's status" 143 $?
set +m
ok "COMMAND + SIGTERM: the file reads back" "$SR" info "$TMP/c.dat"
same_state "COMMAND + signals"

# ---- one recorder at a time, and a stale instance left by SIGKILL (with
# every optional probe, which the next recorder removes with the instance)
"$SR" record --balance-probes --input-probes -o "$TMP/a.dat" 2>"$TMP/rec.err" &
pid=$!
wait_tracing
"$SR" record -o "$TMP/b.dat" -d 0.2 2>"$TMP/rec2.err"
same "a second recorder: exits 1" 1 $?
ok "a second recorder: says why" grep -q "another 'schedreplay record' is running" "$TMP/rec2.err"
exec 3>&2 2>/dev/null	# no "Killed" from the shell
kill -KILL $pid
wait $pid
exec 2>&3 3>&-
ok "SIGKILL leaves the instance behind" test -d "$I"
"$SR" record -o "$TMP/b.dat" -d 0.2 2>"$TMP/rec.err"
same "after SIGKILL: the next recorder exits 0" 0 $?
ok "after SIGKILL: the next recorder warns about the stale instance" \
	grep -q "^schedreplay: warning: removing the tracing instance 'schedreplay' left by a recorder that was killed\$" \
	"$TMP/rec.err"
same_state "stale instance"

# ---- errors before and during the setup
"$SR" record -o "$TMP/e.dat" -e nosuch:event -d 0.2 2>"$TMP/rec.err"
same "-e with an unknown event: exits 1" 1 $?
ok "-e with an unknown event: says which" \
	grep -q "no event on this kernel matches '-e nosuch:event'" "$TMP/rec.err"
same_state "unknown event"
"$SR" record -o "$TMP/nodir/x.dat" -d 0.2 2>"$TMP/rec.err"
same "an output directory that does not exist: exits 1" 1 $?
same_state "bad output"
if [ -d $T/events/irq/softirq_entry ]; then
	"$SR" record -o "$TMP/irq.dat" -e 'irq:softirq_*' -d 0.3 2>"$TMP/rec.err"
	same "-e irq:softirq_*: exits 0" 0 $?
	compare_with_tracecmd "$TMP/irq.dat" "-e irq:softirq_*"
fi
echo old >"$TMP/old.dat"
"$SR" record -o "$TMP/old.dat" -d 0.1 2>"$TMP/rec.err"
ok "an existing output file is replaced" "$SR" info "$TMP/old.dat"
"$SR" record -x 2>"$TMP/rec.err"
same "an unknown option: exits 2" 2 $?

# ---- not root: one line
if command -v setpriv >/dev/null; then
	setpriv --reuid=65534 --regid=65534 --clear-groups "$SR" record -d 1 >"$TMP/rec.out" 2>"$TMP/rec.err"
	same "not root: exits 1" 1 $?
	same "not root: one line says root is needed" \
		"schedreplay: record needs root: it creates a tracing instance in tracefs" \
		"$(cat "$TMP/rec.err")"
else
	skip "not root: one line" "setpriv not installed"
fi

# ---- the sanitizer build records too
if [ -x "$SR_SAN" ]; then
	"$SR_SAN" record -o "$TMP/san.dat" -- sh -c "$LOAD" >"$TMP/rec.out" 2>"$TMP/rec.err"
	same "sanitizer build: COMMAND mode exits 0" 0 $?
	ok "sanitizer build: no sanitizer report" sh -c "! grep -q 'Sanitizer\|runtime error' '$TMP/rec.err'"
	"$SR_SAN" record -o "$TMP/san2.dat" 2>"$TMP/rec.err" &
	pid=$!
	wait_tracing && sleep 0.3
	kill -INT $pid
	wait $pid
	same "sanitizer build: SIGINT mode exits 0" 0 $?
	ok "sanitizer build: no sanitizer report after SIGINT" \
		sh -c "! grep -q 'Sanitizer\|runtime error' '$TMP/rec.err'"
	compare_with_tracecmd "$TMP/san.dat" "sanitizer build"
	same_state "sanitizer build"
else
	skip "sanitizer build" "build-san/schedreplay not built (make SANITIZE=1)"
fi
test_done
