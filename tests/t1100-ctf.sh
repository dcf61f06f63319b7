#!/bin/bash
# CTF reader (libbabeltrace2): LTTng traces from 3.10 to 4.15 (streams split
# over several files, big-endian metadata, old and new field names) and a
# perf-converted trace.  Counts must equal babeltrace2's own and the
# published ones; every sched event must equal the reference decode.
. "$(dirname "$0")/test-lib.sh"

declare -A ext=(
	[lttng-tracefile-rotation]=babeltrace/lttng-tracefile-rotation
	[bug446190]=tracecompass-test-traces/bug446190
	[many-threads]=tracecompass-test-traces/many-threads
	[flipping-endianness]=tracecompass-test-traces/flipping-endianness
	[perf-taskset2]=tracecompass-test-traces/perf-taskset2
)
have_bt=1
command -v babeltrace2 >/dev/null || have_bt=0

for n in lttng-tracefile-rotation bug446190 many-threads flipping-endianness perf-taskset2; do
	d="$FIX/ctf/succeed/$n"
	if ! "$SR" info --json "$d" >"$TMP/info.json" 2>"$TMP/e1"; then
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

	if [ $have_bt = 1 ]; then
		# every event type, as babeltrace2 itself counts them now
		babeltrace2 "$d" 2>/dev/null | awk '{
			sub(/^[^)]*\) /, "")
			for (i = 1; i <= NF; i++) if ($i ~ /:$/) { n = $i; break }
			sub(/:$/, "", n)
			if (n ~ /^sched:sched_(switch|waking|wakeup|wakeup_new|migrate_task|process_(fork|exit|free))$/)
				sub(/^sched:/, "", n)
			c[n]++
		} END { for (n in c) print n, c[n] }' | sort >"$TMP/bt.counts"
		: >"$TMP/our.counts"
		while read -r ev _; do
			echo "$ev $(json_count "$TMP/info.json" "$ev")" >>"$TMP/our.counts"
		done <"$TMP/bt.counts"
		same "$n: every event type's count equals babeltrace2's" "$(cat "$TMP/bt.counts")" \
			"$(cat "$TMP/our.counts")"
	else
		skip "$n: counts against babeltrace2" "babeltrace2 not installed"
	fi

	lttng=1 oldwake=0
	[ "$n" = perf-taskset2 ] && lttng=0
	# lttng-modules 2.5: waking/wakeup still on the kernel scale
	[ "$n" = bug446190 ] && oldwake=1
	awk -v lttng=$lttng -v oldwake=$oldwake -f "$TEST_DIR/lib/normalize-ref.awk" "$d.sched.tsv" | sort >"$TMP/ref.tsv"
	"$SR" info --events "$d" |
		grep -E '	sched_(switch|waking|wakeup|wakeup_new|migrate_task)	' | sort >"$TMP/our.tsv"
	if cmp -s "$TMP/ref.tsv" "$TMP/our.tsv"; then
		pass "$n: every sched event decodes as the reference"
	else
		fail "$n: every sched event decodes as the reference" \
			"$(diff "$TMP/ref.tsv" "$TMP/our.tsv" | head -n 10)"
	fi
done

"$SR" info "$FIX/ctf/succeed/lttng-tracefile-rotation" >"$TMP/r.txt"
ok "rotation: kernel release from the trace environment" grep -q '^kernel: *4\.15\.0-65-generic' "$TMP/r.txt"
ok "rotation: host from the trace environment" grep -q '^host: *smarchi-efficios' "$TMP/r.txt"
ok "rotation: 4 cpus declared" grep -q '^cpus: *4 declared' "$TMP/r.txt"
ok "the parent of an LTTng kernel/ directory is accepted" \
	"$SR" info "$FIX/ctf/succeed/lttng-tracefile-rotation/kernel"
test_done
