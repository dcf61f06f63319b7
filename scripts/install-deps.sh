#!/bin/sh
# Install the Debian 12 packages schedreplay needs to build and test, when
# some are missing.  Called by "make deps" (and so by "make check" and
# "make demo"); does nothing when everything is already there.
#
# As root, apt-get installs what is missing.  As another user nothing can be
# installed: a missing build library stops here (nothing can be built), a
# missing test tool is only named, and the tests that need it say SKIP with
# the reason.
set -e

BUILD_PKGS="gcc make pkg-config libtraceevent-dev libtracefs-dev libtracecmd-dev \
libbabeltrace2-dev libsqlite3-dev libncurses-dev"
# test tools: reference decoders, the TUI driver, fuzzing and leak checking
# (llvm-14 has llvm-symbolizer: without it the sanitizers print no function
# names and tests/fuzz/lsan.supp cannot match the libraries' own leaks),
# rt-app (parses the workloads "simulate --export-demand" writes), and what
# the tests themselves run: python3 (parses JSON, HTML),
# time (/usr/bin/time -f %M for peak memory), man-db (renders the man pages)
TEST_PKGS="trace-cmd babeltrace2 sqlite3 tmux clang libclang-rt-14-dev llvm-14 valgrind \
qemu-system-x86 busybox-static cpio xz-utils zstd bpftool rt-app python3 time man-db"

# missing PACKAGE...: the ones dpkg does not have installed
missing() {
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
			printf ' %s' "$p"
	done
}

build_missing=$(missing $BUILD_PKGS)
test_missing=$(missing $TEST_PKGS)
all_missing="$build_missing$test_missing"
[ -z "$all_missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	if [ -n "$build_missing" ]; then
		echo "missing Debian packages:$all_missing" >&2
		echo "run as root: apt-get install$all_missing (or 'make deps' as root)" >&2
		exit 1
	fi
	echo "missing test tools:$test_missing; not root, so not installed:" \
		"the tests that need them say SKIP (as root: apt-get install$test_missing)" >&2
	exit 0
fi
echo "installing:$all_missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $all_missing >/dev/null
