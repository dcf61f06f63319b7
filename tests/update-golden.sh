#!/bin/bash
# Regenerate the golden fidelity figures (tests/fixtures/golden/*.fidelity)
# and the canned-query outputs of "schedreplay sql" (golden/sql/) from the
# committed real traces.  Run on purpose only, after a change to the engine,
# the models or the queries, and read the diff: it is what the change did.
# tests/t5100-fidelity-golden.sh and tests/t6000-sql.sh hold the code to
# these files.  "update-golden.sh fidelity", "update-golden.sh sql",
# "update-golden.sh simulate" (golden/simulate/ and the rt-app exports of
# tests/fixtures/demand/, held by tests/t5500-simulate.sh), "update-golden.sh
# seeds" (golden/seeds/, held by tests/t5320-seed-loads.sh) or
# "update-golden.sh tui" makes one set only.
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
		sed -n 's/^  {"model": "\([^"]*\)", "kind": "\([^"]*\)", "reason": null, "n": \([0-9]*\), "exact_pct": \([0-9.]*\), "same_llc_pct": \([0-9.]*\), "same_node_pct": \([0-9.]*\), "baseline_exact_pct": \([0-9.]*\)[,}].*/\1 \2 \3 \4 \5 \6 \7/p' \
		>"$out/$name.fidelity"
}

if [ "${1:-all}" = all ] || [ "$1" = sql ]; then
	. tests/lib/sql-golden.sh
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/schedreplay-golden.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	sql_golden_db "$SR" "$tmp/golden.db"
	rm -rf "$out/sql"
	sql_golden_outputs "$SR" "$tmp/golden.db" "$out/sql"
	echo "wrote $(ls "$out"/sql/* | wc -l) files in $out/sql"
fi
[ "${1:-all}" = sql ] && exit 0

if [ "${1:-all}" = all ] || [ "$1" = simulate ]; then
	mkdir -p "$out/simulate"
	for f in tests/fixtures/tracedat/numa/*.dat; do
		"$SR" simulate --json -t "${f%.dat}.topo" "$f" >"$out/simulate/$(basename "$f" .dat).json"
	done
	for n in pipe-pair fork-wait timer-sleeper; do
		"$SR" simulate --export-demand "tests/fixtures/demand/$n.rtapp.json" \
			"tests/fixtures/demand/$n.txt" >/dev/null 2>&1
	done
	echo "wrote $(ls "$out"/simulate/* | wc -l) files in $out/simulate and 3 rt-app exports"
fi
[ "${1:-all}" = simulate ] && exit 0

# the seed loads' recordings (tests/t5320-seed-loads.sh): each fixture's pairs
if [ "${1:-all}" = all ] || [ "$1" = seeds ]; then
	. tests/lib/seed-golden.sh
	mkdir -p "$out/seeds"
	while read -r name pairs _; do
		seed_replay_summary "$SR" "tests/fixtures/tracedat/seeds/$name" "${pairs//,/ }" \
			>"$out/seeds/$name.replay"
		seed_simulate_summary "$SR" "tests/fixtures/tracedat/seeds/$name" "${pairs//,/ }" \
			>"$out/seeds/$name.simulate"
	done < <(grep -v '^#' tests/fixtures/tracedat/seeds/LIST)
	echo "wrote $(ls "$out"/seeds/* | wc -l) files in $out/seeds"
fi
[ "${1:-all}" = seeds ] && exit 0

if [ "${1:-all}" != tui ]; then
	for f in tests/fixtures/tracedat/numa/*.dat; do
		n=$(basename "$f" .dat)
		golden "$n" -m mainline -m v4.15 -t "${f%.dat}.topo" "$f"
	done
	golden lttng-4.15-rotation -m v4.15 -m mainline tests/fixtures/ctf/succeed/lttng-tracefile-rotation
	golden live-6.18-instance -m mainline tests/fixtures/tracedat/succeed/live-6.18-instance-v7.dat
	echo "wrote $(ls "$out"/*.fidelity | wc -l) files in $out"
fi
[ "${1:-all}" = fidelity ] && exit 0

# the TUI's views as text (tests/t7000-tui.sh), on databases made here from
# relative fixture paths, so that no absolute path lands in a golden
tui_out=$out/tui
mkdir -p "$tui_out"
tmp=$(mktemp -d)
N=tests/fixtures/tracedat/numa
"$SR" replay -q -o "$tmp/forks.db" -m v4.15 -t $N/numa-6.12-forks.topo -p wake-affine-equal \
	-p exit-sync-mel -p exit-sync-peterz $N/numa-6.12-forks.dat
"$SR" replay -q -o "$tmp/snap.db" -m v4.15 --snapshots all -t $N/numa-6.12-pingpong.topo \
	-p wake-affine-equal $N/numa-6.12-pingpong.dat
"$SR" replay -q -a -o "$tmp/snap.db" -m mainline -t $N/numa-6.1-pingpong.topo \
	-p exit-sync-mel $N/numa-6.1-pingpong.dat
"$SR" tui --dump list "$tmp/forks.db" >"$tui_out/list.txt"
"$SR" tui --dump list --all --size 100x30 "$tmp/forks.db" >"$tui_out/list-all.txt"
"$SR" tui --dump detail --select 2 --size 80x60 "$tmp/forks.db" >"$tui_out/detail.txt"
"$SR" tui --dump summary --size 90x40 "$tmp/forks.db" >"$tui_out/summary.txt"
"$SR" tui --dump help --size 80x40 "$tmp/forks.db" >"$tui_out/help.txt"
"$SR" tui --dump detail --all --select 2 --size 80x40 "$tmp/forks.db" >"$tui_out/detail-nostate.txt"
"$SR" tui --dump detail --all --select 5 --size 80x40 "$tmp/snap.db" >"$tui_out/detail-snap.txt"
rm -rf "$tmp"
echo "wrote $(ls "$tui_out"/*.txt | wc -l) files in $tui_out"

# the report goldens too, when regenerating in place (t5100 compares only the
# fidelity files)
[ -z "${GOLDEN_OUT:-}" ] && SR=$SR tests/update-golden-report.sh
exit 0
