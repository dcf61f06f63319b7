#!/bin/bash
# Run every test: C unit tests (build/tests/*) and shell tests
# (tests/t*.sh), all printing TAP.  Prints each file's result, the failing
# lines, and one closing line "N passed, N failed, N skipped"; exits
# non-zero when anything failed.
#
#   tests/run-tests.sh [TEST...]
#
# With arguments only the named tests run: a shell test by its path or file
# name (tests/t5140-task-groups.sh, t5140-task-groups.sh), a unit test by its
# binary (build/tests/test-sim) or as unit/NAME; a name that matches no test
# is an error, so a typo never passes as an empty run.
cd "$(dirname "$0")/.." || exit 1

passed=0
failed=0
skipped=0
bad_files=""
mkdir -p tests/out

run_one() {
	local name=$1
	shift
	local log="tests/out/$(basename "$name").tap"
	"$@" >"$log" 2>&1
	local rc=$?
	local p f s
	p=$(grep -c '^ok ' "$log")
	s=$(grep -c '^ok .*# SKIP' "$log")
	f=$(grep -c '^not ok ' "$log")
	if grep -q '^1\.\.0 # SKIP' "$log"; then
		s=$((s + 1))
		printf '%-44s skipped (%s)\n' "$name" "$(sed -n 's/^1\.\.0 # SKIP //p' "$log")"
	fi
	p=$((p - s))
	[ "$p" -lt 0 ] && p=0
	# a crash or a missing plan line is a failure of its own
	if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
	fi
	if ! grep -q '^1\.\.[0-9]' "$log"; then
		f=$((f + 1))
		echo "# $name: no TAP plan line (crashed?)" >>"$log"
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + s))
	if [ "$f" -gt 0 ]; then
		printf '%-44s FAILED (%d of %d)\n' "$name" "$f" "$((p + f + s))"
		grep -E -A12 '^not ok|crashed' "$log" | head -n 60 | sed 's/^/    /'
		bad_files="$bad_files $name"
	elif ! grep -q '^1\.\.0 # SKIP' "$log"; then
		printf '%-44s ok (%d passed%s)\n' "$name" "$p" "$([ "$s" -gt 0 ] && echo ", $s skipped")"
	fi
	grep '# SKIP' "$log" | grep -v '^1\.\.0' | sed 's/^/    /' | head -n 5
}

if [ $# -eq 0 ]; then
	for t in build/tests/*; do
		[ -x "$t" ] || continue
		run_one "unit/$(basename "$t")" "$t"
	done
	for t in tests/t[0-9]*.sh; do
		[ -f "$t" ] || continue
		run_one "$(basename "$t")" bash "$t"
	done
else
	for a in "$@"; do
		b=$(basename "$a")
		if [ -f "tests/$b" ] && [[ $b == t[0-9]*.sh ]]; then
			run_one "$b" bash "tests/$b"
		elif [ -x "build/tests/$b" ] && [ -f "build/tests/$b" ]; then
			run_one "unit/$b" "build/tests/$b"
		else
			echo "run-tests: no test named '$a': neither tests/t*.sh nor a build/tests/ binary (make unit builds those)" >&2
			exit 2
		fi
	done
fi

echo
[ -n "$bad_files" ] && echo "failed:$bad_files"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
