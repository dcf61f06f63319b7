#!/bin/bash
# simulate runs one base model: a second -m (replay's -m is repeatable) is a
# usage error naming both, not silently the last one given; --kthreads
# (what the rt-app export holds) without --export-demand is a usage error,
# not silently ignored.
. "$(dirname "$0")/test-lib.sh"

cd "$TOP" || exit 1
T=tests/fixtures/text/succeed/lisa-trace.txt
"$SR" simulate -m v4.15 -m mainline "$T" >"$TMP/o" 2>"$TMP/e2"
same "simulate -m v4.15 -m mainline: exit 2" 2 $?
ok "... names both models, prints no table" sh -c \
	"grep -q \"one base model per run, not 'v4.15' and 'mainline'\" '$TMP/e2' && ! test -s '$TMP/o'"
"$SR" simulate -m v4.15 "$T" >"$TMP/o" 2>/dev/null
ok "simulate -m v4.15: the table's side is v4.15" grep -q '^ *recorded *v4.15$' "$TMP/o"
"$SR" simulate --kthreads "$T" >"$TMP/o" 2>"$TMP/e2"
same "simulate --kthreads without --export-demand: exit 2" 2 $?
ok "... says --kthreads needs --export-demand" grep -q -- "--kthreads needs --export-demand" "$TMP/e2"
test_done
