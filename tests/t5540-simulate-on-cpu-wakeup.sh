#!/bin/bash
# simulate: a wakeup of a task that is still current on its CPU, in that
# CPU's newly idle balance (p->on_cpu), activates it there with no
# placement (try_to_wake_up() -> ttwu_queue_wakelist(), 6.1 and 6.12), so it
# never runs on two CPUs at once.  The recording
# (tests/fixtures/tracedat/sim/numa-6.12-sr-pphogs.dat, README) is a FIFO
# ping-pong beside pinned hogs on Debian 6.12.117 with the newidle probes
# (timed newly idle balances) where, before, such a task ran on another CPU
# while still its old one's current task: with delayed dequeue it was then
# kept as delayed off every queue, 28.6 % of the recorded CPU time was left
# un-run and 116 of 1254 wakeups made.
. "$(dirname "$0")/test-lib.sh"

cd "$TOP" || exit 1
T=tests/fixtures/tracedat/sim/numa-6.12-sr-pphogs.dat

for fair in eevdf-delay eevdf cfs; do
	"$SR" simulate --fair "$fair" "$T" >"$TMP/table" 2>"$TMP/warn" ||
		fail "simulate --fair $fair runs on $T"
	if grep -q 'un-run' "$TMP/warn"; then
		fail "--fair $fair: no demand is left un-run: $(grep -o 'left [^(]*([0-9.]* %' "$TMP/warn")"
	else
		pass "--fair $fair: no demand is left un-run"
	fi
	got=$(awk '$1 == "wakeups" { print $3 }' "$TMP/table")
	ok "--fair $fair: the base side makes at least 90 % of the recording's 1254 wakeups ($got)" \
		test "${got:-0}" -ge 1129
done

test_done
