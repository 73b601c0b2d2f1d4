# Real-hardware commands on a missing RDMA device stop at once with a message that names
# what they looked for and how to create a device; they never hang or crash.
set -eu
. tests/lib.sh

expect_exit 2 timeout 10 "$SMCR_SIM" bench verbs --dev smcr-no-such-dev --no-compare
expect_stderr "no RDMA device 'smcr-no-such-dev'" "$SMCR_SIM" bench verbs --dev smcr-no-such-dev
expect_stderr 'rxe-setup/rxe-host.sh up' "$SMCR_SIM" bench verbs --dev smcr-no-such-dev
expect_stderr 'make check-hw' "$SMCR_SIM" bench verbs --dev smcr-no-such-dev
expect_exit 2 "$SMCR_SIM" bench verbs --size 0
expect_exit 2 "$SMCR_SIM" bench verbs --cq-mod 500 --tx-depth 128
"$SMCR_SIM" bench verbs --help | grep -q -- '--tx-depth'

# the self-test program says the same and fails (it is a test: no device, no pass)
out=$(timeout 10 "$BUILD/tests/hw/verbs_selftest" --dev smcr-no-such-dev loop) && fail "selftest passed without a device"
echo "$out" | grep -q "^not ok 1 - A: open smcr-no-such-dev: no RDMA device 'smcr-no-such-dev'"
echo "$out" | grep -q '^SUMMARY verbs_selftest loop: 0 passed, 1 failed'
echo "verbs nodev ok"
