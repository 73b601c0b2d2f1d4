# `smcr-sim bench protocol`: runs (small), meets its own expectations, prints its figures,
# and is deterministic (same fingerprint twice).
set -eu
. tests/lib.sh

out1=$("$SMCR_SIM" bench protocol --conns 8 --bytes 1M)
out2=$("$SMCR_SIM" bench protocol --conns 8 --bytes 1M)
echo "$out1"
echo "$out1" | grep -q 'engine events .*M/s wall' || fail "no event rate"
echo "$out1" | grep -q 'payload .* 8388608 bytes .*GB/s wall' || fail "no payload rate"
echo "$out1" | grep -q 'expectations *met' || fail "expectations not met"
fp1=$(echo "$out1" | grep fingerprint)
fp2=$(echo "$out2" | grep fingerprint)
[ "$fp1" = "$fp2" ] || fail "fingerprints differ: $fp1 / $fp2"
expect_exit 2 "$SMCR_SIM" bench protocol --mtu 3000
"$SMCR_SIM" bench --help | grep -q protocol
echo "bench protocol ok"
