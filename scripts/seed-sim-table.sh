#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Issue 16's seed-direction table: each recording of a seed load simulated
# ("schedreplay simulate TRACE -p PAIR --runs N --json") under both sides of
# its seed's pairs, and per pair the metric its author argued with, original
# against patched (median and min..max over the runs), beside the recorded
# run, with the direction the author reported:
#
#   seed 002 nohz-first        nohzspread  idle_while_waiting_s lower, and
#                                          busy_pct_per_node closer together
#   seed 003 newidle-bail      ppbail      wakeup_latency_us p50 / p99 lower
#   seed 004 wake-affine-equal equalwake   migrations (cross-node) fewer
#   seed 004 exit-sync-*       exitsync    migrations_cross_node fewer
#   seed 000 kthread-per-cpu   kthreadpin  busy_pct_per_node closer together
#
#   scripts/seed-sim-table.sh [--schedreplay BIN] [--runs N] [--work DIR] LIST
#
# LIST as for scripts/fidelity-table.sh ("SET PATH [REPLAY-OPTION...]"; the
# options are not used here).  The load is taken from the file name
# (NAME-LOAD.dat or NAME-LOAD-b.dat); a trace without topology metadata is
# simulated with "-t FILE.topo" when FILE.topo sits beside it.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
SRBIN=$HERE/../schedreplay RUNS=5 WORK=

usage() {
	echo "usage: $0 [--schedreplay BIN] [--runs N] [--work DIR] LIST" >&2
	exit "${1:-2}"
}
while [ $# -gt 0 ]; do
	case $1 in
	--schedreplay) SRBIN=$2; shift 2 ;;
	--runs) RUNS=$2; shift 2 ;;
	--work) WORK=$2; shift 2 ;;
	-h | --help) usage 0 ;;
	-*) usage ;;
	*) break ;;
	esac
done
[ $# = 1 ] || usage
LIST=$1
[ -r "$LIST" ] || { echo "seed-sim-table: cannot read the list '$LIST'" >&2; exit 1; }
[ -x "$SRBIN" ] || { echo "seed-sim-table: no schedreplay binary at '$SRBIN'" >&2; exit 1; }
case $RUNS in '' | *[!0-9]*) usage ;; esac
if [ -z "$WORK" ]; then
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/seed-sim.XXXXXX")
	trap 'rm -rf "$WORK"' EXIT
fi
mkdir -p "$WORK"
LDIR=$(cd "$(dirname "$LIST")" && pwd)

pairs_of() {	# pairs_of LOAD: the pairs whose seed the load reproduces
	case $1 in
	nohzspread) echo nohz-first ;;
	ppbail) echo newidle-bail ;;
	equalwake) echo wake-affine-equal ;;
	exitsync) echo exit-sync-mel exit-sync-peterz ;;
	kthreadpin) echo kthread-per-cpu ;;
	esac
}

