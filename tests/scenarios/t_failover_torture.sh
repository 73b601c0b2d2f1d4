# The failover torture's quick sweep (tests/failover-torture; --long for every millisecond
# and more seeds): adapter failures across the whole transfer on both sides and both
# links, restore + second failure, RoCE wire faults, switch failures, SMC-Rv1 and v2; no
# byte lost or duplicated, no connection hung, aborts only when no link survived.
# slow test: about 20 s
set -eu
. tests/lib.sh
sh tests/failover-torture "$SMCR_SIM" >"$BUILD/failover-torture.out" 2>&1 || {
	grep '^FAIL' "$BUILD/failover-torture.out" | head -20
	fail "$(tail -1 "$BUILD/failover-torture.out")"
}
tail -1 "$BUILD/failover-torture.out"
