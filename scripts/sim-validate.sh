#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The validation table of issue 16 on a list of real recordings: simulates
# each trace under the base model ("schedreplay simulate --json --runs N")
# and prints per trace and metric the recorded figure beside the simulated
# base's (makespan within 10 %, migrations and cross-node migrations within
# 25 %, wakeup latency p50 and p99 within 30 %), the count per metric that
# meets its goal, the share of the recorded CPU time the base side's run
# left un-run where simulate warns of it (schedreplay-simulate(1),
# INCOMPLETE RUNS: above 1 %), and what simulating costs against
# replaying the same trace.  With --pairs it also simulates both sides of seed pairs: on a
# recording of a seed load (scripts/numa-guest/README.md, "Seed loads"; the
# load from the file name, KERNEL-RECORDER-LOAD[-X].dat) the pairs of that
# seed, elsewhere every pair with decisions to evaluate; it prints each
# pair's original and patched sides with their spreads, and for the seed
# loads the seed-direction table: the metric the seed's author argued with,
# recorded and per side (median and min..max), and whether the patched side
# moved it the author's way, the opposite way, or not beyond the spread:
#
#   seed 002 nohz-first        nohzspread  idle_while_waiting_s lower, and
#                                          busy_pct_per_node closer together
#   seed 003 newidle-bail      ppbail      wakeup_latency_us p50 / p99 lower
#   seed 004 wake-affine-equal equalwake   migrations (cross-node) fewer
#   seed 004 exit-sync-*       exitsync    migrations_cross_node fewer
#   seed 000 kthread-per-cpu   kthreadpin  busy_pct_per_node closer together
#
#   scripts/sim-validate.sh [options] LIST
#   scripts/sim-validate.sh [--before DIR] --render DIR
#
# LIST has one recording a line: "SET PATH [SIMULATE-OPTION...]" (the format
# of scripts/fidelity-table.sh's lists; a relative PATH is taken from the
# list's folder, '#' starts a comment).  A trace with FILE.topo beside it is
# simulated with "-t FILE.topo".
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
SRBIN=$HERE/../schedreplay MODEL=mainline RUNS=3 WORK= KEEP= RENDER= BEFORE= PAIRS= TIMING=1

usage() {
	cat <<EOF
usage: $0 [options] LIST
       $0 [--before DIR] --render DIR
  --schedreplay PATH  the binary to measure (default: the repository's)
  --model NAME        base model (default mainline)
  --runs N            simulate --runs N (default 3): medians and spreads
  --pairs             also simulate both sides of seed pairs (a seed load's
                      own, else every pair with decisions to evaluate), and
                      print the pairs' table and the seed-direction table
  --no-timing         do not time replay against simulate
  --work DIR          keep each trace's JSON and log in DIR (default: a
                      temporary folder, removed at the end)
  --render DIR        print the tables again from a --work DIR
  --before DIR        a --work DIR of an earlier binary: print its figures
                      beside this run's (before -> after)
  -h, --help          this help
Needs python3 and /usr/bin/time.
EOF
	exit "${1:-2}"
}

while [ $# -gt 0 ]; do
	case $1 in
	--schedreplay) SRBIN=$2; shift 2 ;;
	--model) MODEL=$2; shift 2 ;;
	--runs) RUNS=$2; shift 2 ;;
	--pairs) PAIRS=1; shift ;;
	--no-timing) TIMING=; shift ;;
	--work) WORK=$2; KEEP=1; shift 2 ;;
	--render) WORK=$2; KEEP=1; RENDER=1; shift 2 ;;
	--before) BEFORE=$2; shift 2 ;;
	-h | --help) usage 0 ;;
	-*) usage ;;
	*) break ;;
	esac
done
command -v python3 >/dev/null || { echo "sim-validate: needs python3" >&2; exit 1; }
case $RUNS in '' | *[!0-9]*) usage ;; esac
if [ -n "$BEFORE" ] && [ ! -f "$BEFORE/runs.tsv" ]; then
	echo "sim-validate: '$BEFORE' has no runs.tsv" >&2
	exit 1
