#!/bin/bash
# "make bench": how fast and how lean "schedreplay info" reads a big trace.dat
# (and "schedreplay replay" runs the whole line on it),
# against trace-cmd report and against a bare libtracecmd iteration that only
# counts records (the floor for any reader built on libtracecmd).
#
# The trace (>= 2 M sched events) is recorded live in a tracing instance of
# our own while bench/pingpong.c makes context switches, then saved with
# trace-cmd extract (v7, zstd) and converted to v6 uncompressed; both files
# are measured.  A second trace of ~1/4 the events shows whether peak memory
# grows with trace length (the first half of the events).  Everything
# generated goes to bench/out/ and is
# reused by the next run.  Needs root and tracefs to record; says SKIP
# otherwise, unless BENCH_TRACE=FILE names a trace to use.
#
# bench/report.sh times "schedreplay report" on a database of >= 1 M decisions
# made from the same trace, against the sqlite3 CLI running its queries.
#
# The last section (bench/guest-overhead.sh) compares the recorders' overhead
# in the 2-node NUMA guest: one QEMU boot of a Debian 6.1 kernel, the same
# load untraced, under "schedreplay record" and under "trace-cmd record" with
# the same buffer size (~1.5 min; needs root, qemu-system-x86_64 and a cached
# or downloadable kernel, says SKIP otherwise; BENCH_GUEST=0 skips it).
#
# Environment: BENCH_TRACE=FILE (and BENCH_TRACE_SMALL=FILE), BENCH_RUNS=3,
# BENCH_GOALS_ONLY=1 (stop after the goals of issue 13),
# BENCH_BUFFER_MB=200 (per cpu), BENCH_OUT=bench/out, SR=./schedreplay, CC=cc,
# BENCH_GUEST=1 and the BENCH_GUEST_* settings of bench/guest-overhead.sh.
set -u

TOP=$(cd "$(dirname "$0")/.." && pwd)
B=$TOP/bench
OUT=${BENCH_OUT:-$B/out}
SR=${SR:-$TOP/schedreplay}
CC=${CC:-cc}
RUNS=${BENCH_RUNS:-3}
T=/sys/kernel/tracing
INST=schedreplay-bench
I=$T/instances/$INST
EVENTS="sched_switch sched_waking sched_wakeup sched_wakeup_new sched_migrate_task \
sched_process_fork sched_process_exit sched_process_free"
FULL_MIN=2000000	# events the full trace must hold
FULL_WANT=2200000	# recording stops here
# half the full trace: the memory goal is stated for a trace that doubles
SMALL_WANT=$((FULL_WANT / 2))
SMALL_MIN=$((SMALL_WANT * 9 / 10))
SMALL_MAX=$((FULL_MIN * 6 / 10))

die() {
	echo "bench: $*" >&2
	exit 1
}
note() {
	echo "bench: $*" >&2
}

# --- the instance and the workload are undone on every exit path ----------

WORKLOAD=""
undo_instance() {
	if [ -n "$WORKLOAD" ]; then
		kill -TERM "$WORKLOAD" 2>/dev/null
		wait "$WORKLOAD" 2>/dev/null
		WORKLOAD=""
	fi
	if [ -d "$I" ]; then
		echo 0 >"$I/tracing_on" 2>/dev/null
		for e in $EVENTS; do
			echo 0 >"$I/events/sched/$e/enable" 2>/dev/null
		done
		rmdir "$I" 2>/dev/null || note "cannot remove the tracing instance '$I'"
	fi
}
cleanup() {
	undo_instance
	# a tracefs the bench mounted is unmounted at the end: the machine as it was
	if [ "${MOUNTED:-0}" = 1 ]; then
		umount $T 2>/dev/null || note "cannot unmount the tracefs mounted at $T"
		MOUNTED=0
	fi
}
trap cleanup EXIT
trap 'cleanup; trap - INT; kill -INT $$' INT
trap 'cleanup; exit 143' TERM

# --- helpers, built here so that "make bench" needs nothing else ------------

