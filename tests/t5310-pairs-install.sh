#!/bin/bash
# The installed pair API (schedreplay-pairs(7)): make install puts the
# headers a --patch-file pair needs and schedreplay.pc in place; the page's
# worked example is the file the tests build; built with pkg-config against
# the installed headers only, it loads into the installed binary and runs.
. "$(dirname "$0")/test-lib.sh"

CC=${CC:-cc}
command -v "$CC" >/dev/null 2>&1 || skip_all "no C compiler"
command -v pkg-config >/dev/null 2>&1 || skip_all "pkg-config not installed (make deps)"

ROOT="$TMP/root"
PREFIX=/usr/local
env -u MAKEFLAGS -u MAKELEVEL make -s -C "$TOP" install DESTDIR="$ROOT" PREFIX="$PREFIX" \
	>"$TMP/install.out" 2>&1
same "make install DESTDIR=... succeeds" 0 $?
INC="$ROOT$PREFIX/include/schedreplay"
for h in patch.h balance.h model.h replay.h event.h pelt.h topology.h; do
	ok "installs schedreplay/$h" test -f "$INC/$h"
done
ok "installs schedreplay-pairs(7)" test -f "$ROOT$PREFIX/share/man/man7/schedreplay-pairs.7"
EXAMPLE="$ROOT$PREFIX/share/doc/schedreplay/examples/wake-wide-double.c"
ok "installs the example" cmp "$EXAMPLE" "$FIX/patch-file/wake-wide-double.c"

# the page shows the example file as it is (the .EX block of EXAMPLE)
sed -n '/^\.SH EXAMPLE/,/^\.SH/p' "$TOP/man/schedreplay-pairs.7" |
	awk '/^\.EX/ { n++; next } /^\.EE/ { if (n == 1) exit } n == 1' |
	sed 's/\\e/\\/g' >"$TMP/page-example.c"
ok "the page's worked example is the example file" cmp "$TMP/page-example.c" "$EXAMPLE"

export PKG_CONFIG_PATH="$ROOT$PREFIX/share/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$ROOT"
ok "pkg-config finds schedreplay" pkg-config --exists schedreplay
same "its cflags name the installed headers" "-I$ROOT$PREFIX/include" \
	"$(pkg-config --cflags schedreplay | sed 's/ *$//')"
same "its abi variable is SR_PATCH_ABI" \
	"$(sed -n 's/^#define SR_PATCH_ABI \([0-9]*\)$/\1/p' "$TOP/include/schedreplay/patch.h")" \
	"$(pkg-config --variable=abi schedreplay)"
same "its version is the program's" "$(cat "$TOP/VERSION")" "$(pkg-config --modversion schedreplay)"

# build it as the page says, from a directory with no source tree in reach
mkdir -p "$TMP/pair"
cp "$EXAMPLE" "$TMP/pair/"
(cd "$TMP/pair" && $CC -H -shared -fPIC $(pkg-config --cflags schedreplay) \
	-o wake-wide-double.so wake-wide-double.c) >"$TMP/cc.out" 2>&1
same "the example builds against the installed headers" 0 $?
same "every schedreplay header it read is an installed one" "" \
	"$(grep 'schedreplay/' "$TMP/cc.out" | grep -v "^\.* $INC/[a-z]*\.h$")"
ok "and it read patch.h, model.h, replay.h" sh -c "grep -q ' $INC/patch.h' '$TMP/cc.out' &&
	grep -q ' $INC/model.h' '$TMP/cc.out' && grep -q ' $INC/replay.h' '$TMP/cc.out'"
SRI="$ROOT$PREFIX/bin/schedreplay"
ok "the installed binary lists it" sh -c \
	"'$SRI' replay --patch-file '$TMP/pair/wake-wide-double.so' --list-patches | grep -q '^wake-wide-double '"
N="$FIX/tracedat/numa/numa-6.1-messaging"
"$SRI" replay -q -o "$TMP/run.db" --patch-file "$TMP/pair/wake-wide-double.so" \
	-p wake-wide-double -t "$N.topo" "$N.dat" >"$TMP/run.out" 2>"$TMP/run.err"
same "and replays a trace with it" 0 $?
n=$(sqlite3 "$TMP/run.db" "SELECT count(*) FROM divergence WHERE patch = 'wake-wide-double'")
ok "where it diverges ($n decisions)" test "${n:-0}" -gt 0
test_done
