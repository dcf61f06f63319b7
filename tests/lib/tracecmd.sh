# Sourced by tests that compare a trace.dat with the reference decoder.
# compare_with_tracecmd FILE NAME: per-event counts of trace-cmd report
# against info --json, and every decoded field (t1000's comparison), as
# checks named "NAME: ..."; SKIP without trace-cmd.
compare_with_tracecmd() {
	local f=$1 n=$2 ev
	if ! command -v trace-cmd >/dev/null; then
		skip "$n: trace-cmd report reads it" "trace-cmd not installed"
		return
	fi
	trace-cmd report "$f" >"$TMP/rep.txt" 2>"$TMP/rep.err"
	same "$n: trace-cmd report reads it without a warning" "0 " \
		"$? $(grep -v '^cpus=' "$TMP/rep.err" | tr '\n' ' ')"
	trace-cmd report -R -t "$f" 2>/dev/null | awk -f "$TEST_DIR/lib/tracecmd-tsv.awk" \
		>"$TMP/ref.tsv"
	"$SR" info --json "$f" >"$TMP/info.json" 2>"$TMP/info.err"
	cut -f3 "$TMP/ref.tsv" | sort | uniq -c | awk '{print $2, $1}' >"$TMP/ref.counts"
	: >"$TMP/our.counts"
	for ev in $(cut -d' ' -f1 "$TMP/ref.counts"); do
		echo "$ev $(json_count "$TMP/info.json" "$ev")" >>"$TMP/our.counts"
	done
	same "$n: per-event counts of info equal trace-cmd report's" \
		"$(cat "$TMP/ref.counts")" "$(cat "$TMP/our.counts")"
	same "$n: total equals trace-cmd report's" "$(wc -l <"$TMP/ref.tsv")" \
		"$(json_get "$TMP/info.json" events)"
	"$SR" info --events "$f" | grep -v '	lost	' >"$TMP/our.tsv"
	if cmp -s "$TMP/ref.tsv" "$TMP/our.tsv"; then
		pass "$n: every event decodes as trace-cmd report decodes it"
	else
		fail "$n: every event decodes as trace-cmd report decodes it" \
			"$(diff "$TMP/ref.tsv" "$TMP/our.tsv" | head -n 10)"
	fi
}