: >"$WORK/sims.tsv"
n=0
while read -r set path _; do
	case $set in '' | '#'*) continue ;; esac
	case $path in /*) ;; *) path=$LDIR/$path ;; esac
	base=$(basename "$path" .dat)
	# KERNEL-RECORDER-LOAD or KERNEL-RECORDER-LOAD-X (X: one letter, a variant)
	load=$(echo "$base" | sed 's/-[a-z]$//; s/.*-//')
	pairs=$(pairs_of "$load")
	[ -n "$pairs" ] || { echo "seed-sim-table: $base: not a seed load, skipped" >&2; continue; }
	topo=()
	[ -f "${path%.dat}.topo" ] && topo=(-t "${path%.dat}.topo")
	args=()
	for p in $pairs; do args+=(-p "$p"); done
	n=$((n + 1))
	out=$WORK/s$n.json
	if "$SRBIN" simulate "${topo[@]}" "${args[@]}" --runs "$RUNS" --json "$path" \
		>"$out" 2>"$WORK/s$n.err"; then
		printf '%s\t%s\t%s\t%s\n' "$set" "$base" "$load" "$out" >>"$WORK/sims.tsv"
	else
		echo "seed-sim-table: simulate failed on $path (see $WORK/s$n.err)" >&2
	fi
done <"$LIST"

python3 - "$WORK/sims.tsv" <<'EOF'
import json, sys

# per load: (metric label, getter, the author's direction: patched lower = -1)
def node_gap(m):
    b = m.get("busy_pct_per_node") or []
    return max(b) - min(b) if len(b) > 1 else None

def lat(k):
    return lambda m: (m.get("wakeup_latency_us") or {}).get(k)

METRICS = {
    "nohzspread": [("idle_while_waiting_s", lambda m: m.get("idle_while_waiting_s"), -1),
                   ("node busy gap %", node_gap, -1),
                   ("makespan_s", lambda m: m.get("makespan_s"), -1)],
    "ppbail": [("wakeup p50 us", lat("p50"), -1), ("wakeup p99 us", lat("p99"), -1)],
    "equalwake": [("migrations", lambda m: m.get("migrations"), -1),
                  ("cross-node migrations", lambda m: m.get("migrations_cross_node"), -1)],
    "exitsync": [("cross-node migrations", lambda m: m.get("migrations_cross_node"), -1),
                 ("migrations", lambda m: m.get("migrations"), -1)],
    "kthreadpin": [("node busy gap %", node_gap, -1),
                   ("cross-node migrations", lambda m: m.get("migrations_cross_node"), 0)],
}

def fmt(v):
    if v is None:
        return "-"
    return ("%.3f" % v) if isinstance(v, float) and abs(v) < 100 else ("%.1f" % v if isinstance(v, float) else str(v))

def side_str(s, get):
    if get is node_gap:
        # per node: the spread is per node, the gap's own range is not known
        b = s.get("busy_pct_per_node") or []
        sp = s.get("spread")
        parts = []
        for i, v in enumerate(b):
            if sp:
                parts.append("%.1f [%.1f..%.1f]" % (v, sp["min"]["busy_pct_per_node"][i],
                                                    sp["max"]["busy_pct_per_node"][i]))
            else:
                parts.append("%.1f" % v)
        return " / ".join(parts)
    v = get(s)
    sp = s.get("spread")
    if sp:
        return "%s [%s..%s]" % (fmt(v), fmt(get(sp["min"])), fmt(get(sp["max"])))
    return fmt(v)

def ranges(s, get):
    # [(lo, hi)] of the metric, per node for node_gap
    sp = s.get("spread")
    if get is node_gap:
        b = s.get("busy_pct_per_node") or []
        if not sp:
            return [(v, v) for v in b]
        return list(zip(sp["min"]["busy_pct_per_node"], sp["max"]["busy_pct_per_node"]))
    v = get(s)
    return [(get(sp["min"]), get(sp["max"]))] if sp else [(v, v)]

rows = []
for line in open(sys.argv[1]):
    set_, base, load, path = line.rstrip("\n").split("\t")
    d = json.load(open(path))
    rec = d["recorded"]
    sides = {}
    for s in d["sides"]:
        if s.get("patch"):
            sides.setdefault(s["patch"], {})[s["variant"]] = s
    for pair, vs in sorted(sides.items()):
        o, p = vs.get("original"), vs.get("patched")
        if not o or not p:
            continue
        for label, get, want in METRICS[load]:
            ov, pv = get(o), get(p)
            if ov is None or pv is None:
                verdict = "-"
            else:
                # the spreads overlap (on every node for node_gap): no direction
                ro, rp = ranges(o, get), ranges(p, get)
                overlap = all(hp >= lo and ho >= lp for (lo, ho), (lp, hp) in zip(ro, rp))
                if pv == ov or overlap:
                    verdict = "none (spreads overlap)" if pv != ov else "none (equal)"
                elif want == 0:
                    verdict = "patched " + ("lower" if pv < ov else "higher")
                elif (pv - ov) * want > 0:
                    verdict = "author's direction"
                else:
                    verdict = "OPPOSITE"
            rows.append((set_, base, pair, label, side_str(rec, get), side_str(o, get), side_str(p, get),
                         "%s/%s" % (o.get("divergent_decisions", "-"), p.get("divergent_decisions", "-")),
                         verdict))

hdr = ("set", "trace", "pair", "metric", "recorded", "original med [min..max]",
       "patched med [min..max]", "div o/p", "direction")
w = [max(len(str(r[i])) for r in rows + [hdr]) for i in range(len(hdr))]
for r in [hdr] + rows:
    print("  ".join(str(c).ljust(w[i]) for i, c in enumerate(r)).rstrip())
EOF
