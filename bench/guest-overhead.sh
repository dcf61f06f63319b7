#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Recorder overhead in the 2-node NUMA guest (issue 3, part of "make bench"):
# one boot of a stock Debian 6.1 kernel under QEMU (scripts/numa-guest/
# record.sh --bench) runs the same load RUNS times each
#   - untraced,
#   - under "schedreplay record --no-probes -b KB" and
#   - under "trace-cmd record -b KB -e sched:<the same 8 events>",
# in rounds whose order rotates (untraced/schedreplay/trace-cmd, then
# schedreplay/trace-cmd/untraced, then trace-cmd/untraced/schedreplay).  No
# kprobes with either recorder: schedreplay's select_rq probes are off and
# trace-cmd records no "schedreplay" events, so both trace the same events.
#
# Per run: the load's own run time (guest /proc/uptime around the load,
# inside the recorder's command; 10 ms steps), the recorder command's wall
# time (start-up and writing the file included), the sched events in the file
# and the lost events (the ring buffer's overrun + commit overrun + dropped
# events that each recorder stores in its file, read with "trace-cmd report
# --stat" on the host).  Then the medians and the two targets: no more lost
# events than trace-cmd, a load no slower than under trace-cmd.
#
# Needs root, qemu-system-x86_64, the harness's Debian packages (make deps)
# and a linux-image-6.1.0-*-amd64 .deb in scripts/numa-guest/cache or an apt
# mirror that has one (downloaded once, ~70 MB); says SKIP with the reason
# elsewhere.  One boot, ~1.5 min on 2 host cores (software emulation).
#
# Under TCG the guest's speed follows the host's load (4 vCPU threads on the
# host's cores, next to whatever else runs there): one run of the load can
# take twice as long as the next, traced or not.  Hence several short rounds,
# medians, and the load time of each traced run against the untraced run of
# its own round.
#
# Environment: BENCH_GUEST_RUNS=5, BENCH_GUEST_BUFFER_KB=1024 (per cpu, both
# recorders; schedreplay's smallest, below the kernel's default of 1408),
# BENCH_GUEST_LOAD=messaging (messaging|mix|forks|pingpong),
# BENCH_GUEST_SCALE=150 (percent of the load's default size),
# BENCH_OUT=bench/out (results in BENCH_OUT/guest), SR=./schedreplay.
set -u

TOP=$(cd "$(dirname "$0")/.." && pwd)
OUT=${BENCH_OUT:-$TOP/bench/out}/guest
SR=${SR:-$TOP/schedreplay}
RUNS=${BENCH_GUEST_RUNS:-5}
BUFKB=${BENCH_GUEST_BUFFER_KB:-1024}
LOAD=${BENCH_GUEST_LOAD:-messaging}
SCALE=${BENCH_GUEST_SCALE:-150}
KERNEL=6.1
GUEST=$TOP/scripts/numa-guest
CACHE=$GUEST/cache

skip() {
	echo "SKIP: guest overhead benchmark: $*"
	exit 0
}
die() {
	echo "guest-overhead: $*" >&2
	exit 1
}

# --- can it run here ----------------------------------------------------------
[ "$(id -u)" = 0 ] || skip "needs root"
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 not installed (make deps)"
qemu-system-x86_64 --version >/dev/null 2>&1 || skip "qemu-system-x86_64 does not run here"
missing=
for p in qemu-system-x86 busybox-static cpio xz-utils zstd trace-cmd; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] || skip "missing Debian packages:$missing (make deps)"
[ -x "$SR" ] || skip "no '$SR' (make)"
CACHED=
if ls "$CACHE"/linux-image-6.1.0-*-amd64_*_amd64.deb >/dev/null 2>&1; then
	CACHED=--cached
elif [ -z "$(apt-cache search --names-only '^linux-image-6\.1\.0-[0-9]+-amd64$' 2>/dev/null)" ]; then
	skip "no linux-image-6.1.0-*-amd64 .deb in $CACHE and none on the apt mirrors"
fi

