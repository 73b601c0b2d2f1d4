# `smcr-sim bench tcp` (two stacks on one wire, the ns-3 PointToPoint shape): option handling,
# a small bulk and a small request/response run that check every byte and print their
# figures and machine-readable result line, and the same seed giving the same fingerprint.
set -eu
. tests/lib.sh

expect_exit 2 "$SMCR_SIM" bench tcp --mode nope
expect_stderr "not bulk or rr" "$SMCR_SIM" bench tcp --mode nope
expect_exit 2 "$SMCR_SIM" bench tcp --rate 0
expect_exit 2 "$SMCR_SIM" bench tcp --rate fast
expect_exit 2 "$SMCR_SIM" bench tcp --latency soon
expect_exit 2 "$SMCR_SIM" bench tcp --mode rr --conns 0
expect_exit 2 "$SMCR_SIM" bench tcp --mtu 100
expect_exit 2 "$SMCR_SIM" bench tcp extra-argument
"$SMCR_SIM" bench tcp --help | grep -q -- '--latency'
"$SMCR_SIM" bench --help | grep -q '^  tcp '

out=$("$SMCR_SIM" bench tcp --bytes 2M --rate 10Gbps --latency 2us -r 2)
echo "$out"
echo "$out" | grep -q 'bulk, 1 connection x 2097152 bytes over one 10 Gb/s wire, latency 2000 ns' || fail "no header"
echo "$out" | grep -Eq 'payload verified: +2097152 bytes \([0-9.]+ GB/s wall\)' || fail "bulk not verified"
echo "$out" | grep -Eq '^result: work=tcp-bulk who=smcr-sim wall_s=[0-9.]+ rate=[0-9.e+]+ unit=bytes/s cpu_s=[0-9.]+ bytes=2097152 events=[0-9]+$' ||
	fail "no result line"
fp1=$(echo "$out" | sed -n 's/.*fingerprint: *//p')
fp2=$("$SMCR_SIM" bench tcp --bytes 2M --rate 10Gbps --latency 2us | sed -n 's/.*fingerprint: *//p')
fp3=$("$SMCR_SIM" bench tcp --bytes 2M --rate 25Gbps --latency 2us | sed -n 's/.*fingerprint: *//p')
[ -n "$fp1" ] && [ "$fp1" = "$fp2" ] || fail "same run gave fingerprints '$fp1' and '$fp2'"
[ "$fp1" != "$fp3" ] || fail "10 and 25 Gb/s gave the same fingerprint"
# the wire's rate is real: 2 MiB at 1 Gb/s take more than 16.7 ms of virtual time, and
# the transfer runs below the wire's rate
slow=$("$SMCR_SIM" bench tcp --bytes 2M --rate 1Gbps | sed -n 's/.*transfer (virtual): *\([0-9.]*\) s (\([0-9.]*\) Gb\/s.*/\1 \2/p')
[ -n "$slow" ] || fail "no virtual transfer time"
echo "$slow" | awk '{ exit !($1 > 0.0167 && $2 < 1.0 && $2 > 0.5) }' || fail "2 MiB at 1 Gb/s: $slow (s, Gb/s)"

out=$("$SMCR_SIM" bench tcp --mode rr --conns 8 --count 50 --size 100)
echo "$out"
echo "$out" | grep -q 'rr, 8 connections x 50 transactions of 100 B' || fail "no rr header"
echo "$out" | grep -Eq 'transactions: +400 \([0-9.]+ k/s wall, [0-9.]+ events each\)' || fail "not 400 transactions"
echo "$out" | grep -q 'connections verified: 8 of 8' || fail "not every connection verified"
echo "$out" | grep -Eq '^result: work=tcp-rr who=smcr-sim .* unit=transactions/s cpu_s=[0-9.]+ transactions=400 events=[0-9]+ events_per_transaction=[0-9.]+$' ||
	fail "no rr result line"
echo "bench tcp ok"