mkdir -p "$OUT" || die "cannot create '$OUT'"
[ -x "$SR" ] || die "no '$SR': run make first"
WARN="-std=gnu11 -O2 -g -Wall -Wextra -Wshadow -Wformat=2 -Wstrict-prototypes \
-Wmissing-prototypes -Wvla"
build() {
	local bin=$OUT/$1 src=$B/$1.c
	shift
	if [ ! -x "$bin" ] || [ "$src" -nt "$bin" ]; then
		# shellcheck disable=SC2086
		$CC $WARN -o "$bin" "$src" "$@" || die "cannot build '$bin'"
	fi
}
if ! TC_CFLAGS=$(pkg-config --cflags libtracecmd) || ! TC_LIBS=$(pkg-config --libs libtracecmd)
then
	die "pkg-config does not know libtracecmd (make deps)"
fi
build rusage
build pingpong
# shellcheck disable=SC2086
build iterate $TC_CFLAGS $TC_LIBS

# records FILE: the records in the file, as the bare iteration counts them
records() {
	local n
	n=$("$OUT/iterate" "$1" 2>/dev/null) || { echo 0; return; }
	echo "${n%% *}"
}

# --- recording ---------------------------------------------------------------

can_record() {
	[ "$(id -u)" = 0 ] || return 1
	command -v trace-cmd >/dev/null || return 1
	[ -d $T/instances ] || { mount -t tracefs nodev $T 2>/dev/null && MOUNTED=1; }
	[ -d $T/instances ]
}

# cpu_stat NAME: the sum of one counter over the instance's per-cpu stats
cpu_stat() {
	cat "$I"/per_cpu/cpu*/stats 2>/dev/null |
		awk -v k="$1:" '$1 == k || ($1 " " $2) == k { s += $NF } END { print s + 0 }'
}

# fullest_cpu: the most bytes any one cpu buffer holds
fullest_cpu() {
	cat "$I"/per_cpu/cpu*/stats 2>/dev/null |
		awk '$1 == "bytes:" && $2 > m { m = $2 } END { print m + 0 }'
}

# record FILE WANT: record about WANT sched events into FILE (v7, zstd)
record() {
	local file=$1 want=$2 ncpu avail_kb buf_kb got_kb limit n t0 overrun
	ncpu=$(nproc)
	avail_kb=$(awk '$1 == "MemAvailable:" { print $2 }' /proc/meminfo)
	buf_kb=$((${BENCH_BUFFER_MB:-200} * 1024))
	# the ring buffers take at most half of the free memory
	if [ $((buf_kb * ncpu)) -gt $((avail_kb / 2)) ]; then
		buf_kb=$((avail_kb / 2 / ncpu))
		note "only $((avail_kb / 1024)) MiB free: $((buf_kb / 1024)) MiB per cpu buffer"
	fi
	undo_instance
	mkdir "$I" || die "cannot create the tracing instance '$I'"
	echo "$buf_kb" >"$I/buffer_size_kb" 2>/dev/null
	got_kb=$(cat "$I/buffer_size_kb")
	[ "${got_kb%% *}" -ge 1024 ] 2>/dev/null ||
		die "cannot size the ring buffer of '$I' ($buf_kb KiB per cpu asked, $got_kb set)"
	buf_kb=${got_kb%% *}
	for e in $EVENTS; do
		echo 1 >"$I/events/sched/$e/enable" 2>/dev/null || note "no event '$e' on this kernel"
	done
	# stop well before any cpu buffer is full: an overrun would lose events
	limit=$((buf_kb * 1024 * 85 / 100))
	echo 1 >"$I/tracing_on"
	"$OUT/pingpong" -p 2 -f 200 -t 120 &
	WORKLOAD=$!
	t0=$EPOCHREALTIME
	while :; do
		sleep 0.05
		n=$(cpu_stat entries)
		[ "$n" -ge "$want" ] && break
		if [ "$(fullest_cpu)" -ge "$limit" ]; then
			note "a cpu buffer is 85% full after $n events: stopping early"
			break
		fi
		if ! kill -0 "$WORKLOAD" 2>/dev/null; then
			note "the workload stopped after $n events"
			break
		fi
	done
	echo 0 >"$I/tracing_on"
	kill -TERM "$WORKLOAD" 2>/dev/null
	wait "$WORKLOAD" 2>/dev/null
	WORKLOAD=""
	overrun=$(($(cpu_stat overrun) + $(cpu_stat "dropped events")))
	if [ "$overrun" -ne 0 ]; then
		die "the ring buffer lost $overrun events: raise BENCH_BUFFER_MB"
	fi
	echo "recorded $(cpu_stat entries) events in" \
		"$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s" \
		"($((buf_kb / 1024)) MiB per cpu buffer, no overrun); extracting $(basename "$file")"
	trace-cmd extract -B "$INST" -o "$file.tmp" >"$OUT/extract.log" 2>&1 ||
		die "trace-cmd extract failed: $(tail -n 3 "$OUT/extract.log")"
	mv "$file.tmp" "$file"
	undo_instance
}

