#!/bin/bash
# Regenerate the golden "schedreplay report" outputs
# (tests/fixtures/golden/report/) from databases replayed from the committed
# real traces.  Run on purpose only, after a change to the report, the
# engine or the models, and read the diff.  tests/t6100-report.sh runs this
# with GOLDEN_OUT and REPORT_DBS in its temporary directory and compares.
#
# The traces are named relative to the checkout and the reports are run from
# the directory of the databases, so no absolute path reaches the output.
set -e
cd "$(dirname "$0")/.."
TOP=$PWD
SR=${SR:-$TOP/schedreplay}
case $SR in /*) ;; *) SR=$TOP/$SR ;; esac
out=${GOLDEN_OUT:-tests/fixtures/golden/report}
dbs=${REPORT_DBS:-$(mktemp -d "${TMPDIR:-/tmp}/schedreplay-golden.XXXXXX")}
[ -n "${REPORT_DBS:-}" ] || trap 'rm -rf "$dbs"' EXIT
mkdir -p "$out" "$dbs"
case $out in /*) ;; *) out=$TOP/$out ;; esac
N=tests/fixtures/tracedat/numa
PATCHES="-p wake-affine-equal -p exit-sync-mel -p exit-sync-peterz"

# patches over two base models; exit-sync-* diverge once
rm -f "$dbs/pingpong.db" "$dbs/two-runs.db" "$dbs/no-patch.db" "$dbs/empty.db"
# shellcheck disable=SC2086
"$SR" replay -q -o "$dbs/pingpong.db" -m mainline -m v4.15 $PATCHES -t $N/numa-6.1-pingpong.topo \
	$N/numa-6.1-pingpong.dat
# two runs in one file (--append): 6.12 forks and pingpong under v4.15, where
# wake-affine-equal diverges too
# shellcheck disable=SC2086
"$SR" replay -q -o "$dbs/two-runs.db" -m v4.15 $PATCHES -t $N/numa-6.12-forks.topo \
	$N/numa-6.12-forks.dat
# shellcheck disable=SC2086
"$SR" replay -q -a -o "$dbs/two-runs.db" -m v4.15 $PATCHES -t $N/numa-6.12-pingpong.topo \
	$N/numa-6.12-pingpong.dat
# no patch pairs
"$SR" replay -q -o "$dbs/no-patch.db" -m mainline -t $N/numa-6.1-forks.topo $N/numa-6.1-forks.dat
# a run without decisions
"$SR" replay -q -o "$dbs/empty.db" tests/fixtures/scenario/no-decisions.txt

cd "$dbs"
"$SR" report pingpong.db >"$out/pingpong.txt"
"$SR" report --json pingpong.db >"$out/pingpong.json"
"$SR" report --top 3 two-runs.db >"$out/two-runs.txt"
"$SR" report --run 2 --json two-runs.db >"$out/two-runs-run2.json"
"$SR" report pingpong.db two-runs.db >"$out/compare.txt"
"$SR" report --json pingpong.db two-runs.db >"$out/compare.json"
"$SR" report --run 1 --run2 2 two-runs.db two-runs.db >"$out/compare-runs.txt"
"$SR" report no-patch.db >"$out/no-patch.txt"
"$SR" report empty.db >"$out/empty.txt"
"$SR" report --print-sql >"$out/print-sql.sql"
echo "wrote $(ls "$out" | wc -l) files in ${out#"$TOP"/}"
