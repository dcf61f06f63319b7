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
	"schedreplay: unknown command 'frobnicate', expected one of: record replay simulate report tui sql export info help" \
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
ok "help lists every command" sh -c "for c in record replay simulate report tui sql export info help; do grep -q \"^   \$c \" '$TMP/o' || exit 1; done"
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
	else
		skip "schedreplay-$cmd(1) renders without warnings" "man is not installed (Debian man-db; make deps)"
	fi
done
# options after the arguments, as getopt allows elsewhere (record keeps its
# command's options for the command)
F=$TOP/tests/fixtures/tracedat/numa/numa-6.1-forks
ok "replay: options after TRACE" "$SR" replay "$F.dat" -q -t "$F.topo" -o "$TMP/late.db"
same "sql: options after DB and QUERY" 4980 \
	"$("$SR" sql "$TMP/late.db" "SELECT count(*) AS n FROM decision" -F csv | tail -n 1)"
ok "info: --json after TRACE" sh -c "'$SR' info '$F.dat' --json | grep -q '\"events\"'"
same "after --, an argument that looks like an option is an argument" \
	"schedreplay: cannot open '-x': No such file or directory" \
	"$("$SR" info -- -x 2>&1 | head -n 1)"
# every built command has a page
for c in record info replay simulate report sql tui; do
	ok "$c has a man page" test -f "$TOP/man/schedreplay-$c.1"
done
# every option of a command's --help is in its man page's OPTIONS, and the
# reverse: long and short forms, from the option lines and the .TP tags
help_opts() {
	"$SR" "$1" --help | sed -n '/^options:/,/^examples:/p' |
		grep -oE '^ +(-[A-Za-z0-9], )?--[a-z][a-z0-9-]*|^ +-[A-Za-z0-9]\b' |
		grep -oE -- '--?[A-Za-z0-9][a-z0-9-]*' | sort -u
}
man_opts() {
	awk '/^\.SH OPTIONS/ {on = 1; next} /^\.SH/ {on = 0} on && prev == ".TP" {print} {prev = $0}' "$1" |
		sed 's/\\-/-/g' | grep -oE -- '(^|[ "])--?[A-Za-z0-9][a-z0-9-]*' |
		grep -oE -- '--?[A-Za-z0-9][a-z0-9-]*' | sort -u
}
for c in record info replay simulate report sql tui; do
	h=$(help_opts "$c")
	m=$(man_opts "$TOP/man/schedreplay-$c.1")
	ok "$c --help lists options" test -n "$h"
	same "every option of '$c --help' is in schedreplay-$c(1)" "" "$(comm -23 <(echo "$h") <(echo "$m"))"
	same "every option of schedreplay-$c(1) is in '$c --help'" "" "$(comm -13 <(echo "$h") <(echo "$m"))"
	ok "$c --help has examples" sh -c "'$SR' $c --help | sed -n '/^examples:/,\$p' | grep -q '^   schedreplay $c '"
done
# every decision kind the code knows is in the db(5) and tui(1) pages
kinds=$(sed -n '/dec_names\[SR_DEC__COUNT\]/,/^};/p' "$TOP/replay/state.c" | grep -oE '"[a-z_]+"' | tr -d '"')
same "the code knows six decision kinds" 6 "$(echo "$kinds" | wc -l)"
for k in $kinds; do
	ok "schedreplay-db(5) names decision kind $k" grep -qE "^\.[BIR]+ +(\\( )?$k\b" "$TOP/man/schedreplay-db.5"
	ok "schedreplay-tui(1) names decision kind $k" grep -qE "^\.[BIR]+ +(\\( )?$k\b" "$TOP/man/schedreplay-tui.1"
done
# record's buffer range: code, --help and man page agree
same "record -b: the range --help gives is the one the code takes" \
	"schedreplay: record: invalid buffer size '63' (KB per cpu, 64 to 4194304)" \
	"$("$SR" record -b 63 2>&1 | head -n 1)"
ok "record --help says 64 to 4194304" sh -c "'$SR' record --help | grep -q 'in KB, 64 to 4194304'"
ok "schedreplay-record(1) says 64 to 4194304" grep -q 'in KB (64 to 4194304)' "$TOP/man/schedreplay-record.1"
test_done
