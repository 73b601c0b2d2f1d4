# Malformed input on the command line and in files that the other tests do not reach:
# every case exits 2 (or 1 for a damaged capture) with one message that names the option,
# file or line and what was expected; nothing crashes, hangs or grows without bound.
set -eu
. tests/lib.sh

S=scenarios/two-stacks.scn
TR=traces/trace-two-stacks.pcapng
TMP="$BUILD/bad-input"
rm -rf "$TMP" && mkdir -p "$TMP"

# expect_msg CODE MESSAGE CMD...: CMD exits CODE and its stderr is exactly MESSAGE
expect_msg() {
	want=$1 msg=$2; shift 2
	set +e; err=$(timeout 60 "$@" 2>&1 >/dev/null); got=$?; set -e
	[ "$got" = "$want" ] || fail "'$*' exited $got, expected $want (said: $err)"
	[ "$err" = "$msg" ] || fail "'$*' said:
$err
expected:
$msg"
}

# ---- options: the reason is given once, with what was expected -----------------------
expect_msg 2 "smcr-sim replay: --stall: bad duration '-1': expected a duration such as 10s, 250ms or 3us" \
	"$SMCR_SIM" replay --stall=-1 "$TR"
expect_msg 2 "smcr-sim replay: --stall: bad duration '1x': expected a unit ns, us, ms, s, m or h (such as 10s, 250ms or 5000ns)" \
	"$SMCR_SIM" replay --stall=1x "$TR"
expect_msg 2 "smcr-sim replay: bad --wait '0'; expected a duration over 0, such as 1s" \
	"$SMCR_SIM" replay -m redrive --wait=0 "$TR"
expect_msg 2 "smcr-sim replay: bad --wait: bad duration '-1': expected a duration such as 10s, 250ms or 3us" \
	"$SMCR_SIM" replay -m redrive --wait=-1 "$TR"
expect_msg 2 "smcr-sim replay: bad --seed '-1'; expected an integer 0..18446744073709551615" \
	"$SMCR_SIM" replay -m redrive --seed=-1 "$TR"
expect_msg 2 "smcr-sim replay: bad --end '0'; expected a duration over 0, such as 1s" \
	"$SMCR_SIM" replay -m timing -s "$S" --play=10.9.9.9 --end=0 "$TR"
expect_msg 2 "smcr-sim replay: bad --seed '18446744073709551616'; expected an integer 0..18446744073709551615" \
	"$SMCR_SIM" replay -m timing -s "$S" --play=10.9.9.9 --seed=18446744073709551616 "$TR"

# ---- scenarios -------------------------------------------------------------------------
# a parameter whose default uses itself: an error, not a scenario without what uses it
printf 'param N={N}\nswitch S{N}\n' >"$TMP/self.scn"
expect_msg 2 "$TMP/self.scn:1:10: parameter 'N' is used in its own default; expected a default of values and parameters defined above it" \
	"$SMCR_SIM" check "$TMP/self.scn"

echo "bad input ok"
