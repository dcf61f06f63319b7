#!/bin/bash
# The seed pairs on recordings of their authors' situations (issues 11 and
# 16): one recording per seed load of scripts/numa-guest/ ("Seed loads" in
# its README; tests/fixtures/tracedat/seeds/), replayed and simulated with
# the load's pair.  That a pair diverges on its load's recording is a fact
# of the trace (the decisions the kernel made there reach the code the seed
# changes), so the test fails if the pair stops diverging there or the
# engine breaks; the figures themselves are goldens
# (tests/fixtures/golden/seeds/, tests/update-golden.sh seeds).
. "$(dirname "$0")/test-lib.sh"

command -v sqlite3 >/dev/null || skip_all "sqlite3 not installed (make deps)"
command -v python3 >/dev/null || skip_all "python3 not installed (make deps)"

D=$FIX/tracedat/seeds
G=$FIX/golden/seeds
. "$TEST_DIR/lib/seed-golden.sh"

# $D/LIST: each fixture, its pairs, where the first pair must diverge
# (replay or simulate), at which kind of decision
while read -r name pairs where kind; do
	[ -f "$D/$name.dat" ] || { fail "$name: fixture missing"; continue; }
	seed_replay_summary "$SR" "$D/$name" "${pairs//,/ }" >"$TMP/$name.replay" 2>"$TMP/e"
	same "$name: replays" 0 $?
	same "$name: replay patch_summary (golden)" "$(cat "$G/$name.replay")" "$(cat "$TMP/$name.replay")"
	seed_simulate_summary "$SR" "$D/$name" "${pairs//,/ }" >"$TMP/$name.simulate" 2>"$TMP/e"
	same "$name: simulates" 0 $?
	same "$name: simulate sides (golden)" "$(cat "$G/$name.simulate")" "$(cat "$TMP/$name.simulate")"
	first=${pairs%%,*}
	case $where in
	replay)
		n=$(awk -v p="$first" -v k="$kind" '$1 == p && $2 == k { print $4 }' "$TMP/$name.replay") ;;
	simulate)
		n=$(awk -v p="$first" '$1 == p { s += $3 } END { print s + 0 }' "$TMP/$name.simulate") ;;
	reached)
		# no divergence: the base model's decisions reach the code the seed
		# changes ($kind: a reason-path pattern), and none diverges
		"$SR" replay -q -o "$TMP/$name.db" -m mainline -p "$first" -t "$D/$name.topo" \
			"$D/$name.dat" 2>"$TMP/e"
		n=$(sqlite3 "$TMP/$name.db" "SELECT count(*) FROM evaluation_v WHERE variant = 'base' AND reason LIKE '$kind'")
		same "$name: $first diverges nowhere" 0 \
			"$(sqlite3 "$TMP/$name.db" "SELECT count(*) FROM divergence WHERE patch = '$first'")"
		if [ "${n:-0}" -gt 0 ]; then
			pass "$name: decisions reach the seed's code ($kind: $n)"
		else
			fail "$name: decisions reach the seed's code ($kind: ${n:-none})"
		fi
		continue ;;
	esac
	if [ "${n:-0}" -gt 0 ]; then
		pass "$name: $first diverges ($where, $kind: $n)"
	else
		fail "$name: $first diverges ($where, $kind: ${n:-none})"
	fi
done < <(grep -v '^#' "$D/LIST")

# the nohz pass of 6.1-sr-nohzspread: the kernel (4.1+ order) pulled for
# CPU 2 from the idle balancer CPU 0; the patched side gives that pull
db="$TMP/nohz.db"
"$SR" replay -q -o "$db" -m mainline -p nohz-first -t "$D/6.1-sr-nohzspread.topo" \
	"$D/6.1-sr-nohzspread.dat" 2>"$TMP/e"
same "6.1-sr-nohzspread: the nohz pass: ILB 0 pulls 1494 from 1 for 2; original pulls for itself, patched = kernel" \
	"0 1 2 0 2 1" \
	"$(sqlite3 "$db" "SELECT this_cpu, prev_cpu, actual_cpu, original_cpu, patched_cpu, patched_matches FROM divergence WHERE patch = 'nohz-first' AND kind = 'balance_nohz'" | tr '|' ' ')"

# ppbail: the divergences are the author's: ALL_PINNED redo on the original,
# a bail on the pending wakeup on the patched side, the same CPU (no pull)
db="$TMP/pp.db"
"$SR" replay -q -o "$db" -m mainline -p newidle-bail -t "$D/6.12-tc-ppbail-c.topo" \
	"$D/6.12-tc-ppbail-c.dat" 2>"$TMP/e"
same "6.12-tc-ppbail-c: every divergence is redo (original) against bail: ttwu_pending (patched), no pull on either" \
	"$(sqlite3 "$db" "SELECT count(*) FROM divergence WHERE patch = 'newidle-bail'")" \
	"$(sqlite3 "$db" "SELECT count(*) FROM divergence WHERE patch = 'newidle-bail' AND original_reason LIKE '%all pinned, redo%' AND original_reason NOT LIKE '%bail%' AND patched_reason LIKE '%bail: ttwu_pending%' AND original_cpu IS patched_cpu")"

test_done
