# Shared by the live NUMA tests (t3200, t3210): the prerequisites of
# scripts/numa-guest/record.sh, and a stock Debian kernel .deb of one series
# in its cache, downloaded once when missing.  Sourced after test-lib.sh;
# says SKIP (skip_all) with the reason when the machine cannot do it.

. "$TEST_DIR/lib/tracecmd.sh"

RECORD=$TOP/scripts/numa-guest/record.sh
CACHE=${SR_NUMA_CACHE:-$TOP/scripts/numa-guest/cache}

numa_guest_prereqs() {
	local missing= p c

	[ "$(id -u)" = 0 ] || skip_all "needs root (the NUMA guest harness downloads and unpacks kernels with apt and dpkg)"
	command -v qemu-system-x86_64 >/dev/null ||
		skip_all "qemu-system-x86_64 not installed (make deps installs qemu-system-x86)"
	qemu-system-x86_64 --version >/dev/null 2>&1 || skip_all "qemu-system-x86_64 does not run here"
	for p in qemu-system-x86 busybox-static cpio xz-utils zstd trace-cmd; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
			missing="$missing $p"
	done
	[ -z "$missing" ] || skip_all "missing Debian packages:$missing (make deps installs them)"
	for c in timeout apt-get apt-cache dpkg sqlite3; do
		command -v $c >/dev/null || skip_all "$c not found"
	done
}

# numa_guest_kernel GLOB REGEX: a .deb matching CACHE/GLOB, else the newest
# package whose name matches REGEX, downloaded now (that is also the network
# check: without a network it fails in seconds)
numa_guest_kernel() {
	local glob=$1 re=$2 pkg dl t0

	# shellcheck disable=SC2086
	ls "$CACHE"/$glob >/dev/null 2>&1 && return 0
	pkg=$(apt-cache search --names-only "$re" 2>/dev/null | awk '{ print $1 }' | sort -V | tail -n 1)
	if [ -z "$pkg" ]; then
		timeout 300 apt-get update -q >"$TMP/apt.log" 2>&1
		pkg=$(apt-cache search --names-only "$re" 2>/dev/null | awk '{ print $1 }' | sort -V | tail -n 1)
		[ -n "$pkg" ] || skip_all "no cached kernel and no package matching $re on the apt mirrors (no network? $(grep -m1 -E '^(E|W|Err):' "$TMP/apt.log"))"
	fi
	mkdir -p "$CACHE" || skip_all "cannot create $CACHE"
	dl=$(mktemp -d "$CACHE/download.XXXXXX")
	t0=$(date +%s)
	if (cd "$dl" && timeout 1800 apt-get download "$pkg") >"$TMP/dl.log" 2>&1 &&
		ls "$dl"/*.deb >/dev/null 2>&1; then
		mv "$dl"/*.deb "$CACHE"/
		rm -rf "$dl"
		echo "# downloaded $pkg in $(($(date +%s) - t0)) s"
	else
		rm -rf "$dl"
		skip_all "no cached kernel and apt-get download $pkg fails (no network? $(grep -m1 -E '^(E|Err):' "$TMP/dl.log"))"
	fi
}

# numa_guest_record SERIES LOAD [record.sh options]: boot the guest, record
# LOAD with "schedreplay record", bring the file back; sets OUT, D (the
# trace.dat), G (the guest's files) and NAME.  A failure ends the test.
# TMPDIR: record.sh's work files are removed with ours, also after a timeout.
numa_guest_record() {
	local series=$1 load=$2 rc t0

	shift 2
	NAME=numa-$series-$load
	OUT=$TMP/numa	# ($TMP/out is test-lib's)
	t0=$(date +%s)
	TMPDIR=$TMP timeout -k 15 "${SR_NUMA_TIMEOUT:-900}" "$RECORD" --kernel "$series" --load "$load" \
		--recorder schedreplay --schedreplay "$SR" --cached --cache "$CACHE" --no-install \
		--timeout 150 --retries 4 "$@" --out "$OUT" >"$TMP/record.log" 2>&1
	rc=$?
	echo "# record.sh: exit $rc after $(($(date +%s) - t0)) s;" \
		"$(grep -E 'QEMU ended' "$TMP/record.log" | sed 's/^== //' | paste -sd ';' -)"
	D=$OUT/$NAME.dat
	G=$OUT/$NAME.topology
	if [ $rc != 0 ] || [ ! -s "$D" ]; then
		fail "record.sh boots the guest, records and brings the file back" \
			"$(if [ $rc = 124 ] || [ $rc = 137 ]; then echo "timed out"; else echo "exit $rc"; fi)
$(tail -n 25 "$TMP/record.log")"
		test_done
		exit 1
	fi
	pass "record.sh boots the guest, records and brings the file back"
}

# in the guest: the recorder's own summary, tracefs as it was found
numa_guest_check_guest() {
	ok "guest: schedreplay record exits 0" grep -q '^schedreplay record exit status: 0$' \
		"$OUT/$NAME.facts.txt"
	ok "guest: the recorder's summary: 4 cpus, no lost events" \
		grep -q '^schedreplay: recorded [0-9.]* s on 4 cpus: [0-9]* events, 0 lost$' "$G/record.log"
	ok "guest: no tracing instance left behind" cmp -s "$G/instances-before" "$G/instances-after"
	ok "guest: no kprobe left behind" cmp -s "$G/kprobe_events-before" "$G/kprobe_events-after"
}

# numa_guest_check_reads KERNEL_RE: info and trace-cmd report read $D, with
# the same counts and decode (info's "kernel:" matches KERNEL_RE)
numa_guest_check_reads() {
	"$SR" info "$D" >"$TMP/info.txt" 2>&1
	same "info: exits 0" 0 $?
	ok "info: a trace.dat v6 of the guest's kernel" sh -c "grep -q '^format: *trace.dat v6\$' '$TMP/info.txt' &&
		grep -q '^kernel: *$1\$' '$TMP/info.txt'"
	ok "info: no lost events" grep -q '^lost: *none$' "$TMP/info.txt"
	compare_with_tracecmd "$D" "$NAME"
}
