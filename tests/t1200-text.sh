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
# what a trace carries for replay, and what it lacks with the consequence
"$SR" info "$FIX/text/succeed/lisa-trace.txt" >"$TMP/l.txt"
ok "info: sched_wakeup without sched_waking means inferred wakeup decisions, and why" \
	grep -q '^  wakeups    missing: 1068 sched_wakeup but no sched_waking: replay infers each wakeup decision from the task.s sched_migrate_task or sched_wakeup (the waker.s CPU is a guess' "$TMP/l.txt"
ok "info: no topology means a flat machine" \
	grep -q '^  topology   missing: replay runs on a flat 6-CPU machine' "$TMP/l.txt"
ok "info: no probes, no metadata, no affinity, each with its consequence" sh -c "
	grep -q '^  probes     missing: no select_rq' '$TMP/l.txt' &&
	grep -q '^  metadata   missing: .*CONFIG_HZ 250 is assumed' '$TMP/l.txt' &&
	grep -q '^  affinity   missing: no setaffinity probe, no task snapshot' '$TMP/l.txt'"
"$SR" replay -q -t 1x6x1 "$FIX/text/succeed/lisa-trace.txt" >/dev/null 2>"$TMP/e1"
same "replay warns that its wakeup decisions are inferred" \
	"schedreplay: warning: replay: '$FIX/text/succeed/lisa-trace.txt' has no sched_waking events: each wakeup decision is inferred from the task's sched_migrate_task or sched_wakeup, on the CPU that emitted it (prev_cpu in decision.inferred); see 'schedreplay info'" \
	"$(cat "$TMP/e1")"
# select_rq probes but no sched_waking (a text export that dropped it): each
# wakeup decision opens at its probe, which names the wakee (pid), and the
# warning says so; the placed decisions are those of the trace with it
if command -v trace-cmd >/dev/null; then
	NM=$FIX/tracedat/numa/numa-6.1-messaging
	trace-cmd report "$NM.dat" 2>/dev/null | grep -v ' sched_waking: ' >"$TMP/nw.txt"
	"$SR" replay -q -F text -t "$NM.topo" -o "$TMP/nw.db" "$TMP/nw.txt" >/dev/null 2>"$TMP/e1"
	same "probes without sched_waking: the warning says the decisions open at the probes" \
		"schedreplay: warning: replay: '$TMP/nw.txt' has select_rq probes but no sched_waking events: each wakeup decision opens at its select_rq probe (the wakee's pid, prev_cpu and wake_flags from the probe, the probe's current task the waker)" \
		"$(grep -v 'not ordered\|lost' "$TMP/e1" | tail -n 1)"
	"$SR" replay -q -t "$NM.topo" -o "$TMP/nwref.db" "$NM.dat" >/dev/null 2>&1
	same "... and the placed wakeups are those of the trace with sched_waking" \
		"$(sqlite3 "$TMP/nwref.db" "SELECT count(*) FROM decision WHERE kind = 'wakeup' AND skip IS NULL")" \
		"$(sqlite3 "$TMP/nw.db" "SELECT count(*) FROM decision WHERE kind = 'wakeup' AND skip IS NULL")"
else
	skip "probes without sched_waking: the warning says the decisions open at the probes" "no trace-cmd"
	skip "... and the placed wakeups are those of the trace with sched_waking" "no trace-cmd"
fi
"$SR" info "$FIX/tracedat/succeed/live-6.18-record-v6.dat" >"$TMP/r.txt"
ok "info: a recording's metadata, topology and task snapshot" sh -c "
	grep -q '^  metadata   157 schedreplay lines, CONFIG_HZ 250$' '$TMP/r.txt' &&
	grep -q '^  topology   2 CPUs in the metadata' '$TMP/r.txt' &&
	grep -q '^  affinity   0 setaffinity calls, a snapshot of 94 tasks$' '$TMP/r.txt'"
"$SR" info --json "$FIX/tracedat/numa/numa-6.12-forks.dat" >"$TMP/n.json"
same "info --json: the probe fields the select_rq events carry" '4244|4244|0' \
	"$(sqlite3 :memory: "SELECT json_extract(readfile('$TMP/n.json'), '\$.replay.select_rq'),
		json_extract(readfile('$TMP/n.json'), '\$.replay.probe_fields.wake_flags'),
		json_extract(readfile('$TMP/n.json'), '\$.replay.probe_fields.wakee_flips')")"
"$SR" info --json --events "$FIX/text/succeed/lisa-trace.txt" >"$TMP/o" 2>"$TMP/e1"
same "info --json --events is refused" "2 schedreplay: info: --json and --events exclude each other (--events prints tab-separated rows, --json one summary object)" \
	"$? $(head -n 1 "$TMP/e1")"
# a replay database is described as one
"$SR" replay -q -o "$TMP/run.db" -t 1x6x1 "$FIX/text/succeed/lisa-trace.txt" 2>/dev/null
"$SR" info "$TMP/run.db" >"$TMP/d.txt" 2>"$TMP/e1"
same "info run.db: a schedreplay database, with its runs" "0 format:     schedreplay database (schema 4): replay results, not a trace;" \
	"$? $(sed -n 2p "$TMP/d.txt")$(cat "$TMP/e1")"
ok "... its models, topology and decisions" sh -c "
	grep -q '^  models     mainline$' '$TMP/d.txt' && grep -q '^  topology   preset 1x6x1$' '$TMP/d.txt' &&
	grep -q '^  decisions  [0-9]*, 0 divergent$' '$TMP/d.txt'"
"$SR" info --json "$TMP/run.db" >"$TMP/d.json"
same "info --json run.db" "schedreplay database 1" \
	"$(sqlite3 :memory: "SELECT json_extract(readfile('$TMP/d.json'), '\$.format') || ' ' ||
		json_array_length(readfile('$TMP/d.json'), '\$.runs')")"
test_done
