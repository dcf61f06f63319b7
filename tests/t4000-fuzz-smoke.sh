#!/bin/bash
# A short libFuzzer run of each reader's fuzz target (ASan + UBSan), from
# seeds made of the committed fixtures and the bad-input corpus (with the
# reproducers of issue 17): any crash or sanitizer report fails.
#
# The run is the same every time: a fixed seed, a fixed number of inputs per
# target and a fresh corpus, so a failure here is a finding that reproduces
# with the same command, never luck (a run bounded by time with a random seed
# tried different inputs on each machine and each run).  "make fuzz" explores
# at random for longer.
. "$(dirname "$0")/test-lib.sh"

command -v clang >/dev/null || skip_all "clang not installed (make deps)"
# the leak suppressions match function names, which need the symbolizer
[ -x "${ASAN_SYMBOLIZER_PATH:-/usr/lib/llvm-14/bin/llvm-symbolizer}" ] ||
	skip_all "llvm-symbolizer not installed (Debian llvm-14; make deps)"
seed=${FUZZ_SMOKE_SEED:-1}
# inputs per target: about 30 s each on a 2-core machine
for tr in tracedat:${FUZZ_SMOKE_RUNS_TRACEDAT:-300} text:${FUZZ_SMOKE_RUNS_TEXT:-12000} \
	  ctf:${FUZZ_SMOKE_RUNS_CTF:-120}; do
	t=${tr%%:*}
	runs=${tr#*:}
	rm -rf "$TMP/corpus"
	if FUZZ_RUNS=$runs FUZZ_SEED=$seed FUZZ_CORPUS="$TMP/corpus" \
		"$TOP/tests/fuzz/run.sh" 600 "$t" >"$TMP/log" 2>&1; then
		pass "fuzz-$t: $runs inputs from seed $seed without a crash ($(sed -n 's/.*number_of_executed_units: *//p' "$TMP/log") run)"
	else
		fail "fuzz-$t: $runs inputs from seed $seed without a crash (again: FUZZ_RUNS=$runs FUZZ_SEED=$seed FUZZ_CORPUS=\$(mktemp -d) tests/fuzz/run.sh 600 $t)" \
			"$(tail -n 30 "$TOP/build-fuzz/fuzz-$t.log" 2>/dev/null; cat "$TMP/log")"
	fi
done
test_done
