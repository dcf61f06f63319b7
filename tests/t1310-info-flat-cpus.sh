#!/bin/bash
# info's "for replay" topology line names the flat machine replay and
# simulate then run on: for a trace that declares no CPU count, the highest
# CPU with an event plus one (perf-taskset2 has events on CPUs 0, 1 and 3:
# 4 CPUs, not 3), and one CPU for a trace without events, as replay warns.
. "$(dirname "$0")/test-lib.sh"

cd "$TOP" || exit 1
printf '# tracer: nop\n#\n' >"$TMP/empty.txt"

for t in tests/fixtures/ctf/succeed/perf-taskset2 \
	tests/fixtures/text/succeed/trace-critical-path.txt \
	tests/fixtures/text/succeed/lisa-trace.txt "$TMP/empty.txt"; do
	n=$(basename "$t")
	info=$("$SR" info "$t" | sed -n 's/.*replay runs on a flat \([0-9]*\)-CPU machine.*/\1/p')
	rep=$("$SR" replay -q "$t" 2>&1 >/dev/null | sed -n 's/.*replaying on a FLAT \([0-9]*\)-CPU.*/\1/p')
	sim=$("$SR" simulate "$t" 2>&1 >/dev/null | sed -n 's/.*simulating on a FLAT \([0-9]*\)-CPU.*/\1/p')
	if [ -n "$rep" ] && [ "$info" = "$rep" ] && [ "$info" = "$sim" ]; then
		pass "$n: info's flat machine is replay's and simulate's ($info CPUs)"
	else
		fail "$n: info's flat machine is replay's and simulate's" \
			"info '$info', replay '$rep', simulate '$sim'"
	fi
done
got=$("$SR" info tests/fixtures/ctf/succeed/perf-taskset2 | sed -n 's/.*flat \([0-9]*\)-CPU.*/\1/p')
same "perf-taskset2 (events on CPUs 0, 1, 3): a flat 4-CPU machine" 4 "$got"
test_done