# --- the traces --------------------------------------------------------------

FULL=$OUT/bench.dat
SMALL=$OUT/bench-small.dat
if [ -n "${BENCH_TRACE:-}" ]; then
	FULL=$BENCH_TRACE
	[ -r "$FULL" ] || die "cannot read BENCH_TRACE '$FULL'"
	n=$(records "$FULL")
	[ "$n" -ge "$FULL_MIN" ] ||
		note "'$FULL' holds $n records, fewer than the $FULL_MIN the benchmark wants"
	SMALL=${BENCH_TRACE_SMALL:-}
	if [ -z "$SMALL" ]; then
		# a prefix of the same trace: trace-cmd split keeps only the top
		# buffer, so this works for traces that have their events there
		SMALL=$OUT/$(basename "$FULL" .dat)-half.dat
		trace-cmd split -i "$FULL" -o "$SMALL" -e $((n / 2)) >/dev/null 2>&1 &&
			mv "$SMALL.1" "$SMALL" 2>/dev/null
		if [ "$(records "$SMALL")" -eq 0 ]; then
			note "trace-cmd split cannot cut '$FULL' (events in a buffer instance):" \
				"give BENCH_TRACE_SMALL for the memory check"
			rm -f "$SMALL"
			SMALL=""
		fi
	fi
else
	n=$(records "$FULL")
	if [ "$n" -lt "$FULL_MIN" ]; then
		if ! can_record; then
			echo "SKIP: needs root and tracefs to record the benchmark trace"
			exit 0
		fi
		record "$FULL" "$FULL_WANT"
		n=$(records "$FULL")
		[ "$n" -ge "$FULL_MIN" ] ||
			die "the recorded trace holds $n records, fewer than $FULL_MIN"
	fi
	m=$(records "$SMALL")
	if [ "$m" -lt "$SMALL_MIN" ] || [ "$m" -gt "$SMALL_MAX" ]; then
		if can_record; then
			record "$SMALL" "$SMALL_WANT"
		else
			note "cannot record the small trace (needs root and tracefs): no memory check"
			SMALL=""
		fi
	fi
fi

# v6, uncompressed: the same events, read through mmap instead of zstd
v6_of() {
	local in=$1 out need_kb avail_kb
	out=$OUT/$(basename "$in" .dat)-v6.dat
	# the header: 3 magic bytes, "tracing", then the version as a string
	if [ "$(head -c 11 "$in" | tail -c 1)" = 6 ]; then
		echo "$in"
		return
	fi
	if [ ! -s "$out" ] || [ "$in" -nt "$out" ]; then
		# about 64 bytes a record uncompressed; keep twice that free
		need_kb=$(($(records "$in") * 64 * 2 / 1024))
		avail_kb=$(df -Pk "$OUT" | awk 'NR == 2 { print $4 }')
		if [ "$avail_kb" -lt "$need_kb" ]; then
			note "not enough disk for a v6 copy of '$in' ($((need_kb / 1024)) MiB needed)"
			return
		fi
		if ! trace-cmd convert --file-version 6 --compression none -i "$in" -o "$out.tmp" \
			>"$OUT/convert.log" 2>&1; then
			note "trace-cmd convert failed: $(tail -n 2 "$OUT/convert.log")"
			rm -f "$out.tmp"
			return
		fi
		mv "$out.tmp" "$out"
	fi
	echo "$out"
}
FULL6=$(v6_of "$FULL")
[ "$FULL6" = "$FULL" ] && FULL6=""
SMALL6=""
[ -n "$SMALL" ] && [ -n "$FULL6" ] && SMALL6=$(v6_of "$SMALL")
[ "$SMALL6" = "$SMALL" ] && SMALL6=""

# --- measuring ---------------------------------------------------------------

