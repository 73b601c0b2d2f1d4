# `smcr-sim bench core` (two cores over an in-memory loopback): a small run completes every transfer and prints its figures.
set -eu
. tests/lib.sh

out=$("$SMCR_SIM" bench core --conns 4 --mib 2 --verify)
echo "$out" | grep -Eq 'payload delivered: +8\.0 MiB of 8\.0 MiB'
echo "$out" | grep -Eq 'payload bytes/s: +[0-9.]+ GB/s'
echo "$out" | grep -Eq 'protocol events/s: +[0-9.]+ M'
echo "$out" | grep -q "byte sums match on every connection"
expect_exit 2 "$SMCR_SIM" bench core --conns 0
expect_exit 2 "$SMCR_SIM" bench core --no-such-option
echo "bench core ok"