fi
if [ -n "$RENDER" ]; then
	[ $# = 0 ] || usage
	[ -f "$WORK/runs.tsv" ] || { echo "sim-validate: '$WORK' has no runs.tsv" >&2; exit 1; }
else
	[ $# = 1 ] || usage
	LIST=$1
	[ -r "$LIST" ] || { echo "sim-validate: cannot read the list '$LIST'" >&2; exit 1; }
	[ -x "$SRBIN" ] || { echo "sim-validate: no schedreplay binary at '$SRBIN'" >&2; exit 1; }
	if [ -n "$TIMING" ] && [ ! -x /usr/bin/time ]; then
		echo "sim-validate: needs /usr/bin/time (or --no-timing)" >&2
		exit 1
	fi
fi
if [ -z "$WORK" ]; then
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/sim-validate.XXXXXX")
	trap 'rm -rf "$WORK"' EXIT
fi
mkdir -p "$WORK"

# the load of a recording by its name: KERNEL-RECORDER-LOAD or ...-LOAD-X
load_of() {
	echo "$1" | sed 's/-[a-z]$//; s/.*-//'
}

# the pairs whose seed the load reproduces (nothing: not a seed load)
seed_pairs() {
	case $1 in
	nohzspread) echo nohz-first ;;
	ppbail) echo newidle-bail ;;
	equalwake) echo wake-affine-equal ;;
	exitsync) echo exit-sync-mel exit-sync-peterz ;;
	kthreadpin) echo kthread-per-cpu ;;
	esac
}

# user + system CPU seconds of a command (its output thrown away)
cpu_s() {
	local t
	t=$(mktemp "$WORK/time.XXXXXX")
	/usr/bin/time -f '%U %S' -o "$t" "$@" >/dev/null 2>&1 || { rm -f "$t"; return 1; }
	awk 'END { printf "%.3f", $1 + $2 }' "$t"
	rm -f "$t"
}