# measure CMD...: run RUNS times with stdout to /dev/null; sets WALL (best)
# and RSS_KB (the largest peak of all runs)
measure() {
	local run wall rss status
	WALL=""
	RSS_KB=0
	for ((run = 0; run < RUNS; run++)); do
		"$OUT/rusage" -o "$OUT/rusage.txt" "$@" >/dev/null 2>"$OUT/stderr.txt"
		# wall user sys maxrss status
		read -r wall _ _ rss status <"$OUT/rusage.txt"
		if [ "$status" != 0 ]; then
			note "'$*' failed (exit $status): $(tail -n 3 "$OUT/stderr.txt")"
			WALL=""
			return 1
		fi
		if [ -z "$WALL" ] || awk -v a="$wall" -v b="$WALL" 'BEGIN { exit !(a + 0 < b + 0) }'; then
			WALL=$wall
		fi
		[ "$rss" -gt "$RSS_KB" ] && RSS_KB=$rss
	done
	return 0
}

fmt_mib() {
	awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'
}
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 > 0) printf "%.2f", a / b; else print "-" }'
}

# row TOOL EVENTS SECONDS RSS_KB BARE_SECONDS: one line of a table
row() {
	printf '  %-34s %10s %8.3f %12.0f %13s %8s\n' "$1" "$2" "$3" \
		"$(awk -v n="$2" -v s="$3" 'BEGIN { print n / s }')" "$(fmt_mib "$4")" \
		"$(ratio "$3" "$5")"
}

# bench_file LABEL FILE: the three readers on one file, a table and the
# headline; sets BARE_S/BARE_KB/INFO_S/INFO_KB for the memory section
bench_file() {
	local label=$1 file=$2 n_bare n_info w_rep r_rep
	cat "$file" >/dev/null	# the first run must not pay for the disk
	"$SR" info "$file" >"$OUT/info-$label.txt" 2>&1 ||
		{ note "info failed on '$file': $(tail -n 2 "$OUT/info-$label.txt")"; return 1; }
	n_info=$(awk '$1 == "events:" { print $2 }' "$OUT/info-$label.txt")
	n_bare=$(records "$file")
	echo
	echo "== $label: $file"
	echo "   $(sed -n 's/^format: *//p' "$OUT/info-$label.txt"), $(du -m "$file" | cut -f1) MB," \
		"$n_bare records"

	measure "$OUT/iterate" "$file" || return 1
	BARE_S=$WALL BARE_KB=$RSS_KB
	measure "$SR" info "$file" || return 1
	INFO_S=$WALL INFO_KB=$RSS_KB
	measure trace-cmd report "$file" || return 1
	w_rep=$WALL r_rep=$RSS_KB
	# the whole line: replay with two models and the database
	rm -f "$OUT/bench.db"
	measure "$SR" replay -q -f -o "$OUT/bench.db" -m mainline -m v4.15 "$file" || return 1
	REPLAY_S=$WALL REPLAY_KB=$RSS_KB
	REPLAY_DEC=$(sqlite3 "$OUT/bench.db" 'SELECT count(*) FROM decision' 2>/dev/null || echo '?')

	printf '  %-34s %10s %8s %12s %13s %8s\n' tool events seconds events/s "peak RSS MiB" \
		"vs bare"
	row "bare libtracecmd iteration" "$n_bare" "$BARE_S" "$BARE_KB" "$BARE_S"
	row "schedreplay info" "$n_info" "$INFO_S" "$INFO_KB" "$BARE_S"
	row "trace-cmd report" "$n_bare" "$w_rep" "$r_rep" "$BARE_S"
	row "schedreplay replay (2 models, db)" "$n_info" "$REPLAY_S" "$REPLAY_KB" "$BARE_S"
	[ "$n_info" = "$n_bare" ] ||
		echo "  WARNING: info counted $n_info events, the bare iteration $n_bare records"
	echo "  info / bare libtracecmd iteration = $(ratio "$INFO_S" "$BARE_S") (target <= 1.20)"
	echo "  info / trace-cmd report = $(ratio "$INFO_S" "$w_rep")"
	echo "  replay ($REPLAY_DEC decisions in the database) / bare libtracecmd iteration =" \
		"$(ratio "$REPLAY_S" "$BARE_S") (target <= 1.30)"
	echo "  trace-cmd report / replay = $(ratio "$w_rep" "$REPLAY_S") (target >= 5)"
}

