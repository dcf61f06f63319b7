#!/bin/bash
# The command line: dispatch, prefixes, errors, help, version, unknown
# commands, and that each --help synopsis matches its man page.
. "$(dirname "$0")/test-lib.sh"

"$SR" --version >"$TMP/v" 2>&1
same "--version exits 0" 0 $?
same "--version prints the VERSION file" "schedreplay $(cat "$TOP/VERSION")" "$(cat "$TMP/v")"

"$SR" >"$TMP/o" 2>"$TMP/e"
same "no command exits 2" 2 $?
ok "no command lists the commands" grep -q '^   info ' "$TMP/e"

"$SR" frobnicate >"$TMP/o" 2>"$TMP/e"
same "unknown command exits 2" 2 $?
same "unknown command lists the candidates" \
	"schedreplay: unknown command 'frobnicate', expected one of: record replay report tui sql info help" \
	"$(cat "$TMP/e")"

"$SR" re x >"$TMP/o" 2>"$TMP/e"
same "ambiguous prefix exits 2" 2 $?
same "ambiguous prefix names the matches" \
	"schedreplay: ambiguous command 're', could be: record replay report" "$(cat "$TMP/e")"

ok "unique prefix runs the command" "$SR" inf "$FIX/tracedat/succeed/lisa-sched_load.dat"


"$SR" info >"$TMP/o" 2>"$TMP/e"
same "info without TRACE exits 2" 2 $?
ok "info without TRACE says what is missing" grep -q 'expected one TRACE argument' "$TMP/e"
"$SR" info --bogus x >"$TMP/o" 2>"$TMP/e"
same "unknown option exits 2" 2 $?
ok "unknown option is named" grep -q "unknown or incomplete option '--bogus'" "$TMP/e"
"$SR" info -F nosuch "$FIX/text/succeed/lisa-trace.txt" >"$TMP/o" 2>"$TMP/e"
same "unknown -F reader exits 2" 2 $?

"$SR" --help >"$TMP/o" 2>&1
same "--help exits 0" 0 $?
ok "help lists every command" sh -c "for c in record replay report tui sql info help; do grep -q \"^   \$c \" '$TMP/o' || exit 1; done"
"$SR" help info >"$TMP/h1"
"$SR" info --help >"$TMP/h2"
ok "'help info' equals 'info --help'" cmp -s "$TMP/h1" "$TMP/h2"

# man page SYNOPSIS lines, roff escapes removed
man_synopsis() {
	sed -n '/^\.SH SYNOPSIS/,/^\.SH /p' "$1" | grep -v '^\.' | sed 's/\\-/-/g; s/\\f[BIRP]//g'
}
same "schedreplay(1) synopsis matches --help" \
	"$(man_synopsis "$TOP/man/schedreplay.1")" \
	"$("$SR" --help | sed -n 's/^usage: //p')"
for page in "$TOP"/man/schedreplay-*.1; do
	cmd=$(basename "$page" .1)
	cmd=${cmd#schedreplay-}
	same "schedreplay-$cmd(1) synopsis matches '$cmd --help'" \
		"$(man_synopsis "$page")" "$("$SR" "$cmd" --help | sed -n 's/^usage: //p')"
	if command -v man >/dev/null; then
		ok "schedreplay-$cmd(1) renders without warnings" \
			sh -c "MANWIDTH=80 man --warnings -l '$page' 2>&1 >/dev/null | (! grep .)"
	fi
done
# options after the arguments, as getopt allows elsewhere (record keeps its
# command's options for the command)
F=$TOP/tests/fixtures/tracedat/numa/numa-6.1-forks
ok "replay: options after TRACE" "$SR" replay "$F.dat" -q -t "$F.topo" -o "$TMP/late.db"
same "sql: options after DB and QUERY" 4982 \
	"$("$SR" sql "$TMP/late.db" "SELECT count(*) AS n FROM decision" -F csv | tail -n 1)"
ok "info: --json after TRACE" sh -c "'$SR' info '$F.dat' --json | grep -q '\"events\"'"
same "after --, an argument that looks like an option is an argument" \
	"schedreplay: cannot open '-x': No such file or directory" \
	"$("$SR" info -- -x 2>&1 | head -n 1)"
# every built command has a page
for c in record info replay report sql tui; do
	ok "$c has a man page" test -f "$TOP/man/schedreplay-$c.1"
done
test_done