# --- the guest run --------------------------------------------------------------
mkdir -p "$OUT" || die "cannot create '$OUT'"
B=$OUT/numa-$KERNEL-$LOAD.bench
rm -rf "$B"
echo "guest: Debian $KERNEL kernel, 2 nodes x 2 cpus (QEMU TCG), load '$LOAD' at $SCALE%," \
	"$RUNS runs each, buffer $BUFKB KB per cpu for both recorders"
echo "  schedreplay record --no-probes -b $BUFKB   vs   trace-cmd record -b $BUFKB" \
	"-e sched:{switch,waking,wakeup,wakeup_new,migrate_task,process_fork,process_exit,process_free}"
echo "  (the same 8 sched events, no kprobes with either; trace-cmd's default v7/zstd file)"
# shellcheck disable=SC2086
if ! "$GUEST/record.sh" --kernel $KERNEL --load "$LOAD" --bench "$RUNS" --buffer "$BUFKB" \
	--scale "$SCALE" --schedreplay "$SR" $CACHED --no-install --timeout 240 --retries 2 \
	--out "$OUT" >"$OUT/record.log" 2>&1 || [ ! -f "$B/bench.txt" ]; then
	tail -n 25 "$OUT/record.log" >&2
	die "the guest run failed (log: $OUT/record.log)"
fi
# TCG runs the 4 vCPUs on the host's cores: other work there slows the guest
read -r hostload _ </proc/loadavg
awk -v l="$hostload" -v n="$(nproc)" 'BEGIN { exit !(l + 0 > n / 2) }' &&
	echo "  note: host load average $hostload on $(nproc) cpus before the run: the times are noisy"
echo "  $(sed -n 's/^wall time of the QEMU run: /one boot, QEMU ran /p' "$B/host.txt");" \
	"guest kernel $(cat "$B/uname-r"), top-level trace clock" \
	"$(sed 's/.*\[\(.*\)\].*/\1/' "$B/trace_clock") (trace-cmd), schedreplay's instance: local"

# --- per run --------------------------------------------------------------------
# sched events in a file, as trace-cmd report decodes them (schedreplay's
# metadata print events are not counted)
sched_events() {
	trace-cmd report -i "$1" 2>/dev/null |
		awk '{ for (i = 2; i <= NF; i++) if ($(i - 1) ~ /^[0-9]+\.[0-9]+:$/) {
			if ($i ~ /^sched_[a-z_]+:$/) n++; break } } END { print n + 0 }'
}
# lost events stored in a file: overrun + commit overrun + dropped, all cpus
lost_events() {
	trace-cmd report --stat -i "$1" 2>/dev/null |
		awk '/^(overrun|commit overrun|dropped events):/ { n += $NF; s = 1 }
		     END { print s ? n + 0 : "?" }'
}
sub() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'
}

ROWS=$OUT/rows.txt
: >"$ROWS"
printf '\n  %-12s %4s %8s %9s %9s %6s\n' tool run "load s" "command s" events lost
notes=
while read -r tool run l0 l1 c0 c1 rc _ left; do
	case $tool in '#'* | '') continue ;; esac
	[ "$rc" = 0 ] || notes="$notes
  NOTE: $tool run $run exited with $rc: $(tail -n 2 "$B/$tool-$run.log" | paste -sd' ' -)"
	[ "$left" = 0 ] || notes="$notes
  NOTE: $tool run $run left $left events enabled in the top-level buffer (cleared before the next run)"
	load_s=$(sub "$l0" "$l1")
	cmd_s=$(sub "$c0" "$c1")
	if [ "$tool" = untraced ]; then
		ev=- lost=-
	else
		ev=$(sched_events "$B/$tool-$run.dat")
		lost=$(lost_events "$B/$tool-$run.dat")
	fi
	if [ "$tool" = schedreplay ]; then
		# its own summary must agree with what it stored
		own=$(sed -n 's/.* events, \([0-9]*\) lost$/\1/p' "$B/$tool-$run.log")
		[ "$own" = "$lost" ] || notes="$notes
  NOTE: schedreplay run $run: its summary says ${own:-?} lost, the file $lost"
	fi
	printf '  %-12s %4s %8s %9s %9s %6s\n' "$tool" "$run" "$load_s" "$cmd_s" "$ev" "$lost"
	echo "$tool $run $load_s $cmd_s $ev $lost" >>"$ROWS"
