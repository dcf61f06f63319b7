# The figures tests/t5320-seed-loads.sh holds to tests/fixtures/golden/seeds/
# (tests/update-golden.sh seeds writes them).  Sourced.

# seed_replay_summary SR FIXTURE PAIRS: "pair kind decisions divergent
# original_exact patched_exact" of the mainline model, a line per kind
seed_replay_summary() {
	local sr=$1 f=$2 pairs=$3 db args=() p
	db=$(mktemp -u "${TMPDIR:-/tmp}/seed-golden.XXXXXX.db")
	for p in $pairs; do args+=(-p "$p"); done
	"$sr" replay -q -o "$db" -m mainline "${args[@]}" -t "$f.topo" "$f.dat" >/dev/null || return 1
	sqlite3 "$db" "SELECT patch, kind, decisions, divergent, original_exact, patched_exact
		FROM patch_summary WHERE model = 'mainline' ORDER BY patch, kind" | tr '|' ' '
	rm -f "$db"
}

# seed_simulate_summary SR FIXTURE PAIRS: "pair variant divergent_decisions
# migrations migrations_cross_node" of each simulated side (one run)
seed_simulate_summary() {
	local sr=$1 f=$2 pairs=$3 args=() p
	for p in $pairs; do args+=(-p "$p"); done
	"$sr" simulate --json "${args[@]}" -t "$f.topo" "$f.dat" | python3 -c '
import json, sys
d = json.load(sys.stdin)
for s in d["sides"]:
    if s.get("patch"):
        print(s["patch"], s["variant"], s.get("divergent_decisions"), s["migrations"],
              s["migrations_cross_node"])'
}