if [ -z "$RENDER" ]; then
	LISTDIR=$(cd "$(dirname "$LIST")" && pwd)
	all_pairs=()
	if [ -n "$PAIRS" ]; then
		while read -r p; do all_pairs+=(-p "$p"); done < <("$SRBIN" replay --list-patches |
			awk '/^[a-z0-9]/ { p = $1 } /nothing to evaluate/ { p = "" }
			/^ / && /; evaluated at/ && p != "" { print p; p = "" }')
	fi
	: >"$WORK/runs.tsv"
	echo "$SRBIN" >"$WORK/binary"
	while read -r set path opts; do
		case $set in '' | '#'*) continue ;; esac
		case $path in /*) ;; *) path=$LISTDIR/$path ;; esac
		name=$(basename "$path" .dat)
		patches=()
		if [ -n "$PAIRS" ]; then
			sp=$(seed_pairs "$(load_of "$name")")
			if [ -n "$sp" ]; then
				for p in $sp; do patches+=(-p "$p"); done
			else
				patches=("${all_pairs[@]}")
			fi
		fi
		topo=()
		[ -f "${path%.dat}.topo" ] && topo=(-t "${path%.dat}.topo")
		# shellcheck disable=SC2086  # opts are words
		if ! "$SRBIN" simulate --json --runs "$RUNS" -m "$MODEL" "${patches[@]}" "${topo[@]}" \
			$opts "$path" >"$WORK/$name.json" 2>"$WORK/$name.log"; then
			echo "sim-validate: simulate failed on $path: $(tail -1 "$WORK/$name.log")" >&2
			exit 1
		fi
		rs=- ss=-
		if [ -n "$TIMING" ]; then
			# shellcheck disable=SC2086
			rs=$(cpu_s "$SRBIN" replay -q -m "$MODEL" "${topo[@]}" --snapshots none "$path") || rs=-
			# shellcheck disable=SC2086
			ss=$(cpu_s "$SRBIN" simulate -m "$MODEL" "${topo[@]}" $opts "$path") || ss=-
		fi
		printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$set" "$path" "$rs" "$ss" >>"$WORK/runs.tsv"
		echo "sim-validate: $name: done" >&2
	done <"$LIST"
fi

python3 - "$WORK" "$BEFORE" <<'EOF'
import json, os, re, sys

work, before = sys.argv[1], sys.argv[2]
GOALS = (("makespan_s", None, 10, "makespan"), ("migrations", None, 25, "migrations"),
         ("migrations_cross_node", None, 25, "cross-node"),
         ("wakeup_latency_us", "p50", 30, "p50"), ("wakeup_latency_us", "p99", 30, "p99"))


def unrun_of(d, name, j):
    """the base side's un-run share of the demand (%), from simulate's warning
    (INCOMPLETE RUNS: more than 1 %), 0.0 without one"""
    try:
        log = open(os.path.join(d, name + ".log")).read()
    except OSError:
        return 0.0
    model = re.escape(j["sides"][0]["model"]) if j and j.get("sides") else r"\S+"
    m = re.search(r"simulate: " + model + r" left [0-9.]+ of the demand's [0-9.]+ "
                  r"recorded CPU-s un-run \(([0-9.]+) %", log)
    return float(m.group(1)) if m else 0.0


def load(d):
    runs = {}
    for line in open(os.path.join(d, "runs.tsv")):
        name, set_, path, rs, ss = line.rstrip("\n").split("\t")
        try:
            j = json.load(open(os.path.join(d, name + ".json")))
        except (OSError, ValueError):
            j = None
        if j:
            j["unrun_pct"] = unrun_of(d, name, j)
        runs[name] = (set_, j, rs, ss)
    return runs


def get(o, key, sub):
    return o[key][sub] if sub else o[key]


def dev(sim, rec):
    if rec == 0:
        return 0.0 if sim == 0 else float("inf")
    return (sim - rec) / rec * 100


def fmt(v):
    return "%.3f" % v if isinstance(v, float) and v < 100 else "%.0f" % v


now = load(work)
old = load(before) if before else {}
met = {}
print("| trace | set | " + " | ".join(g[3] + " rec / sim (dev %)" for g in GOALS) +
      " | wakeups rec / sim | un-run % | misses |")
print("|---|---|" + "---|" * len(GOALS) + "---|---|---|")
unrun = {}
for name, (set_, j, rs, ss) in now.items():
    if not j:
        print("| %s | %s | no result |" % (name, set_))
        continue
    rec, base = j["recorded"], j["sides"][0]
    oj = old.get(name, (None, None))[1]
    ob = oj["sides"][0] if oj else None
    cells, miss = [], []
    for key, sub, tol, label in GOALS:
        r, b = get(rec, key, sub), get(base, key, sub)
        d = dev(b, r)
        ok = abs(d) <= tol
        cell = "%s / %s (%+.0f)" % (fmt(r), fmt(b), d)
        if ob:
            cell = "%s / %s (%+.0f) -> %s (%+.0f)" % (fmt(r), fmt(get(ob, key, sub)),
                                                     dev(get(ob, key, sub), r), fmt(b), d)
        cells.append(cell)
        for s in (set_, "all"):
            m = met.setdefault((s, label), [0, 0, 0])
            m[0] += ok
            m[1] += 1
            if ob:
                m[2] += abs(dev(get(ob, key, sub), r)) <= tol
        if not ok:
            miss.append(label)
    cells.append("%d / %d" % (rec["wakeups"], base["wakeups"]))
    u = j["unrun_pct"]
    cells.append(("%s -> " % (("%.1f" % oj["unrun_pct"]) if oj["unrun_pct"] else "-")
                  if oj else "") + (("%.1f" % u) if u else "-"))
    for s in (set_, "all"):
        n = unrun.setdefault(s, [0, 0])
        n[0] += u > 0
        n[1] += bool(oj and oj["unrun_pct"] > 0)
    print("| %s | %s | %s | %s |" % (name, set_, " | ".join(cells), ", ".join(miss) or "-"))
print()
print("within the goal (traces), and the traces whose base run left more than 1 % of the demand un-run:")
for s in sorted(set(k[0] for k in met), key=lambda x: (x == "all", x)):
    parts = []
    for g in GOALS:
        m = met.get((s, g[3]))
        if m:
            parts.append("%s %s%d/%d" % (g[3], ("%d -> " % m[2]) if old else "", m[0], m[1]))
    n = unrun.get(s, [0, 0])
    parts.append("un-run %s%d" % (("%d -> " % n[1]) if old else "", n[0]))
    print("  %s: %s" % (s, ", ".join(parts)))

# the seed pairs: original against patched, medians [min..max]
rows = []
for name, (set_, j, rs, ss) in now.items():
    if not j:
        continue
    sides = j["sides"]
    for i in range(1, len(sides) - 1, 2):
        o, p = sides[i], sides[i + 1]
        if o.get("variant") != "original" or p.get("variant") != "patched":
            continue
        rows.append((name, o, p))
if rows:
    print()
    print("seed pairs (original / patched, median [min..max] over the runs):")
    print("| trace | pair | makespan s | migrations | cross-node | p50 us | p99 us | idle_while_waiting s | divergent |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, o, p in rows:
        def c(key, sub=None):
            def one(x):
                sp = x.get("spread")
                v = get(x, key, sub)
                if not sp:
                    return fmt(v)
                return "%s [%s..%s]" % (fmt(v), fmt(get(sp["min"], key, sub)),
                                        fmt(get(sp["max"], key, sub)))
            return one(o) + " / " + one(p)
        print("| %s | %s | %s | %s | %s | %s | %s | %s | %s / %s |" % (
            name, o["patch"], c("makespan_s"), c("migrations"), c("migrations_cross_node"),
            c("wakeup_latency_us", "p50"), c("wakeup_latency_us", "p99"),
            c("idle_while_waiting_s"), o.get("divergent_decisions"), p.get("divergent_decisions")))

# the seed-direction table: per seed load, the metric its author argued
# with (patched lower = -1; 0: no direction claimed, the change is shown)
def node_gap(m):
    b = m.get("busy_pct_per_node") or []
    return max(b) - min(b) if len(b) > 1 else None


def lat(k):
    return lambda m: (m.get("wakeup_latency_us") or {}).get(k)


def field(k):
    return lambda m: m.get(k)


SEED_METRICS = {
    "nohzspread": [("idle_while_waiting_s", field("idle_while_waiting_s"), -1),
                   ("node busy gap %", node_gap, -1), ("makespan_s", field("makespan_s"), -1)],
    "ppbail": [("wakeup p50 us", lat("p50"), -1), ("wakeup p99 us", lat("p99"), -1)],
    "equalwake": [("migrations", field("migrations"), -1),
                  ("cross-node migrations", field("migrations_cross_node"), -1)],
    "exitsync": [("cross-node migrations", field("migrations_cross_node"), -1),
                 ("migrations", field("migrations"), -1)],
    "kthreadpin": [("node busy gap %", node_gap, -1),
                   ("cross-node migrations", field("migrations_cross_node"), 0)],
}


def load_of(name):
    base = name[:-2] if len(name) > 2 and name[-2] == "-" and name[-1].isalpha() else name
    return base.rsplit("-", 1)[-1]


def sfmt(v):
    if v is None:
        return "-"
    if isinstance(v, float):
        return "%.3f" % v if abs(v) < 100 else "%.1f" % v
    return str(v)


def side_str(x, getter):
    sp = x.get("spread")
    if getter is node_gap:
        b = x.get("busy_pct_per_node") or []
        if sp:
            return " / ".join("%.1f [%.1f..%.1f]" % (v, sp["min"]["busy_pct_per_node"][i],
                                                     sp["max"]["busy_pct_per_node"][i])
                              for i, v in enumerate(b))
        return " / ".join("%.1f" % v for v in b)
    v = getter(x)
    if sp:
        return "%s [%s..%s]" % (sfmt(v), sfmt(getter(sp["min"])), sfmt(getter(sp["max"])))
    return sfmt(v)


def ranges(x, getter):
    sp = x.get("spread")
    if getter is node_gap:
        b = x.get("busy_pct_per_node") or []
        if not sp:
            return [(v, v) for v in b]
        return list(zip(sp["min"]["busy_pct_per_node"], sp["max"]["busy_pct_per_node"]))
    v = getter(x)
    return [(getter(sp["min"]), getter(sp["max"]))] if sp else [(v, v)]


srows = []
for name, (set_, j, rs, ss) in now.items():
    load = load_of(name)
    if not j or load not in SEED_METRICS:
        continue
    sides = {}
    for x in j["sides"]:
        if x.get("patch"):
            sides.setdefault(x["patch"], {})[x["variant"]] = x
    for pair, vs in sorted(sides.items()):
        o, p = vs.get("original"), vs.get("patched")
        if not o or not p:
            continue
        for label, getter, want in SEED_METRICS[load]:
            ov, pv = getter(o), getter(p)
            if ov is None or pv is None:
                verdict = "-"
            else:
                ro, rp = ranges(o, getter), ranges(p, getter)
                overlap = all(hp >= lo and ho >= lp for (lo, ho), (lp, hp) in zip(ro, rp))
                if pv == ov:
                    verdict = "none (equal)"
                elif overlap:
                    verdict = "none (spreads overlap)"
                elif want == 0:
                    verdict = "patched " + ("lower" if pv < ov else "higher")
                elif (pv - ov) * want > 0:
                    verdict = "author's direction"
                else:
                    verdict = "OPPOSITE"
            srows.append((set_, name, pair, label, side_str(j["recorded"], getter),
                          side_str(o, getter), side_str(p, getter),
                          "%s/%s" % (o.get("divergent_decisions", "-"),
                                     p.get("divergent_decisions", "-")), verdict))
if srows:
    print()
    print("seed directions (the author's metric; original / patched median [min..max]):")
    print("| set | trace | pair | metric | recorded | original | patched | divergent o/p | direction |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in srows:
        print("| " + " | ".join(str(c) for c in r) + " |")

# the cost: simulate (base model, one run) against replay (the same model)
tr = ts = 0.0
worst = None
for name, (set_, j, rs, ss) in now.items():
    if rs == "-" or ss == "-":
        continue
    r, s = float(rs), float(ss)
    tr += r
    ts += s
    if r > 0 and (worst is None or s / r > worst[1]):
        worst = (name, s / r)
if tr > 0:
    print()
    print("cost, CPU seconds: replay %.2f, simulate (1 run) %.2f, simulate / replay = %.2f"
          " (goal <= 3); worst trace %s at %.2f" % (tr, ts, ts / tr, worst[0], worst[1]))
EOF
