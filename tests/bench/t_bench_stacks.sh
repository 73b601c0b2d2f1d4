# bench stacks: many stack pairs run request/response over TCP; every pair verifies its
# bytes, and the same seed gives the same fingerprint.
set -eu
. tests/lib.sh

expect_exit 2 "$SMCR_SIM" bench stacks --pairs=0
expect_exit 2 "$SMCR_SIM" bench stacks extra-argument
out=$("$SMCR_SIM" bench stacks -p 50 -n 5 -b 2 -r 2)
echo "$out" | grep -q 'pairs verified: *50 of 50' || fail "not every pair verified: $out"
echo "$out" | grep -q 'bulk verified: *2097152 bytes' || fail "bulk not verified: $out"
fp1=$(echo "$out" | sed -n 's/.*fingerprint: *//p')
fp2=$("$SMCR_SIM" bench stacks -p 50 -n 5 -b 2 -r 1 | sed -n 's/.*fingerprint: *//p')
fp3=$("$SMCR_SIM" bench stacks -p 50 -n 5 -b 2 -r 1 -s 2 | sed -n 's/.*fingerprint: *//p')
[ -n "$fp1" ] && [ "$fp1" = "$fp2" ] || fail "same seed gave fingerprints '$fp1' and '$fp2'"
[ "$fp1" != "$fp3" ] || fail "different seeds gave the same fingerprint $fp1"
echo "bench stacks ok"
