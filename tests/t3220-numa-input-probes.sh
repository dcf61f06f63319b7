#!/bin/bash
# Live NUMA test of record.sh --input-probes (6.12 guest): the validation
# probes that record what the fork and wakeup slow path reads of every CPU,
# with trace-cmd (init.sh defines them) and with schedreplay record
# --input-probes (the recorder defines them from the guest's BTF and
# kallsyms).  rqstat fires with every select_rq (both at
# select_task_rq_fair()'s entry) and carries seven fields a CPU (the
# seventh SIS_UTIL's nr_idle_scan, 0 to the LLC's 2 CPUs); at a fork its
# load of the parent's CPU is the same memory select_rq's prevload reads
# (p->se.cfs_rq->rq->cfs.avg.load_avg of the child, whose cfs_rq is the
# parent's CPU's); cfs_pelt fires at PELT updates of every CPU's root
# cfs_rq; replay skips both and still pairs every fork with its probe; the
# schedreplay recorder leaves no probe behind.  The trace-cmd boot also
# takes --lb-probes: find_busiest_group()'s return (lb_group_ret), every
# can_migrate_task() with the task's and lb_env's fields and its answer
# (lb_task, lb_task_ret), and with --input-probes every CPU's state at
# find_busiest_group() (lb_rqstat).  Without a boot: --input-probes refuses
# --no-pid with trace-cmd, --lb-probes refuses the schedreplay recorder and
# --no-pid.
#
# Needs what t3210 needs.  Says SKIP with the reason elsewhere.  Two boots,
# 60-100 s here.
. "$(dirname "$0")/test-lib.sh"

"$TOP/scripts/numa-guest/record.sh" --kernel 6.12 --load forks --out "$TMP/x" --input-probes \
	--no-pid >"$TMP/o" 2>"$TMP/e"
same "--input-probes with --no-pid: exit 1" 1 $?
ok "... and says why" grep -q 'input-probes: needs the BTF offsets' "$TMP/e"
"$TOP/scripts/numa-guest/record.sh" --kernel 6.12 --load forks --out "$TMP/x" --lb-probes \
	--recorder schedreplay >"$TMP/o" 2>"$TMP/e"
same "--lb-probes with the schedreplay recorder: exit 1" 1 $?
ok "... and says why" grep -q 'lb-probes: only with --recorder trace-cmd' "$TMP/e"
"$TOP/scripts/numa-guest/record.sh" --kernel 6.12 --load forks --out "$TMP/x" --lb-probes \
	--no-pid >"$TMP/o" 2>"$TMP/e"
same "--lb-probes with --no-pid: exit 1" 1 $?
ok "... and says why" grep -q 'lb-probes: needs the BTF offsets' "$TMP/e"

. "$TEST_DIR/lib/numa-guest.sh"
numa_guest_prereqs
numa_guest_kernel 'linux-image-6.12.*+deb*-amd64_*_amd64.deb' '^linux-image-6\.12\.[0-9]+\+deb[0-9]+-amd64$'

numa_guest_record 6.12 forks --recorder trace-cmd --input-probes --lb-probes --scale 10
ok "guest: the kernel took both input probes" sh -c \
	"grep -q '^kprobe_events (input): p:schedreplay/rqstat select_task_rq_fair c0load=' '$OUT/$NAME.facts.txt' &&
	 grep -q '^kprobe_events (input): p:schedreplay/cfs_pelt __update_load_avg_cfs_rq ' '$OUT/$NAME.facts.txt'"

ok "guest: the kernel took the load-balance probes" sh -c \
	"grep -q '^kprobe_events (lb): r:schedreplay/lb_group_ret sched_balance_find_src_group busiest=' '$OUT/$NAME.facts.txt' &&
	 grep -q '^kprobe_events (lb): p:schedreplay/lb_task can_migrate_task pid=+0x[0-9a-f]*(%di):s32 ' '$OUT/$NAME.facts.txt' &&
	 grep -q '^kprobe_events (input): p:schedreplay/lb_rqstat sched_balance_find_src_group c0load=' '$OUT/$NAME.facts.txt'"

