#!/bin/bash
# Regenerate the golden fidelity figures (tests/fixtures/golden/*.fidelity)
# from the committed real traces.  Run on purpose only, after a change to the
# engine or the models, and read the diff: it is what the change did to
# fidelity.  tests/t5100-fidelity-golden.sh holds the code to these files.
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

for f in tests/fixtures/tracedat/numa/*.dat; do
	n=$(basename "$f" .dat)
	golden "$n" -m mainline -m v4.15 -t "${f%.dat}.topo" "$f"
done
golden lttng-4.15-rotation -m v4.15 -m mainline tests/fixtures/ctf/succeed/lttng-tracefile-rotation
golden live-6.18-instance -m mainline tests/fixtures/tracedat/succeed/live-6.18-instance-v7.dat
echo "wrote $(ls "$out"/*.fidelity | wc -l) files in $out"
# the report goldens too, when regenerating in place (t5100 compares only the
# fidelity files)
[ -z "${GOLDEN_OUT:-}" ] && SR=$SR tests/update-golden-report.sh
exit 0
