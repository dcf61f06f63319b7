#!/bin/bash
# replay refuses more evaluations per decision than the engine holds, and
# says how many the models and patch pairs asked for.
. "$(dirname "$0")/test-lib.sh"

cd "$TOP" || exit 1
T=$FIX/scenario/no-waking.txt
P="-p exit-sync-mel -p exit-sync-peterz -p kthread-per-cpu -p newidle-bail -p nohz-first -p wake-affine-equal"

# shellcheck disable=SC2086
"$SR" replay -q -m mainline -m v4.15 $P -t 2x2x1 "$T" >"$TMP/o" 2>"$TMP/e"
same "2 models x 6 pairs: a usage error" 2 $?
ok "... that counts them: 2 x (1 + 2 x 6) = 26 of at most 16" \
	grep -q '2 models and 6 patch pairs are 26 evaluations per decision (.*), at most 16' "$TMP/e"
ok "... nothing on standard output" test ! -s "$TMP/o"
# shellcheck disable=SC2086
"$SR" replay -q -m mainline $P -t 2x2x1 "$T" >/dev/null 2>"$TMP/e"
same "1 model x 6 pairs (13) replays" 0 $?

test_done