done < <(sort -s -k1,1 -k2,2n "$B/bench.txt" | grep -v '^#')
[ -n "$notes" ] && echo "$notes"

# median TOOL COLUMN (3: load s, 4: command s, 5: events, 6: lost)
median() {
	awk -v t="$1" -v c="$2" '$1 == t && $c != "-" && $c != "?" { print $c }' "$ROWS" | sort -g |
		awk '{ v[NR] = $1 } END { if (!NR) { print "?"; exit }
			m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			print m }'
}
# range TOOL COLUMN: "min-max"
range() {
	awk -v t="$1" -v c="$2" '$1 == t && $c != "-" && $c != "?" { print $c }' "$ROWS" | sort -g |
		awk 'NR == 1 { a = $1 } { b = $1 } END { print NR ? a "-" b : "?" }'
}
pct() {	# pct X BASE: "+12%"
	awk -v x="$1" -v b="$2" 'BEGIN { if (b + 0 > 0) printf "%+.0f%%", (x / b - 1) * 100; else print "?" }'
}
le() {	# le A B: A <= B
	awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "?" && b != "?" && a + 0 <= b + 0) }'
}
verdict() {
	if le "$1" "$2"; then echo met; else echo "NOT met"; fi
}
L_untraced=$(median untraced 3) C_untraced=$(median untraced 4)
L_schedreplay=$(median schedreplay 3) C_schedreplay=$(median schedreplay 4)
E_schedreplay=$(median schedreplay 5) X_schedreplay=$(median schedreplay 6)
L_trace_cmd=$(median trace-cmd 3) C_trace_cmd=$(median trace-cmd 4)
E_trace_cmd=$(median trace-cmd 5) X_trace_cmd=$(median trace-cmd 6)
echo
echo "  medians of $RUNS runs (load s: min-max of the runs):"
printf '  %-12s %4s %8s %9s %9s %6s   load s %s\n' untraced "" "$L_untraced" "$C_untraced" - - \
	"$(range untraced 3)"
printf '  %-12s %4s %8s %9s %9s %6s   load s %s\n' schedreplay "" "$L_schedreplay" \
	"$C_schedreplay" "$E_schedreplay" "$X_schedreplay" "$(range schedreplay 3)"
printf '  %-12s %4s %8s %9s %9s %6s   load s %s\n' trace-cmd "" "$L_trace_cmd" "$C_trace_cmd" \
	"$E_trace_cmd" "$X_trace_cmd" "$(range trace-cmd 3)"
echo "  lost: schedreplay $X_schedreplay vs trace-cmd $X_trace_cmd (target: no more)" \
	"-> $(verdict "$X_schedreplay" "$X_trace_cmd")"
echo "  load time: schedreplay $L_schedreplay s vs trace-cmd $L_trace_cmd s vs untraced" \
	"$L_untraced s (target: no slower than trace-cmd) -> $(verdict "$L_schedreplay" "$L_trace_cmd")"
# per round: a traced run against the untraced run of the same round
ratios() {	# ratios TOOL: median of load(TOOL, round) / load(untraced, round)
	awk -v t="$1" '$1 == "untraced" { u[$2] = $3 } $1 == t { x[$2] = $3 }
		END { for (r in x) if (u[r] + 0 > 0) print x[r] / u[r] }' "$ROWS" | sort -g |
		awk '{ v[NR] = $1 } END { if (!NR) { print "?"; exit }
			m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "x%.2f\n", m }'
}
echo "  per round, load time against that round's untraced run (median):" \
	"schedreplay $(ratios schedreplay), trace-cmd $(ratios trace-cmd)"
echo "  medians over untraced: schedreplay $(pct "$L_schedreplay" "$L_untraced")," \
	"trace-cmd $(pct "$L_trace_cmd" "$L_untraced") load time; whole command" \
	"(start-up and file written): schedreplay $C_schedreplay s, trace-cmd $C_trace_cmd s"
echo "  (events: what each run's load did, mostly its own context switches; they vary from" \
	"run to run. Files and logs: $B)"
