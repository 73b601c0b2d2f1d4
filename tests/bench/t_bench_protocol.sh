# `smcr-sim bench protocol`: runs (small), meets its own expectations, prints its figures,
# and is deterministic (same fingerprint twice). Bulk mode prints the memcpy reference of
# the same payload in the same run, rr mode the same transactions over TCP; both print
# their machine-readable result lines.
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
for k in 4 64 256; do
	echo "$out1" | grep -Eq "memcpy +$k KiB blocks +[0-9.]+ GB/s +bench protocol / memcpy: [0-9.]+x" || fail "no memcpy $k KiB line"
	echo "$out1" | grep -Eq "^result: work=smc-bulk who=memcpy:$((k * 1024)) .* unit=bytes/s cpu_s=[0-9.]+ block=$((k * 1024)) bytes=8388608$" ||
		fail "no memcpy $k KiB result line"
done
echo "$out1" | grep -Eq '^result: work=smc-bulk who=smcr-sim wall_s=[0-9.]+ rate=[0-9.e+]+ unit=bytes/s cpu_s=[0-9.]+ bytes=8388608 events=[0-9]+$' ||
	fail "no bulk result line"
# a buffer of 64K is one of the reference blocks already: no third line
"$SMCR_SIM" bench protocol --conns 2 --bytes 256K --buffer 64K | grep -c 'KiB blocks' | grep -qx 2 || fail "64K buffer: not 2 memcpy lines"

out=$("$SMCR_SIM" bench protocol --mode rr --conns 4 --count 30 --size 100)
echo "$out"
echo "$out" | grep -q 'rr, 2 stacks, 1 link group, 4 connections x 30 transactions of 100 B' || fail "no rr header"
echo "$out" | grep -Eq 'transactions +120 +\([0-9.]+ k/s wall, [0-9.]+ events each\)' || fail "not 120 transactions"
echo "$out" | grep -q 'expectations *met' || fail "rr expectations not met"
echo "$out" | grep -Eq 'TCP +[0-9.]+ s, 120 transactions \([0-9.]+ k/s wall, [0-9.]+ events each\)$' || fail "no TCP twin"
echo "$out" | grep -Eq 'SMC-R / TCP +[0-9.]+x transactions per wall second' || fail "no rr ratio"
echo "$out" | grep -Eq '^result: work=smc-rr who=smcr-sim .* transactions=120 events=[0-9]+ events_per_transaction=[0-9.]+$' || fail "no rr result"
echo "$out" | grep -Eq '^result: work=smc-rr who=smcr-sim:tcp .* transactions=120 events=[0-9]+ events_per_transaction=[0-9.]+$' || fail "no TCP result"
fpa=$(echo "$out" | grep fingerprint)
fpb=$("$SMCR_SIM" bench protocol --mode rr --conns 4 --count 30 --size 100 | grep fingerprint)
[ "$fpa" = "$fpb" ] || fail "rr fingerprints differ: $fpa / $fpb"

expect_exit 2 "$SMCR_SIM" bench protocol --mtu 3000
expect_exit 2 "$SMCR_SIM" bench protocol --mode stream
expect_exit 2 "$SMCR_SIM" bench protocol --mode rr --count 0
expect_exit 2 "$SMCR_SIM" bench protocol --mode rr --size 0
"$SMCR_SIM" bench --help | grep -q protocol
echo "bench protocol ok"
