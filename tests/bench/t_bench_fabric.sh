# bench fabric: option handling, a short run that prints its figures, and the same seed
# giving the same fingerprint (v1 and v2, both MTUs).
set -eu
. tests/lib.sh

expect_exit 2 "$SMCR_SIM" bench fabric --mtu 1000
expect_exit 2 "$SMCR_SIM" bench fabric --roce v3
expect_exit 2 "$SMCR_SIM" bench fabric --outstanding 0
expect_stderr 'Unknown option' "$SMCR_SIM" bench fabric --no-such-option
"$SMCR_SIM" bench fabric --help | grep -q -- '--mtu'

out=$("$SMCR_SIM" bench fabric -t 8 -r 2 -m 1024)
echo "$out" | grep -q 'path MTU 1024'
echo "$out" | grep -Eq 'simulated packets/s .*[0-9.]+ M'
echo "$out" | grep -Eq 'simulated payload/s: +[0-9.]+ GB/s \(8388608 bytes\)'
fp1=$(echo "$out" | sed -n 's/.*fingerprint: *//p')
fp2=$("$SMCR_SIM" bench fabric -t 8 -r 1 -m 1024 | sed -n 's/.*fingerprint: *//p')
fp3=$("$SMCR_SIM" bench fabric -t 8 -r 1 -m 4096 | sed -n 's/.*fingerprint: *//p')
[ -n "$fp1" ] && [ "$fp1" = "$fp2" ] || fail "same run gave fingerprints '$fp1' and '$fp2'"
[ "$fp1" != "$fp3" ] || fail "MTU 1024 and 4096 gave the same fingerprint"
"$SMCR_SIM" bench fabric -t 4 -r 1 --roce v1 | grep -q 'RoCE v1, path MTU 4096'
echo "bench fabric ok"