# streaming LABEL SMALL FULL: info and the bare iteration on a trace of ~1/4
# the events, after bench_file ran on FULL; a reader that keeps events would
# need about 4x the memory for 4x the events
streaming() {
	local label=$1 small=$2 full=$3 s_info_kb s_info_s s_bare_kb s_bare_s n_s n_f verdict own_s own_f
	measure "$SR" info "$small" || return 1
	s_info_kb=$RSS_KB s_info_s=$WALL
	measure "$OUT/iterate" "$small" || return 1
	s_bare_kb=$RSS_KB s_bare_s=$WALL
	n_s=$(records "$small")
	n_f=$(records "$full")
	verdict=$(awk -v s="$s_info_kb" -v f="$INFO_KB" \
		'BEGIN { print (f - s <= 2048 || f <= s * 1.1) ? "yes" : "no" }')
	echo "  $label ($n_s and $n_f events):"
	echo "    peak RSS: small trace $(fmt_mib "$s_info_kb") MiB, full trace $(fmt_mib "$INFO_KB")" \
		"MiB (streaming: $verdict)"
	own_s=$((s_info_kb - s_bare_kb))
	own_f=$((INFO_KB - BARE_KB))
	echo "    of which the bare libtracecmd iteration: $(fmt_mib "$s_bare_kb") and" \
		"$(fmt_mib "$BARE_KB") MiB; schedreplay's own part: $(fmt_mib "$own_s") and" \
		"$(fmt_mib "$own_f") MiB (grows: $([ $((own_f - own_s)) -gt 2048 ] && echo yes || echo no))"
	[ "$verdict" = no ] && [ $((own_f - own_s)) -le 2048 ] &&
		echo "    -> the growth is libtracecmd's own, the bare iteration grows as much"
	# the cost of one more event, without the fixed cost of opening the file
	awk -v is="$s_info_s" -v if_="$INFO_S" -v bs="$s_bare_s" -v bf="$BARE_S" \
		-v ns="$n_s" -v nf="$n_f" 'BEGIN {
		if (nf + 0 <= ns + 0) exit
		i = (if_ - is) / (nf - ns) * 1e9; b = (bf - bs) / (nf - ns) * 1e9
		printf "    per event, open cost aside: info %.0f ns, bare iteration %.0f ns" \
			" (ratio %.2f)\n", i, b, (b > 0 ? i / b : 0) }'
}


# --- the goals of issue 13, in one run ------------------------------------------
#
# Each comparison runs its two commands in turn, A B A B ..., RUNS pairs (at
# least 3), so that a machine whose speed drifts (other work on it) slows
# both alike; the figure is the median of the pairs' ratios, with the
# smallest and largest ratio beside it.

PAIRS=$((RUNS < 3 ? 3 : RUNS))
SEED_PAIRS="-p exit-sync-mel -p exit-sync-peterz -p wake-affine-equal -p kthread-per-cpu \
-p nohz-first -p newidle-bail"

# one_run OUTFILE CMD...: run once with stdout to OUTFILE; sets W (wall s),
# C (CPU s, user + system) and K (peak KiB)
one_run() {
	local out=$1 status u s
	shift
	"$OUT/rusage" -o "$OUT/rusage.txt" "$@" >"$out" 2>"$OUT/stderr.txt"
	read -r W u s K status <"$OUT/rusage.txt"
	C=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.3f", u + s }')
	if [ "$status" != 0 ]; then
		note "'$*' failed (exit $status): $(tail -n 3 "$OUT/stderr.txt")"
		return 1
	fi
}

# median of the numbers on stdin, "min..max" after it
stats() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (!NR) { print "- (-..-)"; exit }
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.2f (%.2f..%.2f)", m, v[1], v[NR] }'
}

# paired NAME A B: alternating runs of the commands in the arrays named A
# and B; sets RATIO (median of the pairs' B/A walls), SPREAD, A_S, B_S
# (median walls), A_KB, B_KB (largest peaks)
paired() {
	local name=$1 i ra="" rb="" rr="" rc="" aw bw ac bc
	local -n ca=$2 cb=$3
	A_KB=0 B_KB=0
	for ((i = 0; i < PAIRS; i++)); do
		one_run /dev/null "${ca[@]}" || return 1
		aw=$W ac=$C
		[ "$K" -gt "$A_KB" ] && A_KB=$K
		one_run /dev/null "${cb[@]}" || return 1
		bw=$W bc=$C
		[ "$K" -gt "$B_KB" ] && B_KB=$K
		ra="$ra $aw" rb="$rb $bw"
		rr="$rr $(awk -v a="$aw" -v b="$bw" 'BEGIN { printf "%.4f", b / a }')"
		rc="$rc $(awk -v a="$ac" -v b="$bc" 'BEGIN { printf "%.4f", (a > 0 ? b / a : 0) }')"
	done
	# shellcheck disable=SC2086
	A_S=$(printf '%s\n' $ra | stats | cut -d' ' -f1)
	# shellcheck disable=SC2086
	B_S=$(printf '%s\n' $rb | stats | cut -d' ' -f1)
	# shellcheck disable=SC2086
	set -- $(printf '%s\n' $rr | stats) $(printf '%s\n' $rc | stats)
	RATIO=$1 SPREAD=$2 CPU_RATIO=$3
	printf '  %-56s %6s s vs %6s s: %5s %s (CPU time: %s %s)\n' "$name" "$A_S" "$B_S" \
		"$RATIO" "$SPREAD" "$CPU_RATIO" "$4"
}

