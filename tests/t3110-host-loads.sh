#!/bin/bash
# The NUMA guest's loads outside the guest: "scripts/numa-guest/init.sh
# --load NAME" on this machine (busybox sh, SR_* from the environment), as
# the host recordings run it.  mix takes its ping and pong CPUs from
# SR_PINGCPU / SR_PONGCPU (default 0-1 / 2-3, the guest's nodes): the hog
# starts on ping's CPUs and is moved to pong's, and the load ends without a
# taskset error on a machine with 2 CPUs.  No root needed.
. "$(dirname "$0")/test-lib.sh"

[ -x /bin/busybox ] || skip_all "no /bin/busybox (busybox-static)"
command -v taskset >/dev/null || skip_all "no taskset"
[ "$(nproc)" -ge 2 ] || skip_all "needs 2 CPUs"

# a copy of its own, so that its tasks are told apart by their command line
# pids_of ARG...: the processes whose command line holds these arguments in
# a row (from /proc in one grep, as pgrep -f would, without procps, which a
# minimal Debian lacks)
pids_of() {
	local re= a
	for a in "$@"; do re="$re\\Q$a\\E\\x00"; done
	grep -laP -- "$re" /proc/[0-9]*/cmdline 2>/dev/null | sed 's|^/proc/||; s|/cmdline$||'
}
cp "$TOP/scripts/numa-guest/init.sh" "$TMP/init.sh"
chmod 755 "$TMP/init.sh"

# ---- mix with ping on CPU 1 and pong on CPU 0
SR_PINGCPU=1 SR_PONGCPU=0 SR_SCALE=30 timeout 60 "$TMP/init.sh" --load mix \
	>"$TMP/mix.out" 2>"$TMP/mix.err" &
load=$!
# the hog's affinity, every 20 ms while it lives (each new value once)
hog= seen=
for i in $(seq 1 1500); do
	if [ -z "$hog" ]; then
		hog=$(pids_of sh "$TMP/init.sh" --run hog | head -1)
	fi
	if [ -n "$hog" ]; then
		a=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$hog/status" 2>/dev/null)
		[ -n "$a" ] || break
		[ "${seen##* }" = "$a" ] || seen="$seen $a"
	fi
	kill -0 "$load" 2>/dev/null || break
	sleep 0.02
done
wait "$load"
rc=$?
# what a hung load left behind (timeout ends only the top shell)
for p in $(pids_of sh "$TMP/init.sh"); do kill "$p" 2>/dev/null; done
same "mix: ends with status 0 (no hang on a missing CPU)" 0 $rc
ok "mix: no error output" test ! -s "$TMP/mix.err"
same "mix: the hog starts on SR_PINGCPU, moves to SR_PONGCPU and back" "1 0 1" "${seen# }"

test_done
