#!/bin/bash
# info's events block is one column of counts: every "  NAME  COUNT" line
# ends at the same column, also where an event's name is longer than the
# usual ones (LTTng's lttng_statedump_process_state, perf's
# sched:sched_process_exec).
. "$(dirname "$0")/test-lib.sh"

cd "$TOP" || exit 1
for t in tests/fixtures/ctf/succeed/flipping-endianness tests/fixtures/ctf/succeed/perf-taskset2 \
	tests/fixtures/ctf/succeed/bug446190 tests/fixtures/tracedat/succeed/lisa-sched_load.dat; do
	n=$(basename "$t")
	ends=$("$SR" info "$t" | sed -n '/^events:/,/^tasks:/p' | sed '1d;$d' |
		awk '{ print length($0) }' | sort -u | tr '\n' ' ')
	case $ends in
	"" | *" "*" "*) fail "$n: the event counts end in one column" "line lengths: $ends" ;;
	*) pass "$n: the event counts end in one column ($ends)" ;;
	esac
done
test_done
