# Inputs are told by what they hold, not by their names: msc draws a scenario of any name
# and a capture from standard input; run, check and report say a capture is a capture and
# point to replay (one line, not fifty lexer errors); replay says a scenario is text; and a
# file that makes fifty errors ends with "too many errors; stopped after 50", as
# docs/scenario-format.md says.
set -eu
. tests/lib.sh
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
C=tests/support/svg-count
CAP=traces/trace-two-stacks.pcapng

# msc: a scenario named .txt, a scenario and a capture on standard input
cp scenarios/two-stacks.scn "$TMP/two.txt"
"$SMCR_SIM" msc "$TMP/two.txt" -o "$TMP/a.svg" || fail "msc two.txt (a scenario): exit $?"
$C "$TMP/a.svg" head | grep -qx 'head 2' || fail "msc two.txt: not the two stacks' lifelines"
"$SMCR_SIM" msc - <"$TMP/two.txt" >"$TMP/b.svg" || fail "msc - <scenario: exit $?"
$C "$TMP/b.svg" head | grep -qx 'head 2' || fail "msc - <scenario: not the two stacks' lifelines"
"$SMCR_SIM" msc - <"$CAP" >"$TMP/c.svg" 2>"$TMP/err" || fail "msc - <capture: exit $? ($(head -3 "$TMP/err"))"
$C "$TMP/c.svg" >/dev/null || fail "msc - <capture: not well-formed SVG"
$C "$TMP/c.svg" | grep -qx '192.168.10.1' || fail "msc - <capture: not the capture's hosts as lifelines"
[ "$($C "$TMP/c.svg" clc | sed -n 's/^clc //p')" -gt 1 ] || fail "msc - <capture: no CLC arrow"
cp "$CAP" "$TMP/capture.scn" # a capture with a scenario's name is still a capture
"$SMCR_SIM" msc "$TMP/capture.scn" -o "$TMP/d.svg" || fail "msc capture.scn (a capture): exit $?"
$C "$TMP/d.svg" | grep -qx '192.168.10.1' || fail "msc capture.scn: not drawn as a capture"

# run, check, report: a capture is not a scenario; one line says what to do
for cmd in run check report; do
	set +e
	"$SMCR_SIM" $cmd "$CAP" >/dev/null 2>"$TMP/err"
	rc=$?
	set -e
	[ $rc = 2 ] || fail "$cmd of a capture: exit $rc"
	[ "$(wc -l <"$TMP/err")" = 1 ] || fail "$cmd of a capture: $(wc -l <"$TMP/err") lines on stderr, expected one"
	grep -q "^$CAP: this is a pcapng capture, not a scenario; .*smcr-sim replay $CAP" "$TMP/err" ||
		fail "$cmd of a capture: $(cat "$TMP/err")"
done
set +e
"$SMCR_SIM" run - <"$CAP" >/dev/null 2>"$TMP/err"
rc=$?
set -e
[ $rc = 2 ] || fail "run - <capture: exit $rc"
grep -q '^<stdin>: this is a pcapng capture, not a scenario; .*`smcr-sim replay -`' "$TMP/err" || fail "run - <capture: $(cat "$TMP/err")"
"$SMCR_SIM" replay - <"$CAP" | grep -q 'SMC-R NETSTAT DEVLINKS SMC REPORT\|# smcr linkgroup' || fail "replay - <capture: no report"

# replay of a scenario: it is text, run it
expect_exit 2 "$SMCR_SIM" replay scenarios/two-stacks.scn
expect_stderr 'it is text, with no pcap or pcapng magic number at its start; a scenario is run by `smcr-sim run scenarios/two-stacks.scn`' \
	"$SMCR_SIM" replay scenarios/two-stacks.scn

# fifty errors, then the line the format doc promises
i=0
while [ $i -lt 70 ]; do printf 'switch S\001\n'; i=$((i + 1)); done >"$TMP/ctl.scn"
set +e
"$SMCR_SIM" check "$TMP/ctl.scn" >/dev/null 2>"$TMP/err"
set -e
[ "$(grep -c 'control character' "$TMP/err")" = 50 ] || fail "check of 70 bad lines: not 50 errors"
tail -1 "$TMP/err" | grep -qx "$TMP/ctl.scn: too many errors; stopped after 50" || fail "check of 70 bad lines: ends with '$(tail -1 "$TMP/err")'"
echo "inputs by content ok"
