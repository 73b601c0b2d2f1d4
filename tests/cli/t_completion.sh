# Bash completion (tools/smcr-sim.bash), driven as bash drives it: COMP_WORDS and COMP_CWORD
# set, the function called, COMPREPLY read. Commands, subcommands and per-command options
# come from the binary's --help; enumerated values and files by kind (*.scn, *.pcap,
# *.pcapng, *.json) from the script.
set -eu
. tests/lib.sh

command -v bash >/dev/null || { echo "bash is not installed"; exit 77; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$TMP/w/sub"
touch "$TMP/w/a.scn" "$TMP/w/b.pcap" "$TMP/w/c.pcapng" "$TMP/w/d.json" "$TMP/w/e.txt"
cp tools/smcr-sim.bash "$TMP/"
cat >"$TMP/drive.bash" <<'EOS'
. "$1"
shift
COMP_WORDS=("$@")
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
COMPREPLY=()
_smcr_sim
printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ' | sed 's/ $//'
EOS
c() { (cd "$TMP/w" && bash "$TMP/drive.bash" "$TMP/smcr-sim.bash" "$SMCR_SIM" "$@"); }
want() { # expected, words...
	w=$1; shift
	got=$(c "$@")
	[ "$got" = "$w" ] || fail "completing '$*': got '$got', expected '$w'"
}
bash -c ". '$TMP/smcr-sim.bash' && complete -p smcr-sim" | grep -q -- '-F _smcr_sim smcr-sim' || fail "complete -p smcr-sim"
want "--help --version applicability bench check compare debug diff interop msc node replay report run swarm sweep" ""
want "replay report run" r
want "--help --version" --
want "core" bench co
want "fabric-pcap frames" debug f
want "--buffer --bytes" bench core --b
want "--format" run --form
want "--format" replay --form
want "json text" run -f ""
want "json netstat smc text" replay --format ""
want "auto netstat smc smc_chk" report --report ""
want "decode redrive timing" replay --mode ""
want "both ingress" run --pcap-taps ""
want "both one split" bench realhw --mode ""
want "bulk rr" bench tcp --mode ""
want "bulk rr" bench protocol --mode ""
want "" run --seed ""
want "a.scn sub" run ""
want "a.scn sub" check -v ""
want "a.scn sub" compare ""
want "json text" compare -f ""
want "b.pcap c.pcapng sub" replay ""
want "b.pcap c.pcapng sub" debug frames ""
want "d.json sub" diff ""
want "a.scn sub" replay --scenario ""
want "client server" interop ""
want "a.scn b.pcap c.pcapng sub" msc ""
want "all every= none notable" msc --cdc ""
want "csv jsonl" run --stats-format ""
# options are per command: run has --pcap, diff has none of it
c run --p | grep -q -- '--pcap-per-stack' || fail "run --p does not offer --pcap-per-stack"
[ -z "$(c diff --p)" ] || fail "diff --p offers $(c diff --p)"
c diff -- | grep -q -- '--ignore' || fail "diff -- does not offer --ignore"
# every option of every command's --help is offered
for cmd in run report check replay node interop diff msc; do
	for o in $("$SMCR_SIM" $cmd --help | sed -n 's/^  \(-[A-Za-z], \)\{0,1\}\(--[a-z0-9-]*\).*/\2/p'); do
		c "$cmd" -- | tr ' ' '\n' | grep -qx -- "$o" || fail "$cmd: $o is not offered"
	done
done
echo "completion ok"
