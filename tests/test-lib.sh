# Shared helpers for the shell tests: TAP output, the binaries under test,
# and fixture paths.  Each tNNNN-*.sh sources this, calls the helpers and
# ends with test_done.
set -u

TEST_DIR=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$TEST_DIR/.." && pwd)
FIX="$TEST_DIR/fixtures"
SR=${SR:-$TOP/schedreplay}
SR_SAN=${SR_SAN:-$TOP/build-san/schedreplay}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/schedreplay-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

_n=0
_fail=0

# ok DESCRIPTION COMMAND...: one TAP line for the command's exit status
ok() {
	local desc=$1
	shift
	_n=$((_n + 1))
	if "$@" >"$TMP/out" 2>"$TMP/err"; then
		echo "ok $_n - $desc"
	else
		echo "not ok $_n - $desc"
		_fail=$((_fail + 1))
		sed 's/^/# /' "$TMP/err" | head -n 20
		sed 's/^/# out: /' "$TMP/out" | head -n 20
	fi
}

# pass/fail DESCRIPTION: record a result computed by the caller
pass() {
	_n=$((_n + 1))
	echo "ok $_n - $1"
}
fail() {
	_n=$((_n + 1))
	_fail=$((_fail + 1))
	echo "not ok $_n - $1"
	[ $# -gt 1 ] && printf '%s\n' "$2" | sed 's/^/# /' | head -n 30
	return 0
}

# skip DESCRIPTION REASON
skip() {
	_n=$((_n + 1))
	echo "ok $_n - $1 # SKIP $2"
}

# skip_all REASON: the whole file cannot run here
skip_all() {
	echo "1..0 # SKIP $1"
	exit 0
}

# same DESCRIPTION EXPECTED ACTUAL
same() {
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		fail "$1" "expected: $2
actual:   $3"
	fi
}

test_done() {
	echo "1..$_n"
	[ "$_fail" -eq 0 ]
}

# json_get FILE KEY: a top-level number or string of "schedreplay info --json"
json_get() {
	sed -n "s/^  \"$2\": \"\\{0,1\\}\\([^\",]*\\)\"\\{0,1\\},\\{0,1\\}\$/\\1/p" "$1" | head -n 1
}
# json_count FILE EVENT: a count from the "counts" object
json_count() {
	sed -n "s/^    \"$2\": \\([0-9]*\\),\\{0,1\\}\$/\\1/p" "$1" | head -n 1
}
