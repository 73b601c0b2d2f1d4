# The command line: help, version, errors with a non-zero exit, the scheduler benchmark.
set -eu
. tests/lib.sh

"$SMCR_SIM" --help | grep -q 'Usage: smcr-sim COMMAND'
"$SMCR_SIM" --version | grep -Eq '^smcr-sim [0-9]+\.[0-9]+\.[0-9]+$'
expect_exit 2 "$SMCR_SIM"
expect_exit 2 "$SMCR_SIM" no-such-command
expect_stderr 'unknown command' "$SMCR_SIM" no-such-command
expect_exit 2 "$SMCR_SIM" bench
expect_exit 2 "$SMCR_SIM" bench no-such-bench
expect_exit 2 "$SMCR_SIM" bench scheduler --no-such-option
expect_stderr 'Unknown option' "$SMCR_SIM" bench scheduler --no-such-option
expect_exit 2 "$SMCR_SIM" bench scheduler --population=abc
expect_exit 2 "$SMCR_SIM" bench scheduler --population=0
"$SMCR_SIM" bench scheduler --help | grep -q -- '--population'

# a small scheduler benchmark prints its figures, and the same seed gives the same fingerprint
out1=$("$SMCR_SIM" bench scheduler -p 1000 -t 20000 -r 2)
echo "$out1" | grep -Eq 'events/s .*[0-9.]+ M'
echo "$out1" | grep -Eq 'peak RSS'
fp1=$(echo "$out1" | sed -n 's/.*fingerprint: *//p')
fp2=$("$SMCR_SIM" bench scheduler -p 1000 -t 20000 -r 1 | sed -n 's/.*fingerprint: *//p')
fp3=$("$SMCR_SIM" bench scheduler -p 1000 -t 20000 -r 1 -s 2 | sed -n 's/.*fingerprint: *//p')
[ -n "$fp1" ] && [ "$fp1" = "$fp2" ] || fail "same seed gave fingerprints '$fp1' and '$fp2'"
[ "$fp1" != "$fp3" ] || fail "different seeds gave the same fingerprint $fp1"
echo "cli ok"
