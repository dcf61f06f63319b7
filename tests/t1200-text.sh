#!/bin/bash
# ftrace text reader: tracefs "trace" files (with and without the TGID
# column) and trace-cmd report output.  Counts must equal the fixtures'
# published counts, every decoded event must equal the reference decode, and
# text printed by trace-cmd report from a trace.dat must read back as the
# same events as the trace.dat itself.
. "$(dirname "$0")/test-lib.sh"

# name in external-counts.tsv for each committed text fixture
declare -A ext=(
	[lisa-trace.txt]=lisa/trace_txt/trace.txt
	[atrace-test.txt]=tracecompass-incubator/atrace-test/atrace-test
	[trace-critical-path.txt]=tracecompass-incubator/trace-critical-path/trace-critical-path
	[trace-android-sched.txt]=tracecompass-incubator/trace-android-sched/trace-android-sched
)

for n in "${!ext[@]}"; do
	f="$FIX/text/succeed/$n"
	if ! "$SR" info --json "$f" >"$TMP/info.json" 2>"$TMP/e1"; then
		fail "$n: info exits 0" "$(cat "$TMP/e1")"
		continue
	fi
	pass "$n: info exits 0"
	row=$(awk -F'\t' -v p="${ext[$n]}" '$1 == p' "$FIX/external-counts.tsv")
	IFS=$'\t' read -r _ _ _ _ total sw wk wu wn mg first last <<<"$row"
	got="$(json_get "$TMP/info.json" events) $(json_count "$TMP/info.json" sched_switch) \
$(json_count "$TMP/info.json" sched_waking) $(json_count "$TMP/info.json" sched_wakeup) \
$(json_count "$TMP/info.json" sched_wakeup_new) $(json_count "$TMP/info.json" sched_migrate_task) \
$(json_get "$TMP/info.json" first_ts_ns) $(json_get "$TMP/info.json" last_ts_ns)"
	same "$n: counts and time span equal the published ones" \
		"$total $sw $wk $wu $wn $mg $first $last" "$got"
	awk -f "$TEST_DIR/lib/normalize-ref.awk" "$f.sched.tsv" | sort >"$TMP/ref.tsv"
	"$SR" info --events "$f" |
		grep -E '	sched_(switch|waking|wakeup|wakeup_new|migrate_task)	' | sort >"$TMP/our.tsv"
	if cmp -s "$TMP/ref.tsv" "$TMP/our.tsv"; then
		pass "$n: every sched event decodes as the reference"
	else
		fail "$n: every sched event decodes as the reference" \
			"$(diff "$TMP/ref.tsv" "$TMP/our.tsv" | head -n 10)"
	fi
done

# trace-cmd report -t output of a live 6.18 recording reads back as the
# trace.dat it came from (same events, same order, ns timestamps).  One
# loss is trace-cmd's, not ours: its sched_switch plugin prints a preempted
# task (prev_state 256, TASK_REPORT_MAX) as "R", not "R+", so 256 is
# compared as 0 (both: still on the runqueue).
"$SR" info --events "$FIX/text/succeed/live-6.18-report-t.txt" >"$TMP/txt.tsv" 2>"$TMP/e1"
"$SR" info --events "$FIX/tracedat/succeed/live-6.18-instance-v6.dat" |
	awk -F'\t' -v OFS='\t' '$3 == "sched_switch" && $7 == 256 { $7 = 0 } { print }' >"$TMP/dat.tsv"
if cmp -s "$TMP/dat.tsv" "$TMP/txt.tsv"; then
	pass "trace-cmd report -t text reads back as the same events as its trace.dat"
else
	fail "trace-cmd report -t text reads back as the same events as its trace.dat" \
		"$(cat "$TMP/e1"; diff "$TMP/dat.tsv" "$TMP/txt.tsv" | head -n 10)"
fi

# and the microsecond form, made now by the installed trace-cmd
if command -v trace-cmd >/dev/null; then
	trace-cmd report "$FIX/tracedat/succeed/lisa-sched_load.dat" >"$TMP/us.txt" 2>/dev/null
	"$SR" info --json "$TMP/us.txt" >"$TMP/us.json" 2>"$TMP/e1"
	same "trace-cmd report (us) text: same event count as its trace.dat" 3724 \
		"$(json_get "$TMP/us.json" events)"
	same "trace-cmd report (us) text: same sched_switch count" 399 \
		"$(json_count "$TMP/us.json" sched_switch)"
else
	skip "trace-cmd report (us) text" "trace-cmd not installed"
fi
"$SR" info "$FIX/text/succeed/atrace-test.txt" >"$TMP/a.txt"
ok "TGID column is recognized" grep -q '^format:.*tgid' "$TMP/a.txt"
test_done
