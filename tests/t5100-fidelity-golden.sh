#!/bin/bash
# Golden fidelity figures: replaying the committed real traces (Debian 6.1
# and 6.12 in a 2-node NUMA guest with the select_rq probes, an LTTng 4.15
# trace, a live 6.18 recording) must give exactly the figures in
# tests/fixtures/golden/ (model kind n exact% same-llc% same-node% baseline%;
# the balance kinds count pulls: see replay/fidelity.c).
# A change that moves them must regenerate them on purpose
# (tests/update-golden.sh) so that the diff shows what it did.
. "$(dirname "$0")/test-lib.sh"

cd "$TOP" || exit 1
SR="$SR" GOLDEN_OUT="$TMP/now" tests/update-golden.sh fidelity >/dev/null 2>"$TMP/e1"
for g in tests/fixtures/golden/*.fidelity; do
	n=$(basename "$g")
	if cmp -s "$g" "$TMP/now/$n"; then
		pass "$n: fidelity as recorded ($(grep -c . "$g") rows)"
	else
		fail "$n: fidelity as recorded" "$(cat "$TMP/e1"; diff "$g" "$TMP/now/$n")"
	fi
done
test_done
