#!/bin/bash
# The README's set-up on a machine without the packages, without needing
# such a machine: a clean copy of the tree runs "make demo" with pkg-config,
# dpkg-query, apt-get and id shadowed on PATH, so that every package looks
# missing until the shadowed apt-get "installs" them.  Then the same for a
# user who is not root (nothing can be installed) and for "make check".
. "$(dirname "$0")/test-lib.sh"

command -v git >/dev/null || skip_all "git not installed"
git -C "$TOP" rev-parse --git-dir >/dev/null 2>&1 || skip_all "not a git checkout"
REAL_PKGCONFIG=$(command -v pkg-config) || skip_all "pkg-config not installed (make deps)"
REAL_DPKGQ=$(command -v dpkg-query) || skip_all "dpkg-query not found (not Debian?)"
"$REAL_PKGCONFIG" --exists libtracecmd libtraceevent libtracefs babeltrace2 sqlite3 ncursesw ||
	skip_all "the build libraries are not installed (make deps)"

# a clean copy: the files git knows (committed or not), no build output; of
# the fixtures only the demo's trace
CLEAN="$TMP/clean"
mkdir -p "$CLEAN"
(cd "$TOP" && git ls-files --cached --others --exclude-standard -z |
	grep -zv '^tests/fixtures/' | xargs -0 cp --parents -t "$CLEAN" 2>/dev/null)
(cd "$TOP" && cp --parents -t "$CLEAN" tests/fixtures/tracedat/numa/numa-6.12-forks.dat \
	tests/fixtures/tracedat/numa/numa-6.12-forks.topo)

# fake_bin DIR UID: the shadowed commands; STATE/installed marks a done apt-get
fake_bin() {
	local bin=$1 uid=$2 state=$1/state
	mkdir -p "$bin" "$state"
	cat >"$bin/pkg-config" <<EOF
#!/bin/sh
[ -f "$state/installed" ] && exec "$REAL_PKGCONFIG" "\$@"
exit 1
EOF
	cat >"$bin/dpkg-query" <<EOF
#!/bin/sh
[ -f "$state/installed" ] && exec "$REAL_DPKGQ" "\$@"
for a; do pkg=\$a; done
case " \${HAVE_PKGS:-} " in *" \$pkg "*) exec "$REAL_DPKGQ" "\$@" ;; esac
echo "dpkg-query: no packages found matching \$pkg" >&2
exit 1
EOF
	cat >"$bin/apt-get" <<EOF
#!/bin/sh
echo "apt-get \$*" >>"$state/apt.log"
case " \$* " in *" install "*) [ -n "\${APT_FAILS:-}" ] && { echo "E: Unable to locate package" >&2; exit 100; } ;; esac
[ "\$1" = update ] && exit 0
case " \$* " in *" install "*) touch "$state/installed" ;; esac
exit 0
EOF
	cat >"$bin/id" <<EOF
#!/bin/sh
[ "\$1" = -u ] && { echo $uid; exit 0; }
exec /usr/bin/id "\$@"
EOF
	chmod +x "$bin"/*
}

# 1. as root: make demo installs what is missing, then builds, replays, reports
fake_bin "$TMP/root" 0
(cd "$CLEAN" && PATH="$TMP/root:$PATH" make demo MAKEFLAGS=-j2 >"$TMP/demo.out" 2>&1)
rc=$?
same "make demo on a machine without the packages exits 0" 0 $rc
[ $rc -eq 0 ] || sed 's/^/# /' "$TMP/demo.out" | tail -n 20
ok "make demo called apt-get install for the missing build libraries" \
	grep -q 'apt-get install .*libtracecmd-dev.*libsqlite3-dev' "$TMP/root/state/apt.log"
ok "make demo ran apt-get update before installing" grep -q '^apt-get update' "$TMP/root/state/apt.log"
ok "make demo printed the report after installing" grep -q '^top tasks by divergent decisions' "$TMP/demo.out"
ok "make demo wrote the demo database" test -s "$CLEAN/build/demo.db"
if grep -q 'missing library' "$TMP/demo.out"; then
	fail "make demo never reports a library missing once apt-get installed it" \
		"$(grep 'missing library' "$TMP/demo.out")"
else
	pass "make demo never reports a library missing once apt-get installed it"
fi

# 2. make check reaches make deps before any library check: with an apt-get
# that fails, the failure is apt-get's, not a Makefile that stops when read
fake_bin "$TMP/fails" 0
(cd "$CLEAN" && PATH="$TMP/fails:$PATH" APT_FAILS=1 make check >"$TMP/check.out" 2>&1)
rc=$?
ok "make check with apt-get failing exits non-zero" test $rc -ne 0
ok "make check called apt-get install first" grep -q 'apt-get install' "$TMP/fails/state/apt.log"
ok "make check did not stop at the Makefile's reading" sh -c "! grep -q '^Makefile:.*missing library' '$TMP/check.out'"

# 3. not root, build libraries missing: one message naming the packages and
# the command to run as root, before anything is compiled
fake_bin "$TMP/user" 1000
rm -rf "$CLEAN/build"
(cd "$CLEAN" && PATH="$TMP/user:$PATH" make demo >"$TMP/user.out" 2>&1)
rc=$?
ok "not root and libraries missing: make demo fails" test $rc -ne 0
ok "not root: the message names the missing package" grep -q 'missing Debian packages:.*libtracecmd-dev' "$TMP/user.out"
ok "not root: the message says what to run as root" grep -q 'run as root: apt-get install' "$TMP/user.out"
ok "not root: apt-get was not called" test ! -e "$TMP/user/state/apt.log"
ok "not root: nothing was compiled" test ! -e "$CLEAN/build/src/main.o"

# 4. not root, only test tools missing: deps says which and goes on, so the
# build runs and the tests that need the tools skip
fake_bin "$TMP/tools" 1000
have="gcc make pkg-config libtraceevent-dev libtracefs-dev libtracecmd-dev libbabeltrace2-dev libsqlite3-dev libncurses-dev"
touch "$TMP/tools/state/libs"
cat >"$TMP/tools/pkg-config" <<EOF
#!/bin/sh
exec "$REAL_PKGCONFIG" "\$@"
EOF
(cd "$CLEAN" && PATH="$TMP/tools:$PATH" HAVE_PKGS="$have" sh scripts/install-deps.sh \
	>"$TMP/tools.out" 2>&1)
same "not root, test tools missing: make deps goes on" 0 $?
ok "not root, test tools missing: it names them and says the tests skip" \
	grep -q 'missing test tools: trace-cmd.*the tests that need them say SKIP' "$TMP/tools.out"
ok "not root, test tools missing: apt-get was not called" test ! -e "$TMP/tools/state/apt.log"

test_done