verdict() {	# verdict VALUE OP GOAL
	awk -v v="$1" -v g="$3" -v op="$2" 'BEGIN {
		ok = op == ">=" ? v + 0 >= g + 0 : v + 0 <= g + 0
		printf "%s", ok ? "met" : "MISSED" }'
}

goals() {
	local file=$1 db=$OUT/goal.db db1=$OUT/goal1.db r6 r1 b6 b1 k_small k_full
	local -a rep6 rep1 tcr bare csv_sr csv_sq
	# shellcheck disable=SC2206
	rep6=("$SR" replay -q -f -o "$db" -m mainline $SEED_PAIRS "$file")
	rep1=("$SR" replay -q -f -o "$db1" -m mainline "$file")
	tcr=(trace-cmd report "$file")
	bare=("$OUT/iterate" "$file")
	echo
	echo "== the goals of issue 13 on $(basename "$file") ($(records "$file") events; median of" \
		"$PAIRS alternating pairs, ratio (min..max))"
	paired "trace-cmd report / replay -o DB, mainline + 6 seed pairs" rep6 tcr || return 1
	r6=$RATIO
	paired "trace-cmd report / replay -o DB, mainline alone" rep1 tcr || return 1
	r1=$RATIO
	paired "replay -o DB (6 pairs) / bare libtracecmd iteration" bare rep6 || return 1
	b6=$RATIO
	paired "replay -o DB (mainline) / bare libtracecmd iteration" bare rep1 || return 1
	b1=$RATIO
	echo "  replay, 6 pairs:  trace-cmd report takes $r6 x as long (goal >= 5: $(verdict "$r6" ">=" 5))"
	echo "  replay, mainline: trace-cmd report takes $r1 x as long (goal >= 8: $(verdict "$r1" ">=" 8))"
	echo "  against the bare libtracecmd iteration: $b6 x (6 pairs), $b1 x (mainline)"

	if [ -n "$SMALL" ]; then
		# shellcheck disable=SC2086
		one_run /dev/null "$SR" replay -q -f -o "$db" -m mainline $SEED_PAIRS "$SMALL" ||
			return 1
		k_small=$K
		one_run /dev/null "${rep6[@]}" || return 1
		k_full=$K
		local g
		g=$(awk -v a="$k_small" -v b="$k_full" 'BEGIN { printf "%.2f", b / a }')
		echo "  peak RSS of replay -o DB (6 pairs): $(fmt_mib "$k_small") MiB on" \
			"$(records "$SMALL") events, $(fmt_mib "$k_full") MiB on $(records "$file"):" \
			"x$g (goal <= 1.25: $(verdict "$g" "<=" 1.25))"
	else
		echo "  no half-length trace: the memory goal is not measured"
	fi

	if command -v sqlite3 >/dev/null; then
		local q="SELECT * FROM decision" rows first
		rows=$(sqlite3 "$db" "SELECT count(*) FROM decision")
		csv_sq=(sqlite3 -csv -header "$db" "$q")
		csv_sr=("$SR" sql -F csv "$db" "$q")
		paired "sql -F csv / sqlite3 -csv, the decision table ($rows rows)" csv_sq csv_sr ||
			return 1
		echo "  sql -F csv takes $RATIO x the time of sqlite3 -csv (goal <= 1.5:" \
			"$(verdict "$RATIO" "<=" 1.5))"
		first=$( { t0=$EPOCHREALTIME
			"$SR" sql -F table "$db" "$q" | head -n 1 >/dev/null
			echo "$t0 $EPOCHREALTIME"; } | awk '{ printf "%.0f", ($2 - $1) * 1000 }')
		one_run /dev/null "$SR" sql -F table "$db" "$q" || return 1
		W=$(printf "%.2f" "$W")
		echo "  sql -F table of the decision table: the first line after $first ms (and the" \
			"pipe closed), the whole table in $W s, peak RSS $(fmt_mib "$K") MiB"
	else
		echo "  no sqlite3 CLI: the export goals are not measured"
	fi
}

