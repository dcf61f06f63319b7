#!/bin/bash
# Bash completion (completion/schedreplay.bash): sourced in bash, the
# completion function is called with COMP_WORDS/COMP_CWORD set as bash sets
# them, and COMPREPLY is held to what the program lists (commands, options,
# models, patch pairs, canned queries and their parameters).
. "$(dirname "$0")/test-lib.sh"

command -v bash >/dev/null || skip_all "no bash"
COMP=$TOP/completion/schedreplay.bash
# complete WORD...: the completions of the last word, one line, sorted
complete_words() {
	bash -c '
		. "$1" || exit 1
		shift
		COMP_WORDS=("$@")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		_schedreplay
		printf "%s\n" "${COMPREPLY[@]}" | sort | paste -sd" "' sh "$COMP" "$SR" "$@"
}
cd "$TMP" || exit 1
ok "the script loads and registers itself" bash -c ". '$COMP' && complete -p schedreplay | grep -q '_schedreplay schedreplay'"
same "commands" "export help info record replay report simulate sql tui" "$(complete_words "")"
same "a command prefix" "record replay report" "$(complete_words re)"
same "replay's options come from its --help" \
	"$("$SR" replay --help | grep -oE -- '--[a-z][a-z-]*' | sort -u | paste -sd' ')" \
	"$(complete_words replay --)"
same "models from --list-models" "mainline v4.15" "$(complete_words replay -m "")"
same "simulate's options come from its --help" \
	"$("$SR" simulate --help | grep -oE -- '--[a-z][a-z-]*' | sort -u | paste -sd' ')" \
	"$(complete_words simulate --)"
same "simulate: models after -m" "mainline v4.15" "$(complete_words simulate -m "")"
same "simulate: --fair values" "cfs eevdf eevdf-delay" "$(complete_words simulate --fair "")"
same "simulate: patch pairs after -p" \
	"$("$SR" replay --list-patches | awk '/^[^ ]/ {print $1}' | sort | paste -sd' ')" \
	"$(complete_words simulate -p "")"
same "patch pairs from --list-patches" "exit-sync-mel exit-sync-peterz" \
	"$(complete_words replay -o x.db --patch exit)"
same "every patch pair" "$("$SR" replay --list-patches | awk '/^[^ ]/ {print $1}' | sort | paste -sd' ')" \
	"$(complete_words replay -p "")"
same "canned queries from sql --list" "$(ls "$TOP"/reports/*.sql | xargs -n1 basename | sed 's/\.sql$//' | paste -sd' ')" \
	"$(complete_words sql -Q "")"
same "the parameters of the canned query on the line" "comm= limit= patch= run=" \
	"$(complete_words sql -Q top-tasks run.db -P "")"
same "sql formats" "csv json table" "$(complete_words sql -F "")"
same "info formats" "ctf text tracedat" "$(complete_words info --format "")"
same "--snapshots values" "all divergent none" "$(complete_words replay --snapshots "")"
same "tui views" "sql summary" "$(complete_words tui --dump s)"
same "help takes a command" "record replay report" "$(complete_words help re)"
touch trace.dat run.db
same "a file where a TRACE goes" "trace.dat" "$(complete_words replay -q tr)"
same "a file after -o" "run.db" "$(complete_words replay -o ru)"
same "simulate: a file after --export-demand" "trace.dat" "$(complete_words simulate --export-demand tr)"
same "simulate: nothing after --runs" "" "$(complete_words simulate --runs "")"
same "nothing after an option that takes a number" "" "$(complete_words report --top "")"
# a --patch-file earlier on the line adds its pairs
if command -v cc >/dev/null && cc -shared -fPIC -I"$TOP/include" -o "$TMP/stay.so" \
	"$FIX/patch-file/stay-on-prev.c" 2>/dev/null; then
	same "pairs of a --patch-file on the line" "stay-on-prev" \
		"$(complete_words replay --patch-file "$TMP/stay.so" -p st)"
else
	skip "pairs of a --patch-file on the line" "no C compiler"
fi
# make install puts it where bash-completion looks for it
if make -s -C "$TOP" install DESTDIR="$TMP/root" PREFIX=/usr >/dev/null 2>"$TMP/e"; then
	ok "make install installs the completion" \
		cmp -s "$COMP" "$TMP/root/usr/share/bash-completion/completions/schedreplay"
else
	fail "make install" "$(cat "$TMP/e")"
fi
test_done