trace-cmd report "$D" >"$TMP/rep.txt" 2>/dev/null
ngr=$(grep -c ' lb_group_ret: ' "$TMP/rep.txt")
nlr=$(grep -c ' lb_rqstat: ' "$TMP/rep.txt")
# lb_rqstat is a kprobe at sched_balance_find_src_group()'s entry,
# lb_group_ret a kretprobe at its return: a call that the start or the end
# of the recording cuts (tracing turned on or off, or the two events
# enabled, between its entry and its return) leaves its return without an
# entry as the first of the pair's events on its CPU, or its entry without
# a return as the last.  Anywhere else a return without an entry is a lost
# or doubled event (a softirq's balance may nest in a newly idle one: calls
# are counted open per CPU).
unpaired=$(awk '/ lb_rqstat: / { c = $2; open[c]++; seen[c] = 1 }
	/ lb_group_ret: / { c = $2; if (open[c]) open[c]--; else if (seen[c]) bad++; seen[c] = 1 }
	END { for (c in open) if (open[c] > 1) bad += open[c] - 1; print bad + 0 }' "$TMP/rep.txt")
ok "one lb_rqstat for every lb_group_ret but where the recording cuts a call ($nlr, $ngr, $unpaired elsewhere)" \
	sh -c "[ $ngr -gt 10 ] && [ $unpaired = 0 ]"
# every lb_task is followed on its CPU by its lb_task_ret, and names a
# source CPU other than its destination (the balancing CPU, or the CPU a
# nohz pass or a DST_PINNED retarget balances for), a migration type of
# 0-3 and a sched_domain level
awk '/ lb_task: / { cpu = $2; if (open[cpu]) bad++; open[cpu] = 1; n++
		d = $0; sub(/.* dst=/, "", d); sub(/ .*/, "", d)
		s = $0; sub(/.* src=/, "", s); sub(/ .*/, "", s)
		m = $0; sub(/.* mt=/, "", m); sub(/ .*/, "", m)
		if (s == d || m > 3 || $0 !~ / level=[0-9]+ /) bad++; next }
	/ lb_task_ret: / { cpu = $2; if (!open[cpu]) bad++; open[cpu] = 0; r++ }
	END { print n + 0, r + 0, bad + 0 }' "$TMP/rep.txt" >"$TMP/lbt"
read -r nlt nltr nbad <"$TMP/lbt"
ok "lb_task: each with its lb_task_ret ($nlt, $nltr, $nbad wrong)" \
	sh -c "[ $nlt = $nltr ] && [ $nbad = 0 ]"