echo "schedreplay bench: $(nproc) cpus, kernel $(uname -r), $("$SR" --version 2>/dev/null |
	head -n 1), trace-cmd $(trace-cmd --version 2>/dev/null | awk 'NF { print $3; exit }')," \
	"best wall time of $RUNS runs"
# other work on the machine makes every number worse, and not by the same factor
read -r load _ </proc/loadavg
awk -v l="$load" -v n="$(nproc)" 'BEGIN { exit !(l + 0 > n / 2) }' &&
	echo "note: load average $load on $(nproc) cpus: the timings below are noisy"
goals "$FULL" || die "benchmark failed"
[ "${BENCH_GOALS_ONLY:-0}" = 1 ] && exit 0
bench_file v7 "$FULL" || die "benchmark failed"
INFO7_S=$INFO_S INFO7_KB=$INFO_KB BARE7_S=$BARE_S BARE7_KB=$BARE_KB
if [ -n "$FULL6" ]; then
	bench_file v6 "$FULL6" || die "benchmark failed"
	INFO6_S=$INFO_S INFO6_KB=$INFO_KB BARE6_S=$BARE_S BARE6_KB=$BARE_KB
fi

echo
echo "== memory against trace length (schedreplay info)"
if [ -n "$SMALL" ]; then
	INFO_S=$INFO7_S INFO_KB=$INFO7_KB BARE_S=$BARE7_S BARE_KB=$BARE7_KB
	streaming "$(basename "$FULL")" "$SMALL" "$FULL"
	if [ -n "$SMALL6" ]; then
		INFO_S=$INFO6_S INFO_KB=$INFO6_KB BARE_S=$BARE6_S BARE_KB=$BARE6_KB
		streaming "$(basename "$FULL6")" "$SMALL6" "$FULL6"
	fi
else
	echo "  no small trace: skipped"
fi

# instructions are steadier than seconds, where the machine has the counter
echo
echo "== instructions (perf stat)"
if ! command -v perf >/dev/null; then
	echo "  perf not installed: skipped"
elif perf stat -x, -e instructions -- true 2>&1 | grep -q '<not supported>\|<not counted>'; then
	echo "  no 'instructions' hardware counter on this machine (a VM without PMU?): skipped"
else
	for tool in bare info; do
		if [ $tool = bare ]; then set -- "$OUT/iterate" "$FULL"; else set -- "$SR" info "$FULL"; fi
		ins=$(perf stat -x, -e instructions -- "$@" 2>&1 >/dev/null |
			awk -F, '$3 ~ /^instructions/ { print $1 }')
		printf '  %-32s %16s instructions, %6s per event\n' "$tool" "$ins" \
			"$(awk -v i="$ins" -v n="$n" 'BEGIN { if (n + 0 > 0) printf "%.0f", i / n }')"
	done
fi

# the report on a database of >= 1 M decisions (the trace replayed twice into
# one file) against the sqlite3 CLI running the same queries; runs alone as
# bench/report.sh [TRACE]
SR=$SR BENCH_OUT=$OUT BENCH_RUNS=$RUNS "$B/report.sh" "$FULL" ||
	note "the report benchmark failed (exit $?)"

# the recorders' overhead in the NUMA guest, where trace-cmd record runs too
# (issue 3); guest-overhead.sh says SKIP with the reason where it cannot run
echo
echo "== recorder overhead in the 2-node NUMA guest (schedreplay record vs trace-cmd record)"
if [ "${BENCH_GUEST:-1}" = 0 ]; then
	echo "SKIP: guest overhead benchmark: BENCH_GUEST=0"
else
	# a guest that hangs is killed and booted again by record.sh; this
	# bounds the whole section
	SR=$SR BENCH_OUT=$OUT timeout 600 "$B/guest-overhead.sh" ||
		note "the guest overhead benchmark failed (exit $?)"
fi

# the TUI on a database of >= 1 M decisions replayed from the bench trace
echo
SR=$SR BENCH_OUT=$OUT BENCH_TRACE=$FULL BENCH_RUNS=$RUNS "$B/tui.sh" ||
	note "the TUI benchmark failed (exit $?)"
