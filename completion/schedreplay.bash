# bash completion for schedreplay(1): commands, options, and the values the
# program itself lists at completion time (models, patch pairs, canned
# queries), so that the completion never drifts from the binary.
# Installed as $(PREFIX)/share/bash-completion/completions/schedreplay;
# to try it from the source tree: . completion/schedreplay.bash

# the first word of the lines of "schedreplay ARGS..." that start a column 0 entry
_schedreplay_names()
{
	"${_schedreplay_bin:-schedreplay}" "$@" 2>/dev/null | awk '/^[^ \t]/ {print $1}'
}

# the commands, from the list --help prints
_schedreplay_commands()
{
	"${_schedreplay_bin:-schedreplay}" --help 2>/dev/null |
		awk '/^commands:/ {on = 1; next} on && /^   [a-z]/ {print $1}'
}

# the options of a command, from its --help
_schedreplay_options()
{
	"${_schedreplay_bin:-schedreplay}" "$1" --help 2>/dev/null |
		sed -n '/^options:/,/^examples:/p' |
		grep -oE -- '(^| )--?[A-Za-z0-9][a-z0-9-]*' | tr -d ' '
}

_schedreplay_files()
{
	local IFS=$'\n'
	COMPREPLY=($(compgen -f -- "$1"))
	compopt -o filenames 2>/dev/null
}

_schedreplay()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev= cmd= i w
	local _schedreplay_bin=${COMP_WORDS[0]}
	local -a extra=()

	COMPREPLY=()
	((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		if [[ -z $cmd && $w != -* ]]; then
			cmd=$w
		elif [[ $cmd == replay && ${COMP_WORDS[i - 1]} == --patch-file ]]; then
			extra+=(--patch-file "$w")
		fi
	done
	if [[ -z $cmd ]]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "--help --version" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$(_schedreplay_commands)" -- "$cur"))
		fi
		return 0
	fi

	# the value of the option before the cursor
	case $cmd:$prev in
	replay:-m | replay:--model | simulate:-m | simulate:--model)
		COMPREPLY=($(compgen -W "$(_schedreplay_names replay --list-models)" -- "$cur"))
		return 0 ;;
	simulate:--fair)
		COMPREPLY=($(compgen -W "cfs eevdf eevdf-delay" -- "$cur"))
		return 0 ;;
	simulate:-p | simulate:--patch)
		COMPREPLY=($(compgen -W "$(_schedreplay_names replay --list-patches)" -- "$cur"))
		return 0 ;;
	replay:-p | replay:--patch)
		COMPREPLY=($(compgen -W "$(_schedreplay_names replay "${extra[@]}" --list-patches)" \
			-- "$cur"))
		return 0 ;;
	replay:--snapshots)
		COMPREPLY=($(compgen -W "divergent all none" -- "$cur"))
		return 0 ;;
	replay:-F | replay:--format | info:-F | info:--format)
		COMPREPLY=($(compgen -W "tracedat ctf text" -- "$cur"))
		return 0 ;;
	sql:-Q | sql:--query)
		COMPREPLY=($(compgen -W "$(_schedreplay_names sql --list)" -- "$cur"))
		return 0 ;;
	sql:-F | sql:--format)
		COMPREPLY=($(compgen -W "table csv json" -- "$cur"))
		return 0 ;;
	sql:-P | sql:--param)
		# the parameters of the canned query named earlier on the line
		for ((i = 1; i < COMP_CWORD - 1; i++)); do
			case ${COMP_WORDS[i]} in -Q | --query) w=${COMP_WORDS[i + 1]} ;; esac
		done
		[[ -n ${w:-} ]] && COMPREPLY=($(compgen -W "$("$_schedreplay_bin" sql --list 2>/dev/null |
			awk -v q="$w" '/^[^ ]/ {on = $1 == q; next} on {sub(/^ *:/, ""); print $1 "="}')" \
			-- "$cur"))
		compopt -o nospace 2>/dev/null
		return 0 ;;
	tui:--dump)
		COMPREPLY=($(compgen -W "list detail summary help sql csv" -- "$cur"))
		return 0 ;;
	tui:--sort)
		COMPREPLY=($(compgen -W "time task pid kind this prev actual original patched patch base" \
			-- "$cur"))
		return 0 ;;
	help:*)
		((COMP_CWORD == 2)) && COMPREPLY=($(compgen -W "$(_schedreplay_commands)" -- "$cur"))
		return 0 ;;
	export:-r | export:--run | export:--from | export:--to)
		return 0 ;;
	*:-o | *:--output | *:-t | *:--topology | *:--patch-file | *:-A | *:--attach | \
	*:--export-demand)
		_schedreplay_files "$cur"
		return 0 ;;
	*:-r | *:--run | *:--run2 | *:-n | *:--top | *:--reasons | *:--hz | *:--kernel | *:-B | *:--buffer | \
	*:-d | *:--duration | *:-b | *:-e | *:--event | *:--size | *:--filter | *:--select | *:--decision | \
	*:-P | *:--param | *:--runs | *:--seed)
		return 0 ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_schedreplay_options "$cmd")" -- "$cur"))
	else
		_schedreplay_files "$cur"
	fi
	return 0
}
complete -F _schedreplay schedreplay