# input_checks WHO: the input probes in $D, as $WHO recorded them
input_checks() {
	local who=$1 nsel nrq nf neq nmiss nfk nwf

	trace-cmd report "$D" >"$TMP/rep.txt" 2>/dev/null
	nsel=$(grep -c ' select_rq: ' "$TMP/rep.txt")
	nrq=$(grep -c ' rqstat: ' "$TMP/rep.txt")
	# The two kprobes sit at one address and fire one after the other: where
	# the recording's start or end (tracing turned on or off, or the events
	# enabled) falls between the two of one call, one of them alone is the
	# first or the last of the pair's events on its CPU (seen once in about
	# ten runs: 407 rqstat, 408 select_rq).  Anywhere else a lone one is a
	# lost or doubled event.
	nlone=$(awk '/ rqstat: | select_rq: / { c = $2; seq[c, ++n[c]] = / rqstat: / ? "r" : "s" }
		END {
			for (c in n) {
				for (i = 1; i <= n[c]; ) {
					if (i < n[c] && seq[c, i] != seq[c, i + 1]) { i += 2; continue }
					if (i != 1 && i != n[c]) bad++
					i++
				}
			}
			print bad + 0
		}' "$TMP/rep.txt")
	if [ "$nsel" -gt 100 ] && [ "$nlone" = 0 ]; then
		pass "$who: one rqstat for every select_rq but where the recording cuts a call ($nrq, $nsel)"
	else
		# say which events lack their pair, with their CPU's neighbours, and
		# keep the recording in tests/out for the next look
		cp "$D" "$TOP/tests/out/t3220-$who-unpaired.dat" 2>/dev/null
		fail "$who: one rqstat for every select_rq but where the recording cuts a call ($nrq, $nsel, $nlone elsewhere)" "$(awk '
			/ rqstat: | select_rq: / {
				cpu = $2; k = / rqstat: / ? "r" : "s"
				if (pend[cpu] != "" && pend[cpu] != k) { pend[cpu] = ""; next }
				if (pend[cpu] != "") print "unpaired: " last[cpu]
				pend[cpu] = k; last[cpu] = prev[cpu] " || " $0; prev[cpu] = $0; next }
			{ prev[$2] = $0 }
			END { for (c in pend) if (pend[c] != "") print "unpaired at the end: " last[c] }' \
			"$TMP/rep.txt" | cut -c1-300 | head -n 6)
kept in tests/out/t3220-$who-unpaired.dat"
	fi
	same "$who: every rqstat has load, util, run, ue, nr, ttwu and scan of CPUs 0-3" 0 "$(awk '/ rqstat: / {
			if (gsub(/ c[0-3](load|util|run|ue|nr|ttwu|scan)=[0-9]+/, "&") != 28) bad++ }
		END { print bad + 0 }' "$TMP/rep.txt")"
	# both CPUs of an LLC read one sd_llc_shared, but one after the other:
	# update_idle_cpu_scan() on the LLC's other CPU may store between the
	# two reads, so a rare line differs (one in a few hundred, seen once); most agree
	same "$who: rqstat's scan is SIS_UTIL's nr_idle_scan of a 2-CPU LLC (0 to 2)" 0 \
		"$(awk '/ rqstat: / { for (i = 0; i < 4; i++) { v[i] = $0; sub(".* c" i "scan=", "", v[i]); sub(/ .*/, "", v[i]) }
			if (v[0] > 2 || v[1] > 2 || v[2] > 2 || v[3] > 2) bad++ }
		END { print bad + 0 }' "$TMP/rep.txt")"
	ok "$who: ... the same for both CPUs of an LLC on at least 98% of the lines" awk '/ rqstat: / {
			for (i = 0; i < 4; i++) { v[i] = $0; sub(".* c" i "scan=", "", v[i]); sub(/ .*/, "", v[i]) }
			n++; if (v[0] != v[1] || v[2] != v[3]) bad++ }
		END { exit !(n > 0 && bad * 50 <= n) }' "$TMP/rep.txt"
	# a fork's select_rq and its rqstat, in either order, on the same CPU:
	# rqstat's load of prev_cpu against select_rq's prevload
	awk '/ rqstat: / { cpu = $2; rq[cpu] = $0; next }
		/ select_rq: / && / wake_flags=0x4 / {
			cpu = $2; p = $0; sub(/.*prev_cpu=/, "", p); sub(/ .*/, "", p)
			v = $0; sub(/.*prevload=/, "", v); sub(/ .*/, "", v)
			if (!(cpu in rq)) { miss++; next }
			s = rq[cpu]; sub(".* c" p "load=", "", s); sub(/ .*/, "", s)
			n++; if (s == v) eq++; delete rq[cpu]
		}
		END { print n + 0, eq + 0, miss + 0 }' "$TMP/rep.txt" >"$TMP/forks"
	read -r nf neq nmiss <"$TMP/forks"
	ok "$who, forks: rqstat's load of the parent's CPU is select_rq's prevload ($neq of $nf, $nmiss unpaired)" \
		sh -c "[ $nf -gt 100 ] && [ $nmiss = 0 ] && [ \$(($neq * 100)) -ge \$(($nf * 90)) ]"
	# cfs_pelt: every CPU's root cfs_rq (the commonest cfs - rq of each CPU)
	awk '/ cfs_pelt: / { c = $0; sub(/.*cpu=/, "", c); sub(/ .*/, "", c); n[c]++ }
		END { for (c in n) if (n[c] > 50) k++; print k + 0 }' "$TMP/rep.txt" >"$TMP/cpus"
	same "$who, cfs_pelt: updates of every CPU's cfs_rq" 4 "$(cat "$TMP/cpus")"

	"$SR" replay -q -o "$TMP/r.db" -f -t "$OUT/$NAME.topo" "$D" >"$TMP/replay.txt" 2>"$TMP/replay.err"
	same "$who, replay: exits 0" 0 $?
	nfk=$(sqlite3 "$TMP/r.db" "SELECT count(*) FROM decision WHERE kind = 'fork' AND kernel_cpu IS NOT NULL")
	nwf=$(grep -c ' select_rq: .* wake_flags=0x4 ' "$TMP/rep.txt")
	same "$who, replay: the input probes leave every fork paired with its select_rq ($nwf)" "$nwf" "$nfk"
}

input_checks trace-cmd

# ---- the schedreplay recorder's own --input-probes
numa_guest_record 6.12 forks --input-probes --scale 10
numa_guest_check_guest
ok "schedreplay: the metadata says both input probes are on" \
	grep -q 'schedreplay: input-probes rqstat cfs_pelt$' <(trace-cmd report "$D" 2>/dev/null)
ok "schedreplay: no warning from the recorder" sh -c "! grep -q 'warning' '$G/record.log'"
input_checks schedreplay
test_done
