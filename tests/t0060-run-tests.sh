#!/bin/bash
# tests/run-tests.sh with arguments runs only the tests it names, and a name
# that matches no test is an error (exit 2), never an empty run that passes.
. "$(dirname "$0")/test-lib.sh"

RT=$TOP/tests/run-tests.sh

"$RT" tests/t0200-completion.sh >"$TMP/one" 2>&1
rc=$?
ok "a named shell test runs and passes (exit $rc)" test "$rc" -eq 0
ok "only that test ran" sh -c "grep -c ' ok (' '$TMP/one' | grep -qx 1 &&
	grep -q '^t0200-completion.sh  *ok (' '$TMP/one'"
ok "the closing line counts it alone" sh -c \
	"tail -n 1 '$TMP/one' | grep -Eq '^[1-9][0-9]* passed, 0 failed, 0 skipped$'"

"$RT" t0200-completion.sh >"$TMP/base" 2>&1
ok "a file name without tests/ runs the same test" grep -q '^t0200-completion.sh  *ok (' "$TMP/base"

"$RT" tests/t9999-no-such-test.sh >"$TMP/none" 2>&1
rc=$?
ok "an unknown name exits 2 (got $rc)" test "$rc" -eq 2
ok "and says which name" grep -q "no test named 'tests/t9999-no-such-test.sh'" "$TMP/none"
ok "and runs nothing" sh -c "! grep -q 'passed,' '$TMP/none'"

test_done
