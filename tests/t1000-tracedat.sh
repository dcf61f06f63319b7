#!/bin/bash
# trace.dat reader: for every committed trace.dat (v6, v7 zstd, top buffer,
# instance-only, with overruns), info's counts and every decoded field must
# equal what trace-cmd report (the reference decoder) prints for the same file.
. "$(dirname "$0")/test-lib.sh"

command -v trace-cmd >/dev/null || skip_all "trace-cmd not installed (make deps)"

for f in "$FIX"/tracedat/succeed/*.dat "$FIX"/tracedat/numa/*.dat; do
	n=$(basename "$f")
	if ! "$SR" info --json "$f" >"$TMP/info.json" 2>"$TMP/err"; then
		fail "$n: info exits 0" "$(cat "$TMP/err")"
		continue
	fi
	pass "$n: info exits 0"
	trace-cmd report -R -t "$f" 2>/dev/null | awk -f "$TEST_DIR/lib/tracecmd-tsv.awk" >"$TMP/ref.tsv"
	"$SR" info --events "$f" | grep -v '	lost	' >"$TMP/our.tsv"

	# every event type's count
	cut -f3 "$TMP/ref.tsv" | sort | uniq -c | awk '{print $2, $1}' >"$TMP/ref.counts"
	: >"$TMP/our.counts"
	for ev in $(cut -d' ' -f1 "$TMP/ref.counts"); do
		echo "$ev $(json_count "$TMP/info.json" "$ev")" >>"$TMP/our.counts"
	done
	same "$n: per-event counts equal trace-cmd report's" "$(cat "$TMP/ref.counts")" \
		"$(cat "$TMP/our.counts")"
	same "$n: total equals trace-cmd report's" "$(wc -l <"$TMP/ref.tsv")" \
		"$(json_get "$TMP/info.json" events)"
	same "$n: first timestamp" "$(head -n 1 "$TMP/ref.tsv" | cut -f1)" \
		"$(json_get "$TMP/info.json" first_ts_ns)"
	same "$n: last timestamp" "$(tail -n 1 "$TMP/ref.tsv" | cut -f1)" \
		"$(json_get "$TMP/info.json" last_ts_ns)"
	# every field of every sched event, in the same order
	if cmp -s "$TMP/ref.tsv" "$TMP/our.tsv"; then
		pass "$n: every event decodes as trace-cmd report decodes it"
	else
		fail "$n: every event decodes as trace-cmd report decodes it" \
			"$(diff "$TMP/ref.tsv" "$TMP/our.tsv" | head -n 10)"
	fi
	# the reference decodes shipped with the external fixtures
	if [ -f "$f.sched.tsv" ]; then
		grep -v '^#' "$f.sched.tsv" | sort >"$TMP/ext.tsv"
		grep -E '	sched_(switch|waking|wakeup|wakeup_new|migrate_task)	' "$TMP/our.tsv" |
			sort >"$TMP/our5.tsv"
		if cmp -s "$TMP/ext.tsv" "$TMP/our5.tsv"; then
			pass "$n: matches the fixture's reference decode"
		else
			fail "$n: matches the fixture's reference decode" \
				"$(diff "$TMP/ext.tsv" "$TMP/our5.tsv" | head -n 10)"
		fi
	fi
done

# the sanitizer build reads every good file as the normal one does (leak
# checking off: libtracecmd and libtraceevent keep a few bytes per file)
if [ -x "$SR_SAN" ]; then
	for f in "$FIX"/tracedat/succeed/*.dat; do
		n=$(basename "$f")
		"$SR" info --json "$f" >"$TMP/a.json" 2>&1
		if ASAN_OPTIONS=detect_leaks=0:fast_unwind_on_malloc=1 \
			UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
			"$SR_SAN" info --json "$f" >"$TMP/b.json" 2>&1 && cmp -s "$TMP/a.json" "$TMP/b.json"; then
			pass "$n: [asan+ubsan] same summary, exit 0"
		else
			fail "$n: [asan+ubsan] same summary, exit 0" "$(diff "$TMP/a.json" "$TMP/b.json" | head -n 20)"
		fi
	done
fi

v7="$FIX/tracedat/succeed/live-6.18-instance-v7.dat"
"$SR" info "$v7" >"$TMP/v7.txt"
ok "v7: format names the compression" grep -q '^format: *trace.dat v7 (zstd' "$TMP/v7.txt"
ok "v7: events only in an instance are found" grep -q '^buffer: *srlive' "$TMP/v7.txt"
ok "v7: host and kernel from the file" grep -q '^kernel: *6\.18' "$TMP/v7.txt"
ok "v6: format says v6" sh -c "'$SR' info '$FIX/tracedat/succeed/live-6.18-instance-v6.dat' | grep -q '^format: *trace.dat v6\$'"
ok "--buffer NAME reads that instance" "$SR" info -B srlive "$v7"
"$SR" info --buffer nosuch "$v7" >"$TMP/o1" 2>"$TMP/e1"
same "--buffer with an unknown name exits 2" 2 $?
ok "--buffer error names the file and the instances" \
	grep -q "^schedreplay: cannot read '.*live-6.18-instance-v7.dat': no buffer instance 'nosuch' (the file has 'srlive')\$" "$TMP/e1"

ov="$FIX/tracedat/succeed/live-6.18-overrun-v7.dat"
"$SR" info --json "$ov" >"$TMP/ov.json"
ok "overrun: lost events are reported per cpu" \
	grep -q '{"cpu": 0, "events": 192, "lost": 629,' "$TMP/ov.json"
"$SR" info "$ov" >"$TMP/ov.txt"
ok "overrun: the text summary says how many were lost" grep -q '^lost: *915 events' "$TMP/ov.txt"
test_done
