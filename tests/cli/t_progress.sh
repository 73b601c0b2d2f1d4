# The progress line of a long run: on a terminal it shows the virtual time, the percent of
# the scenario's end, the engine's events per second and an ETA; it is never written when
# stderr is not a terminal (a pipe, a file: captured output stays byte-stable), and -q
# silences it. The terminal is script(1)'s pseudo-terminal; scale-10k.scn at 2,500 stacks
# runs long enough (5 s or more of CPU) for lines to appear after the first 2 s.
# slow test: about 12 s
set -eu
. tests/lib.sh
command -v script >/dev/null || { echo "script (util-linux) is not installed: no terminal to test on"; exit 77; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
scn="--set LEAVES=10 scenarios/scale-10k.scn"
t0=$(date +%s)
script -qefc "$SMCR_SIM run $scn >/dev/null" /dev/null >"$TMP/tty" 2>&1 </dev/null || true
t1=$(date +%s)
# -q on a terminal, and stderr to a file under a terminal: both run at once
script -qefc "$SMCR_SIM run -q $scn >/dev/null" /dev/null >"$TMP/quiet" 2>&1 </dev/null &
q=$!
script -qefc "$SMCR_SIM run $scn >/dev/null 2>$TMP/file" /dev/null >"$TMP/tty2" 2>&1 </dev/null &
f=$!
wait $q || true
wait $f || true
[ ! -s "$TMP/quiet" ] || fail "-q still wrote on the terminal: $(cat -v "$TMP/quiet" | head -3)"
[ ! -s "$TMP/file" ] || fail "a progress line went to a file: $(cat -v "$TMP/file" | head -3)"
if [ $((t1 - t0)) -lt 3 ] && ! grep -q virtual "$TMP/tty"; then
	echo "the run took under 3 s: too fast for a progress line here"
	exit 77
fi
line=$(tr '\r' '\n' <"$TMP/tty" | grep 'virtual' | head -1)
echo "$line" | grep -Eq '^  virtual [0-9]+\.[0-9]{3} s of 10\.000 s \([0-9]+%\), [0-9]+\.[0-9]{2} M events/s' ||
	fail "progress line without virtual time, percent or events/s: $(echo "$line" | cat -v)"
tr '\r' '\n' <"$TMP/tty" | grep -q 'ETA [0-9]' || fail "no ETA in: $(cat -v "$TMP/tty")"
tr '\r' '\n' <"$TMP/tty" | grep -q 'virtual 10\.000 s of 10\.000 s (100%)' || fail "no final line at 100%"
echo "progress ok"
