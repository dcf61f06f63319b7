#!/bin/sh
# Patch pairs on the wakeup path (seed 004): the scenarios built from the
# seed's own text, asserted exactly; divergences on real traces lie only on
# the code path each pair changes; a pair loaded from a shared object.
. "$(dirname "$0")/test-lib.sh"

SC="$FIX/scenario"
ALL="-p wake-affine-equal -p exit-sync-mel -p exit-sync-peterz"

# scenario DB: replay a constructed trace on two nodes of two CPUs
scenario() {
	"$SR" replay -q -f -o "$TMP/$1.db" -t 2x2x1 --fidelity $ALL "$SC/$1.txt" >"$TMP/$1.out" 2>"$TMP/$1.err"
}
# rows "patch original patched actual" of the divergence view
divergences() {
	sqlite3 -separator ' ' "$TMP/$1.db" \
		"SELECT patch, original_cpu, patched_cpu, actual_cpu FROM divergence ORDER BY patch" |
		paste -sd'|'
}

ok "equal loads: replay" scenario 004-equal-load
same "equal loads: only wake-affine-equal diverges; original pulls to 0, patched stays on 2 (the kernel's CPU)" \
	"wake-affine-equal 0 2 2" "$(divergences 004-equal-load)"
same "equal loads: the two sides' reasons" \
	"weight: this 0 <= prev 0|weight: this 0 >= prev 0" \
	"$(sqlite3 "$TMP/004-equal-load.db" "SELECT original_reason, patched_reason FROM divergence" |
		sed 's/.*\(weight: [^>]*[<>]=\? prev 0\).*|.*\(weight: [^>]*[<>]=\? prev 0\).*/\1|\2/')"
same "equal loads: the wakeup is not sync and that is inferred (no probes)" "0 sync" \
	"$(sqlite3 -separator ' ' "$TMP/004-equal-load.db" "SELECT sync, inferred FROM decision WHERE kind = 'wakeup'" | sed 's/,.*//')"

ok "exiting child, cross node: replay" scenario 004-exit-sync
same "exiting child, cross node: both 4/4 forms leave the parent on 2, the original pulls it to 0" \
	"exit-sync-mel 0 2 2|exit-sync-peterz 0 2 2" "$(divergences 004-exit-sync)"
same "exiting child, cross node: the probe's wake flags are used" "1 1 24 2" \
	"$(sqlite3 -separator ' ' "$TMP/004-exit-sync.db" "SELECT sync, waker_exiting, wake_flags, kernel_cpu FROM decision WHERE kind = 'wakeup'")"
same "exiting child, cross node: Mel's patched reason" 1 \
	"$(sqlite3 "$TMP/004-exit-sync.db" "SELECT count(*) FROM divergence WHERE patch = 'exit-sync-mel' AND patched_reason LIKE '%sync, waker alone, exiting, no shared LLC%'")"
same "exiting child, cross node: the summary says the patched side matches the kernel" \
	"exit-sync-mel 1 1 0 1|exit-sync-peterz 1 1 0 1|wake-affine-equal 1 0 0 0" \
	"$(sqlite3 -separator ' ' "$TMP/004-exit-sync.db" "SELECT patch, decisions, divergent, original_exact, patched_exact FROM patch_summary ORDER BY patch" | paste -sd'|')"

ok "exiting child, shared LLC: replay" scenario 004-exit-sync-llc
same "exiting child, shared LLC: only Peter's form (and the weight pair) keep the parent on prev" \
	"exit-sync-peterz 0 1 1|wake-affine-equal 0 1 1" "$(divergences 004-exit-sync-llc)"

# the fidelity output names the pairs
ok "the replay summary lists each pair" grep -q '^exit-sync-peterz *mainline *wakeup *1 *1 *100.0 *0.0 *100.0$' \
	"$TMP/004-exit-sync.out"

# real traces: every divergence lies on the path the pair changes
for f in numa-6.1-forks numa-6.1-pingpong numa-6.12-forks numa-6.12-pingpong; do
	for m in mainline v4.15; do
		"$SR" replay -q -f -o "$TMP/real.db" -m $m $ALL -t "$FIX/tracedat/numa/$f.topo" \
			"$FIX/tracedat/numa/$f.dat" >/dev/null 2>&1 || fail "$f $m: replay"
		same "$f $m: wake-affine-equal diverges only at weight comparisons" 0 \
			"$(sqlite3 "$TMP/real.db" "SELECT count(*) FROM divergence WHERE patch = 'wake-affine-equal' AND (kind != 'wakeup' OR original_reason NOT LIKE '%weight:%' OR patched_reason NOT LIKE '%weight:%')")"
		same "$f $m: exit-sync pairs diverge only at sync wakeups from exiting wakers" 0 \
			"$(sqlite3 "$TMP/real.db" "SELECT count(*) FROM divergence WHERE patch LIKE 'exit-sync-%' AND (kind != 'wakeup' OR sync != 1 OR waker_exiting != 1)")"
		same "$f $m: the patch sides never change forks" 0 \
			"$(sqlite3 "$TMP/real.db" "SELECT count(*) FROM evaluation_v e JOIN decision d USING (decision_id) WHERE e.patch IS NOT NULL AND d.kind = 'fork'")"
	done
