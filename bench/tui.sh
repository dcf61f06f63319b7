#!/bin/bash
# bench/tui.sh: how fast "schedreplay tui" answers on a database of >= 1 M
# decisions: the time to the first screen (tui --dump list --size 80x24,
# which opens the database, counts the run's rows and reads one window),
# to a filter, to the last screen and to a decision's detail; best wall time
# of BENCH_RUNS runs.  Target: first screen < 200 ms.
#
# The database is the bench trace ($OUT/bench.dat, ~618k decisions a run)
# replayed twice into one file (replay -a -m mainline --snapshots none); it is
# kept in $OUT/tui-bench.db and reused while it still opens and is newer than
# the trace.  Run alone or at the end of bench/run.sh.
#
# Environment: BENCH_TRACE=FILE (default $OUT/bench.dat), BENCH_OUT=bench/out,
# BENCH_RUNS=3, SR=./schedreplay.
set -u

TOP=$(cd "$(dirname "$0")/.." && pwd)
OUT=${BENCH_OUT:-$TOP/bench/out}
SR=${SR:-$TOP/schedreplay}
RUNS=${BENCH_RUNS:-3}
TRACE=${BENCH_TRACE:-$OUT/bench.dat}
DB=$OUT/tui-bench.db
MIN_DECISIONS=1000000

echo "== schedreplay tui on a database of >= 1 M decisions"
[ -x "$SR" ] || { echo "  SKIP: no '$SR': run make first"; exit 0; }
[ -f "$TRACE" ] || { echo "  SKIP: no bench trace '$TRACE' (bench/run.sh records it)"; exit 0; }
mkdir -p "$OUT" || { echo "  SKIP: cannot create '$OUT'"; exit 0; }

decisions() {
	[ -s "$DB" ] || { echo 0; return; }
	sqlite3 -readonly "$DB" 'SELECT count(*) FROM decision' 2>/dev/null || echo 0
}

if [ ! -f "$DB" ] || [ "$TRACE" -nt "$DB" ] || [ "$SR" -nt "$DB" ] ||
	! "$SR" tui --dump summary "$DB" >/dev/null 2>&1 ||
	[ "$(decisions)" -lt $MIN_DECISIONS ]; then
	rm -f "$DB"
	t0=$(date +%s%N)
	while [ "$(decisions)" -lt $MIN_DECISIONS ]; do
		"$SR" replay -q -a -o "$DB" -m mainline --snapshots none "$TRACE" ||
			{ echo "  FAILED: cannot replay '$TRACE' into '$DB'"; exit 1; }
	done
	t1=$(date +%s%N)
	echo "  built $DB: $(decisions) decisions in $(sqlite3 "$DB" 'SELECT count(*) FROM run')" \
		"runs, $(( (t1 - t0) / 1000000 )) ms"
else
	echo "  reusing $DB: $(decisions) decisions"
fi
rows=$(sqlite3 "$DB" 'SELECT decisions FROM run ORDER BY run_id LIMIT 1')

# best LABEL COMMAND...: the best wall time of RUNS runs, in ms
best() {
	local label=$1 i t0 t1 ms best_ms=""
	shift
	for i in $(seq "$RUNS"); do
		t0=$(date +%s%N)
		"$@" >/dev/null 2>&1 || { echo "  $label: FAILED"; return 1; }
		t1=$(date +%s%N)
		ms=$(( (t1 - t0) / 1000000 ))
		[ -z "$best_ms" ] || [ "$ms" -lt "$best_ms" ] && best_ms=$ms
	done
	BEST=$best_ms
	printf '  %-52s %6d ms\n' "$label" "$best_ms"
}

best "first screen (list, 80x24, $rows rows in run 1)" "$SR" tui --dump list --size 80x24 "$DB"
FIRST=$BEST
best "filter kind=fork (index)" "$SR" tui --dump list --filter kind=fork "$DB"
best "filter t=1-2 (index)" "$SR" tui --dump list --filter t=1-2 "$DB"
best "filter comm=pingpong cpu=1 (every row, evaluations)" \
	"$SR" tui --dump list --filter 'comm=pingpong cpu=1' "$DB"
best "the middle of the list (--select $((rows / 2)))" \
	"$SR" tui --dump list --select $((rows / 2)) "$DB"
best "the last screen (--select $rows)" "$SR" tui --dump list --select "$rows" "$DB"
best "sorted by task (a sort of every row)" "$SR" tui --dump list --sort task "$DB"
best "detail of row 1000" "$SR" tui --dump detail --all --select 1000 "$DB"
echo "  first screen: $FIRST ms (target < 200 ms: $([ "$FIRST" -lt 200 ] && echo met || echo MISSED))"
