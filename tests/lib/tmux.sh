# The TUI driven in a private tmux server (t7000, t7100): ". tests/lib/tmux.sh",
# then "tmux_setup NAME".  Needs tests/test-lib.sh's $TMP.

# tmux_setup NAME: tm runs tmux on the socket NAME-PID, whose server ends
# with the test (with $TMP, as test-lib.sh's own trap would remove it).
# A session "keep" holds the server up between the tests' sessions: when
# the last session is killed the server exits, and a new-session sent while
# it is exiting fails ("server exited unexpectedly", seen under load)
# Return: non-zero, with the reason in $TMUX_WHY, when tmux cannot start a
# session here (no /dev/pts in a chroot or container: "fork failed: No such
# device"), so that the caller skips rather than waits 60 s at every screen
tmux_setup() {
	SOCK=$1-$$
	trap 'tm kill-server 2>/dev/null; rm -rf "$TMP"' EXIT
	if ! TMUX_WHY=$(tm new-session -d -s keep -x 20 -y 5 "sleep 86400" 2>&1); then
		TMUX_WHY="tmux cannot start a session: ${TMUX_WHY:-no reason given}"
		return 1
	fi
}

tm() {
	tmux -L "$SOCK" "$@"
}

# wait_for PATTERN: poll the screen of session t.  Waits end at the first
# sight of what they wait for; the bound (60 s) is only for a TUI that
# never gets there, and it is long because a loaded 2-core machine has
# taken over 20 s to bring up a first screen
wait_for() {
	local i
	for i in $(seq 600); do
		tm capture-pane -p -J -t t >"$TMP/screen" 2>/dev/null
		grep -q -- "$1" "$TMP/screen" && return 0
		sleep 0.1
	done
	return 1
}
