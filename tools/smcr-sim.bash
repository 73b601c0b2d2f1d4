# bash completion for smcr-sim (installed as share/bash-completion/completions/smcr-sim).
# Commands, subcommands and options come from the binary's own --help, so they cannot
# drift; the values of the enumerated options are listed here; files are completed by what
# a command reads: scenarios (*.scn), captures (*.pcap, *.pcapng), JSON (*.json).

# The --help of "smcr-sim WORDS…", cached per words for this shell.
_smcr_sim_help() {
	local bin=$1
	shift
	local key="$bin $*"
	if [[ "${_smcr_sim_help_key-}" != "$key" ]]; then
		_smcr_sim_help_text=$("$bin" "$@" --help 2>/dev/null)
		_smcr_sim_help_key=$key
	fi
	printf '%s\n' "$_smcr_sim_help_text"
}

# The commands a group's help lists ("  NAME  summary" after "Commands:" and the like).
_smcr_sim_commands() {
	_smcr_sim_help "$@" | sed -n '/^Commands:$/,/^$/p; /^Benchmarks:$/,/^$/p; /^Developer tools:$/,/^$/p' |
		sed -n 's/^  \([a-z][a-z-]*\)  .*/\1/p'
}

# Every option of a command: "-f" and "--format" of "  -f, --format=text|json  …".
_smcr_sim_options() {
	_smcr_sim_help "$@" | sed -n 's/^  \(-[A-Za-z?]\), \(--[A-Za-z0-9-]*\).*/\1 \2/p; s/^  \(--[A-Za-z0-9-]*\).*/\1/p'
}

# Does the option (long or short) take a value? ("--seed=N", "-f, --format=…")
_smcr_sim_takes_value() {
	local opt=$1
	shift
	_smcr_sim_help "$@" | grep -Eq -- "^  (-[A-Za-z], )?${opt}=|^  ${opt}, --[A-Za-z0-9-]+="
}

# Files ending in one of the suffixes, and directories to walk into.
_smcr_sim_files() {
	local cur=$1 ext f
	shift
	compopt -o filenames 2>/dev/null
	COMPREPLY=()
	while IFS= read -r f; do COMPREPLY+=("$f"); done < <(compgen -d -- "$cur")
	for ext in "$@"; do
		while IFS= read -r f; do COMPREPLY+=("$f"); done < <(compgen -f -X "!*.$ext" -- "$cur")
	done
}

_smcr_sim_words() {
	local f
	COMPREPLY=()
	while IFS= read -r f; do COMPREPLY+=("$f"); done < <(compgen -W "$1" -- "$2")
}

_smcr_sim() {
	local bin=${COMP_WORDS[0]} cur=${COMP_WORDS[COMP_CWORD]} prev=""
	[[ $COMP_CWORD -gt 0 ]] && prev=${COMP_WORDS[COMP_CWORD - 1]}
	local cmd="" sub="" i w
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		[[ $w == -* ]] && continue
		if [[ -z $cmd ]]; then
			cmd=$w
		elif [[ -z $sub && ($cmd == bench || $cmd == debug) ]]; then
			sub=$w
		fi
	done
	if [[ -z $cmd ]]; then
		_smcr_sim_words "$(_smcr_sim_commands "$bin") --help --version" "$cur"
		return
	fi
	if [[ ($cmd == bench || $cmd == debug) && -z $sub ]]; then
		_smcr_sim_words "$(_smcr_sim_commands "$bin" "$cmd") --help" "$cur"
		return
	fi
	local -a words=("$cmd")
	[[ -n $sub ]] && words+=("$sub")

	# the value of an option
	if [[ $prev == -* ]] && _smcr_sim_takes_value "$prev" "$bin" "${words[@]}"; then
		case "$cmd:$prev" in
		replay:--format | replay:-f) _smcr_sim_words "text json netstat smc" "$cur" ;;
		*:--format | *:-f) _smcr_sim_words "text json" "$cur" ;;
		replay:--report) _smcr_sim_words "netstat smc smc_chk" "$cur" ;;
		*:--report) _smcr_sim_words "netstat smc smc_chk auto" "$cur" ;;
		replay:--mode | replay:-m) _smcr_sim_words "decode timing redrive" "$cur" ;;
		bench:--mode | bench:-m)
			case $sub in
			realhw) _smcr_sim_words "one split both" "$cur" ;;
			tcp | protocol) _smcr_sim_words "bulk rr" "$cur" ;;
			*) COMPREPLY=() ;;
			esac
			;;
		replay:--side) _smcr_sim_words "client server" "$cur" ;;
		node:--app) _smcr_sim_words "bulk echo" "$cur" ;;
		*:--pcap-format) _smcr_sim_words "pcapng pcap" "$cur" ;;
		*:--pcap-taps) _smcr_sim_words "ingress both" "$cur" ;;
		*:--stats-format) _smcr_sim_words "csv jsonl" "$cur" ;;
		msc:--cdc) _smcr_sim_words "notable all none every=" "$cur" ;;
		*:--events-cdc) _smcr_sim_words "all none every=" "$cur" ;;
		debug:--roce) _smcr_sim_words "v1 v2 both" "$cur" ;;
		*:--roce) _smcr_sim_words "v1 v2" "$cur" ;;
		*:--scenario | *:-s) _smcr_sim_files "$cur" scn ;;
		*:--pcap) _smcr_sim_files "$cur" pcapng pcap ;;
		*:--base | *:-b) _smcr_sim_files "$cur" pcapng pcap ;;
		*:--pcap-per-stack)
			compopt -o filenames 2>/dev/null
			_smcr_sim_words "$(compgen -d -- "$cur")" "$cur"
			;;
		*) COMPREPLY=() ;;
		esac
		return
	fi
	if [[ $cur == -* ]]; then
		_smcr_sim_words "$(_smcr_sim_options "$bin" "${words[@]}")" "$cur"
		return
	fi
	# the operands
	case "$cmd${sub:+ $sub}" in
	run | report | check | compare) _smcr_sim_files "$cur" scn ;;
	replay | "debug frames" | "bench replay") _smcr_sim_files "$cur" pcapng pcap ;;
	"debug fabric-pcap") _smcr_sim_files "$cur" pcap ;;
	diff) _smcr_sim_files "$cur" json jsonl ;;
	msc) _smcr_sim_files "$cur" scn pcapng pcap ;;
	interop) _smcr_sim_words "client server" "$cur" ;;
	*) COMPREPLY=() ;;
	esac
}
complete -F _smcr_sim smcr-sim
