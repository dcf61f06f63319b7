#!/bin/bash
# Live NUMA test on a 6.12 kernel: scripts/numa-guest/record.sh boots a
# stock Debian 6.12 kernel in the 2-node QEMU guest and runs "schedreplay
# record" there around the "pingpong" load.  6.12 kprobes take BTF
# arguments (6.6+), so the recorder's select_rq probe fetches "pid=p->pid
# flips=p->wakee_flips" by name (the 6.1 guest of t3200 takes the offsets
# from /sys/kernel/btf/vmlinux instead).  On the host: info and trace-cmd
# report read the file alike, every select_rq has both fields, and replay
# takes the kernel's own wakee_flips for wake_wide at every probed wakeup.
#
# Needs what t3200 needs, and a linux-image-6.12.*-amd64 .deb in the cache
# or on the apt mirrors (Debian 12's bookworm-security, ~107 MB, once).
# Says SKIP with the reason elsewhere.  One boot, 25-35 s here.
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIR/lib/numa-guest.sh"
numa_guest_prereqs
numa_guest_kernel 'linux-image-6.12.*+deb*-amd64_*_amd64.deb' '^linux-image-6\.12\.[0-9]+\+deb[0-9]+-amd64$'

numa_guest_record 6.12 pingpong
numa_guest_check_guest
numa_guest_check_reads '6\.12\.[0-9]*+deb[0-9]*-amd64'

sed -n 's/^.* print: .*schedreplay: //p' "$TMP/rep.txt" >"$TMP/meta"
ok "metadata: the probes are on, with pid, the setaffinity one too" \
	grep -qE '^probes on pid 1 affinity 1$' "$TMP/meta"
# the probe's own format, as the kernel made it from BTF: p->pid is an int,
# p->wakee_flips an unsigned int
trace-cmd report --events "$D" 2>/dev/null | sed -n '/^name: select_rq$/,/^print fmt/p' >"$TMP/fmt"
ok "select_rq's format: pid is s32, flips u32, load util runnable prevload u64" sh -c \
	"grep -q 'field:s32 pid;' '$TMP/fmt' && grep -q 'field:u32 flips;' '$TMP/fmt' &&
	 grep -q 'field:u64 load;' '$TMP/fmt' && grep -q 'field:u64 util;' '$TMP/fmt' &&
	 grep -q 'field:u64 runnable;' '$TMP/fmt' && grep -q 'field:u64 prevload;' '$TMP/fmt'"
nflips=$("$SR" info --events "$D" | awk -F'\t' '$3 == "select_rq" { n++
		if ($4 > 0 && $7 >= 0 && $8 >= 0 && $9 >= 0 && $10 >= 0 && $11 >= 0) k++ }
	END { print n + 0, k + 0 }')
ok "every select_rq has the pid, flips, load, util, runnable and prevload fields ($nflips)" \
	sh -c "set -- $nflips; [ \$1 -gt 0 ] && [ \$1 = \$2 ]"

"$SR" replay -q -o "$TMP/r.db" "$D" >"$TMP/replay.txt" 2>"$TMP/replay.err"
same "replay: exits 0" 0 $?
nw=$(sqlite3 "$TMP/r.db" "SELECT count(*) FROM decision WHERE kind = 'wakeup' AND kernel_cpu IS NOT NULL")
ok "replay: probed wakeups ($nw)" test "$nw" -gt 100
same "replay: no probed wakeup infers wakee_flips or a warming-up PELT" 0 \
	"$(sqlite3 "$TMP/r.db" "SELECT count(*) FROM decision WHERE kernel_cpu IS NOT NULL AND
		(inferred LIKE '%wakee_flips%' OR inferred LIKE '%pelt_warmup%')")"
test_done
