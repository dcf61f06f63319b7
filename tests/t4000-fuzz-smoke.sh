#!/bin/bash
# A short libFuzzer run of each reader's fuzz target (ASan + UBSan), from
# seeds made of the committed fixtures and the bad-input corpus (with the
# reproducers of issue 17): any crash or sanitizer report fails.
# "make fuzz" runs the same targets for longer.
. "$(dirname "$0")/test-lib.sh"

command -v clang >/dev/null || skip_all "clang not installed (make deps)"
secs=${FUZZ_SMOKE_SECONDS:-30}
for t in tracedat text ctf; do
	if "$TOP/tests/fuzz/run.sh" "$secs" "$t" >"$TMP/log" 2>&1; then
		pass "fuzz-$t: ${secs}s without a crash ($(sed -n 's/.*number_of_executed_units: *//p' "$TMP/log") runs)"
	else
		fail "fuzz-$t: ${secs}s without a crash" "$(tail -n 30 "$TOP/build-fuzz/fuzz-$t.log" 2>/dev/null; cat "$TMP/log")"
	fi
done
test_done
