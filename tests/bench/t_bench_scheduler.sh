# `smcr-sim bench scheduler`: its machine-readable result line (what tools/bench-peers reads
# beside ns-3's) names the shape, and exactly `total` events run. (tests/cli/t_cli.sh checks its
# options and fingerprints.)
set -eu
. tests/lib.sh

out=$("$SMCR_SIM" bench scheduler -p 500 -t 12345 -r 2)
echo "$out"
echo "$out" | grep -Eq '^result: work=scheduler who=smcr-sim wall_s=[0-9.]+ rate=[0-9.e+]+ unit=events/s cpu_s=[0-9.]+ population=500 events=12345$' ||
	fail "no result line"
echo "$out" | grep -q 'make bench-peers' || fail "no pointer to the ns-3 comparison"
echo "bench scheduler ok"
