#!/bin/bash
# "schedreplay report" on a big database: the benchmark trace replayed twice
# into one file (replay -a) with two patch pairs, so that the file holds
# >= 1 M decisions, then the report timed against the sqlite3 CLI running the
# same aggregate queries (report --print-sql, once per run), best of
# BENCH_RUNS each.  Run by bench/run.sh after its trace exists; runs alone as
#
#   bench/report.sh [TRACE]     (default: bench/out/bench.dat, or BENCH_TRACE)
#
# Environment: SR=./schedreplay, BENCH_OUT=bench/out, BENCH_RUNS=3,
# BENCH_REPORT_MIN=1000000 (decisions the database must hold).
set -u

TOP=$(cd "$(dirname "$0")/.." && pwd)
OUT=${BENCH_OUT:-$TOP/bench/out}
SR=${SR:-$TOP/schedreplay}
RUNS=${BENCH_RUNS:-3}
MIN=${BENCH_REPORT_MIN:-1000000}
TRACE=${1:-${BENCH_TRACE:-$OUT/bench.dat}}
DB=$OUT/report.db

die() {
	echo "bench: $*" >&2
	exit 1
}

[ -x "$SR" ] || die "no '$SR': run make first"
command -v sqlite3 >/dev/null || { echo "SKIP: report benchmark: no sqlite3 CLI"; exit 0; }
[ -r "$TRACE" ] || { echo "SKIP: report benchmark: no trace '$TRACE' (run make bench)"; exit 0; }
mkdir -p "$OUT" || die "cannot create '$OUT'"

# best WALL of RUNS runs of a command, stdout and stderr to files
best() {
	local run t0 t1 w
	WALL=""
	for ((run = 0; run < RUNS; run++)); do
		t0=$EPOCHREALTIME
		"$@" >"$OUT/report-bench.out" 2>"$OUT/report-bench.err" ||
			die "'$*' failed: $(tail -n 3 "$OUT/report-bench.err")"
		t1=$EPOCHREALTIME
		w=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
		if [ -z "$WALL" ] || awk -v a="$w" -v b="$WALL" 'BEGIN { exit !(a < b) }'; then
			WALL=$w
		fi
	done
}

decisions() {
	# sqlite3 would create an empty file, which replay -a refuses
	[ -s "$DB" ] || { echo 0; return; }
	sqlite3 -readonly "$DB" 'SELECT count(*) FROM decision' 2>/dev/null || echo 0
}

# the database is kept for the next run while the trace and the binary are older
if [ ! -s "$DB" ] || [ "$TRACE" -nt "$DB" ] || [ "$SR" -nt "$DB" ] ||
	[ "$(decisions)" -lt "$MIN" ]; then
	rm -f "$DB"
	n=0
	while [ "$(decisions)" -lt "$MIN" ] && [ $n -lt 8 ]; do
		"$SR" replay -q -a -o "$DB" -m mainline -p wake-affine-equal -p exit-sync-mel \
			"$TRACE" || die "replay of '$TRACE' into '$DB' failed"
		n=$((n + 1))
	done
	[ "$(decisions)" -ge "$MIN" ] || die "'$DB' holds $(decisions) decisions, fewer than $MIN"
fi

# the statements the report runs, once per run of the file
{
	echo ".parameter set :top 10"
	echo ".parameter set :reasons 5"
	echo ".parameter set :limit 10"
	for r in $(sqlite3 "$DB" 'SELECT run_id FROM run ORDER BY run_id'); do
		echo ".parameter set :run $r"
		"$SR" report --print-sql
	done
} >"$OUT/report.sql"

cat "$DB" >/dev/null	# the first run must not pay for the disk
best "$SR" report "$DB"
REPORT_S=$WALL
cp "$OUT/report-bench.out" "$OUT/report.txt"
best "$SR" report --json "$DB"
JSON_S=$WALL
best sqlite3 "$DB" ".read $OUT/report.sql"
SQL_S=$WALL

echo
echo "== schedreplay report on $(basename "$DB"): $(decisions) decisions in" \
	"$(sqlite3 "$DB" 'SELECT count(*) FROM run') runs, $(du -m "$DB" | cut -f1) MB," \
	"$(sqlite3 "$DB" 'SELECT count(*) FROM diverged') divergences (best of $RUNS)"
printf '  %-44s %8s s\n' "schedreplay report (text)" "$REPORT_S"
printf '  %-44s %8s s\n' "schedreplay report --json" "$JSON_S"
printf '  %-44s %8s s\n' "sqlite3 CLI, the same queries (--print-sql)" "$SQL_S"
echo "  report / sqlite3 = $(awk -v a="$REPORT_S" -v b="$SQL_S" \
	'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')"
