#!/bin/bash
# schedreplay-models(7): every section the source's comments cite (§N) is a
# numbered section of the page, every model and patch pair is described
# there, the page formats cleanly, and make install puts it in man7.
. "$(dirname "$0")/test-lib.sh"

PAGE=$TOP/man/schedreplay-models.7

ok "schedreplay-models(7) exists" test -f "$PAGE"

# the numbered section headings: .SH "5. TITLE" or .SS "5.1 TITLE"
page_sections() {
	sed -n 's/^\.S[HS] "\{0,1\}\([0-9][0-9.]*[0-9]\)\.\{0,1\} .*/\1/p; s/^\.S[HS] "\{0,1\}\([0-9]\)\. .*/\1/p' "$1" | sort -u
}

# every §N (N = 5, 5.1, 5.1.2) cited in the files under the given directories
cited_sections() {
	grep -rhoE '§[0-9]+(\.[0-9]+)*' "$@" | sed 's/^§//' | sort -u
}

# the cited numbers the page lacks, one per line (nothing: all present)
missing_sections() {
	local page=$1
	shift
	comm -23 <(cited_sections "$@") <(page_sections "$page")
}

ok "the source cites numbered sections (the check has something to check)" \
	test -n "$(cited_sections "$TOP/replay" "$TOP/src" "$TOP/include")"
m=$(missing_sections "$PAGE" "$TOP/replay" "$TOP/src" "$TOP/include")
same "every §N cited in replay/, src/ and include/ is a section of schedreplay-models(7)" "" "$m"

# the check itself: a citation of a section the page does not have is caught
mkdir -p "$TMP/cite"
printf '/* see schedreplay-models(7) §5.6, §99.1 and §4 */\n' >"$TMP/cite/x.c"
same "a cited section the page lacks is reported" "99.1" \
	"$(missing_sections "$PAGE" "$TMP/cite")"
# a subsection does not stand for its section: .SS "5.1" is no §5
printf '.SH NAME\nx\n.SS "5.1 select_task_rq_fair()"\n' >"$TMP/p.7"
printf '/* §5 */\n' >"$TMP/cite/x.c"
same "a subsection is not taken for its section" "5" "$(missing_sections "$TMP/p.7" "$TMP/cite")"

# every model and every patch pair is described by name
names=$(sed 's/\\//g' "$PAGE")
for m in $("$SR" replay --list-models | awk '{ print $1 }'); do
	ok "schedreplay-models(7) describes model $m" grep -qE "^\.BR? +$m( |$)" <<<"$names"
done
for p in $("$SR" replay --list-patches | awk '/^[a-z]/ { print $1 }'); do
	ok "schedreplay-models(7) describes patch pair $p" grep -qE "^\.BR? +$p( |,|$)" <<<"$names"
done

if command -v man >/dev/null; then
	ok "schedreplay-models(7) formats without warnings" \
		sh -c "MANWIDTH=80 man --warnings -l '$PAGE' 2>&1 >/dev/null | (! grep .)"
else
	skip "schedreplay-models(7) formats without warnings" "man is not installed (Debian man-db; make deps)"
fi
for p in "$TOP"/man/schedreplay.1 "$TOP"/man/schedreplay-replay.1; do
	ok "$(basename "$p") refers to schedreplay-models(7)" \
		grep -q '^\.BR schedreplay\\-models (7)' "$p"
done

ok "make install puts the page in man7" \
	sh -c "make -s -C '$TOP' install DESTDIR='$TMP/inst' PREFIX=/usr >/dev/null &&
	       cmp '$PAGE' '$TMP/inst/usr/share/man/man7/schedreplay-models.7'"

test_done