done

# a pair from a shared object, built as schedreplay-replay(1) says
CC=${CC:-cc}
if command -v "$CC" >/dev/null 2>&1; then
	ok "a pair builds as a shared object" \
		"$CC" -shared -fPIC -I"$TOP/include" -o "$TMP/stay.so" "$FIX/patch-file/stay-on-prev.c"
	ok "--patch-file lists it" sh -c "'$SR' replay --patch-file '$TMP/stay.so' --list-patches | grep -q '^stay-on-prev '"
	"$SR" replay -q --patch-file "$TMP/stay.so" -p stay-on-prev -t 2x2x1 "$SC/004-equal-load.txt" >"$TMP/so.out" 2>&1
	same "--patch-file: the loaded pair is evaluated" 0 $?
	ok "--patch-file: its row is printed" grep -q '^stay-on-prev *mainline *wakeup *1 ' "$TMP/so.out"
	# the example pair of schedreplay-pairs(7): one line of wake_wide changed
	ok "the wake_wide example builds" \
		"$CC" -shared -fPIC -I"$TOP/include" -o "$TMP/ww.so" "$FIX/patch-file/wake-wide-double.c"
	N="$FIX/tracedat/numa/numa-6.1-messaging"
	"$SR" replay -q -f -o "$TMP/ww.db" --patch-file "$TMP/ww.so" -p wake-wide-double \
		-t "$N.topo" "$N.dat" >/dev/null 2>"$TMP/ww.err"
	same "--patch-file: the wake_wide pair is evaluated" 0 $?
	set -- $(sqlite3 -separator ' ' "$TMP/ww.db" "SELECT count(*), \
		sum(original_reason LIKE 'wake_wide >%' AND patched_reason LIKE 'not wide >%') \
		FROM divergence WHERE patch = 'wake-wide-double'")
	ok "the wake_wide pair diverges on the messaging trace ($1 decisions)" test "${1:-0}" -gt 0
	same "every divergence is a wakeup wake_wide sent wide that the patched side kept affine" \
		"$1" "$2"
	same "its original side is the base model at every decision" 0 \
		"$(sqlite3 "$TMP/ww.db" "SELECT count(*) FROM evaluation_v o JOIN evaluation_v b \
		USING (decision_id) WHERE o.patch = 'wake-wide-double' AND o.variant = 'original' \
		AND b.patch IS NULL AND (o.cpu IS NOT b.cpu OR o.reason IS NOT b.reason)")"
	# its divergences' open-loop estimates (schedreplay-db(5)): a CPU idle
	# with tasks already queued there gives no wait estimate, not 0
	set -- $(sqlite3 -separator ' ' "$TMP/ww.db" "SELECT count(*), \
		coalesce(sum(original_idle = 1 AND original_nr > 0 AND \
		original_wait_estimate_ns IS NOT NULL) + sum(patched_idle = 1 AND \
		patched_nr > 0 AND patched_wait_estimate_ns IS NOT NULL), 0) \
		FROM divergence_estimate WHERE original_idle = 1 AND original_nr > 0 \
		OR patched_idle = 1 AND patched_nr > 0")
	ok "some divergence has a side's CPU idle with tasks queued ($1)" test "${1:-0}" -gt 0
	same "... and no wait estimate there" 0 "$2"
	# a pair built against other headers is refused, with a message
	sed 's/\.abi = SR_PATCH_ABI/.abi = 2/' "$FIX/patch-file/stay-on-prev.c" >"$TMP/old.c"
	"$CC" -shared -fPIC -I"$TOP/include" -o "$TMP/old.so" "$TMP/old.c"
	"$SR" replay --patch-file "$TMP/old.so" --list-patches >/dev/null 2>"$TMP/e"
	same "a pair of another ABI is refused" 2 $?
	ok "and told to rebuild" grep -q "built against other schedreplay headers (ABI 2.*rebuild" "$TMP/e"
else
	skip "a pair builds as a shared object" "no C compiler"
fi
"$SR" replay --patch-file nosuch.so --list-patches >/dev/null 2>"$TMP/e"
same "--patch-file without a slash is refused" 2 $?
ok "and says to give a path" grep -q "give a path (./nosuch.so)" "$TMP/e"
"$SR" replay --patch-file "$FIX/scenario/004-equal-load.txt" --list-patches >/dev/null 2>"$TMP/e"
same "--patch-file on a non-object fails" 2 $?
ok "and names the file" grep -q "cannot load patch file '$FIX/scenario/004-equal-load.txt'" "$TMP/e"
test_done
