#!/bin/bash
# Build the libFuzzer targets (clang, ASan + UBSan) and run each reader's
# target for SECONDS (default 600) from seeds made of the committed
# fixtures.  "make fuzz" runs this; tests/t4000-fuzz-smoke.sh runs it short.
#   tests/fuzz/run.sh [SECONDS] [TARGET...]      TARGET: tracedat text ctf
# Environment: FUZZ_RUNS=N stops each target after N inputs instead (SECONDS
# is then only a bound), FUZZ_SEED=N fixes libFuzzer's random seed, and
# FUZZ_CORPUS=DIR keeps the grown corpus there instead of build-fuzz/: with
# all three and an empty DIR a run is the same every time (the smoke test).
set -e
cd "$(dirname "$0")/../.."
secs=${1:-600}
shift || true
targets=${*:-tracedat text ctf}
out=build-fuzz

make --no-print-directory SANITIZE=fuzz fuzz-targets >/dev/null

corpus=${FUZZ_CORPUS:-$out}

seed() {
	local t=$1 dir=$corpus/corpus-$t
	mkdir -p "$dir" "$dir.seed"
	case $t in
	tracedat)
		# the smaller committed files; whole files are large, so also
		# their first 64 KiB (headers and event formats)
		for f in tests/fixtures/tracedat/succeed/*.dat; do
			head -c 65536 "$f" >"$dir.seed/head-$(basename "$f")"
		done
		cp tests/fixtures/tracedat/succeed/live-6.18-overrun-v7.dat \
			tests/fixtures/tracedat/succeed/live-6.18-record-v6.dat "$dir.seed/"
		# the bad-input corpus: among them the reproducers found by
		# fuzzing (issue 17), byte edits of record-v6 and of a NUMA v7
		# trace whose neighbours are worth mutating
		for f in tests/fixtures/tracedat/fail/*.dat; do
			[ "$(stat -c %s "$f")" -le 1048576 ] && cp "$f" "$dir.seed/fail-$(basename "$f")"
		done
		;;
	text)
		for f in tests/fixtures/text/succeed/*.txt tests/fixtures/scenario/*.txt; do
			head -c 16384 "$f" >"$dir.seed/$(basename "$f")"
		done
		for f in tests/fixtures/text/fail/*.txt; do
			cp "$f" "$dir.seed/fail-$(basename "$f")"
		done
		;;
	ctf)
		for d in perf-taskset2 flipping-endianness lttng-tracefile-rotation/kernel; do
			local m=tests/fixtures/ctf/succeed/$d/metadata
			local s
			s=$(find "tests/fixtures/ctf/succeed/$d" -maxdepth 1 -type f ! -name metadata | sort | head -n 1)
			local len
			len=$(stat -c %s "$m")
			[ "$len" -lt 65536 ] || continue
			{ printf "\\x$(printf %02x $((len >> 8)))\\x$(printf %02x $((len & 255)))"
			  cat "$m"; head -c 8192 "$s"; } >"$dir.seed/$(echo "$d" | tr / -)"
		done
		;;
	esac
}

limits="-max_total_time=$secs"
[ -n "${FUZZ_RUNS:-}" ] && limits="$limits -runs=$FUZZ_RUNS"
[ -n "${FUZZ_SEED:-}" ] && limits="$limits -seed=$FUZZ_SEED"

# the leak suppressions name functions: the sanitizers need the symbolizer
# (Debian's llvm-14, which make deps installs) to see them
sym=${ASAN_SYMBOLIZER_PATH:-/usr/lib/llvm-14/bin/llvm-symbolizer}
if [ ! -x "$sym" ]; then
	echo "fuzz: no llvm-symbolizer at $sym (Debian package llvm-14): the leak" \
		"suppressions in tests/fuzz/lsan.supp could not match" >&2
	exit 2
fi
export ASAN_SYMBOLIZER_PATH=$sym

status=0
for t in $targets; do
	seed "$t"
	echo "fuzzing $t: $limits"
	# -close_fd_mask=3: the readers' own diagnostics are not the point here
	if ! ASAN_OPTIONS=fast_unwind_on_malloc=0 LSAN_OPTIONS="suppressions=$PWD/tests/fuzz/lsan.supp:print_suppressions=0" \
		"$out/fuzz/fuzz-$t" $limits -timeout=20 -rss_limit_mb=4096 \
		-artifact_prefix="$out/" -close_fd_mask=3 -print_final_stats=1 "$corpus/corpus-$t" \
		"$corpus/corpus-$t.seed" \
		>"$out/fuzz-$t.log" 2>&1; then
		echo "fuzz-$t: CRASH, see $out/fuzz-$t.log and $out/crash-*" >&2
		status=1
	fi
	grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb' "$out/fuzz-$t.log" |
		sed "s/^/  $t /"
done
exit $status
