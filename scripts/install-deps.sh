#!/bin/sh
# Install the Debian 12 packages schedreplay needs to build and test, when
# some are missing.  Called by "make deps" (and so by "make check" and
# "make demo"); does nothing when everything is already there.
set -e

BUILD_PKGS="gcc make pkg-config libtraceevent-dev libtracefs-dev libtracecmd-dev \
libbabeltrace2-dev libsqlite3-dev libncurses-dev"
# test tools: reference decoders, the TUI driver, fuzzing and leak checking
TEST_PKGS="trace-cmd babeltrace2 sqlite3 tmux clang libclang-rt-14-dev valgrind \
qemu-system-x86 busybox-static cpio xz-utils zstd bpftool"

missing=""
for p in $BUILD_PKGS $TEST_PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "missing Debian packages:$missing" >&2
	echo "run as root: apt-get install$missing" >&2
	exit 1
fi
echo "installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing >/dev/null
