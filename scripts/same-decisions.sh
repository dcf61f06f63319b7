#!/bin/bash
# same-decisions.sh OLD NEW: do two schedreplay binaries decide alike?
# Replays every committed real trace (the NUMA recordings under both base
# models, the LTTng and live traces) with every pair that changes a
# decision, and compares every table of the two databases row by row:
# decisions, each side's evaluation and reason path, migrations, the CPU
# snapshots, divergences, fidelity.  For a change that must not move a
# figure (a refactoring of the engine or the models); prints the tables
# that differ and exits 1, or exits 0.
set -u
[ $# -eq 2 ] || { echo "usage: $0 OLD-BINARY NEW-BINARY" >&2; exit 2; }
OLD=$(realpath "$1") NEW=$(realpath "$2")
cd "$(dirname "$0")/.." || exit 2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/same-decisions.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
PAIRS=$("$NEW" replay --list-patches | awk '/^[a-z]/ { print $1 }' | while read -r p; do
	"$NEW" replay --list-patches | grep -A1 "^$p " | grep -q 'nothing to evaluate' ||
		printf -- '-p %s ' "$p"; done)
TABLES="decision evaluation migration cpu_state divergence reason reconciled skipped side fidelity"

# dump BINARY NAME ARGS...: the tables of one replay, as text
dump() {
	local sr=$1 name=$2 t
	shift 2
	rm -f "$tmp/$name.db"
	"$sr" replay -q --snapshots all -o "$tmp/$name.db" "$@" >/dev/null 2>"$tmp/$name.err" ||
		{ echo "$name: replay failed: $(tail -1 "$tmp/$name.err")"; return 1; }
	for t in $TABLES; do
		echo "== $t"
		sqlite3 "$tmp/$name.db" "SELECT * FROM $t ORDER BY 1, 2"
	done >"$tmp/$name.txt"
	rm -f "$tmp/$name.db"
}

status=0
# compare NAME ARGS...
compare() {
	local name=$1
	shift
	dump "$OLD" "$name.old" "$@" || { status=1; return; }
	dump "$NEW" "$name.new" "$@" || { status=1; return; }
	if cmp -s "$tmp/$name.old.txt" "$tmp/$name.new.txt"; then
		echo "same: $name ($(grep -vc '^==' "$tmp/$name.new.txt") rows)"
	else
		echo "DIFFERENT: $name, in $(diff "$tmp/$name.old.txt" "$tmp/$name.new.txt" |
			grep -c '^[<>]') rows"
		status=1
	fi
}

for f in tests/fixtures/tracedat/numa/*.dat; do
	n=$(basename "$f" .dat)
	for m in mainline v4.15; do
		# shellcheck disable=SC2086
		compare "$n-$m" -m "$m" $PAIRS -t "${f%.dat}.topo" "$f"
	done
done
for m in mainline v4.15; do
	# shellcheck disable=SC2086
	compare "lttng-4.15-$m" -m "$m" $PAIRS tests/fixtures/ctf/succeed/lttng-tracefile-rotation
done
# shellcheck disable=SC2086
compare live-6.18 -m mainline $PAIRS tests/fixtures/tracedat/succeed/live-6.18-instance-v7.dat
exit $status
