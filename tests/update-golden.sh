#!/bin/bash
# Regenerate the golden fidelity figures (tests/fixtures/golden/*.fidelity)
# and the canned-query outputs of "schedreplay sql" (golden/sql/) from the
# committed real traces.  Run on purpose only, after a change to the engine,
# the models or the queries, and read the diff: it is what the change did.
# tests/t5100-fidelity-golden.sh and tests/t6000-sql.sh hold the code to
# these files.  "update-golden.sh fidelity" or "update-golden.sh sql" makes
# one set only.
set -e
cd "$(dirname "$0")/.."
SR=${SR:-./schedreplay}
out=${GOLDEN_OUT:-tests/fixtures/golden}
mkdir -p "$out"

# name, then replay arguments
golden() {
	local name=$1
	shift
	"$SR" replay -q --json "$@" |
		sed -n 's/^  {"model": "\([^"]*\)", "kind": "\([^"]*\)", "reason": null, "n": \([0-9]*\), "exact_pct": \([0-9.]*\), "same_llc_pct": \([0-9.]*\), "same_node_pct": \([0-9.]*\), "baseline_exact_pct": \([0-9.]*\)}.*/\1 \2 \3 \4 \5 \6 \7/p' \
		>"$out/$name.fidelity"
}

if [ "${1:-all}" != fidelity ]; then
	. tests/lib/sql-golden.sh
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/schedreplay-golden.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	sql_golden_db "$SR" "$tmp/golden.db"
	rm -rf "$out/sql"
	sql_golden_outputs "$SR" "$tmp/golden.db" "$out/sql"
	echo "wrote $(ls "$out"/sql/* | wc -l) files in $out/sql"
fi
[ "${1:-all}" = sql ] && exit 0

for f in tests/fixtures/tracedat/numa/*.dat; do
	n=$(basename "$f" .dat)
	golden "$n" -m mainline -m v4.15 -t "${f%.dat}.topo" "$f"
done
golden lttng-4.15-rotation -m v4.15 -m mainline tests/fixtures/ctf/succeed/lttng-tracefile-rotation
golden live-6.18-instance -m mainline tests/fixtures/tracedat/succeed/live-6.18-instance-v7.dat
echo "wrote $(ls "$out"/*.fidelity | wc -l) files in $out"
