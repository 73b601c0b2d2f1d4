# The interoperability tools outside the VM lab: `smcr-sim interop` checks its options
# and stops at once, naming what it looked for, when the RDMA device is missing; the
# Linux-side tools (tests/interop/) explain a kernel without SMC instead of failing
# silently. The lab itself is `make check-interop`.
set -eu
. tests/lib.sh

SIM="$SMCR_SIM interop"
common="--ifname lo --ip 10.99.0.12/24 --ueid SMC-TEST"
expect_exit 2 $SIM
expect_exit 2 $SIM client $common --dev rxe0                       # no --peer
expect_exit 2 $SIM server --ip 10.99.0.12/24 --dev rxe0 --ueid X  # no --ifname
expect_exit 2 $SIM server $common --dev rxe0 --release 2
expect_exit 2 $SIM server $common --dev rxe0 --ip 10.99.0.300/24
expect_exit 2 $SIM server $common --dev 'rxe0:x'
expect_exit 2 $SIM server $common --dev rxe0 --conns 0
expect_exit 2 $SIM server $common --dev rxe0 --bytes 12Q
expect_exit 2 timeout 10 $SIM server $common --dev smcr-no-such-dev   # cannot run here: exit 2, as run --real-hw and node
# --testlink takes the scenario's range (0 = off .. 1h); accepted values get as far as the device
expect_exit 2 $SIM server $common --dev rxe0 --testlink 2h
expect_exit 2 $SIM server $common --dev rxe0 --testlink soon
expect_stderr "bad --testlink" $SIM server $common --dev rxe0 --testlink 3601s
expect_exit 2 $SIM server $common --dev rxe0 --end-lgr --after soon
expect_stderr "no RDMA device 'smcr-no-such-dev'" timeout 10 $SIM server $common --dev smcr-no-such-dev --testlink 2s --end-lgr --after 5s
expect_stderr "no RDMA device 'smcr-no-such-dev'" timeout 10 $SIM server $common --dev smcr-no-such-dev --testlink 0
expect_stderr "no RDMA device 'smcr-no-such-dev'" timeout 10 $SIM server $common --dev smcr-no-such-dev
# several --dev: alternate devices for a second link (each is opened, so a missing one is named)
expect_exit 2 $SIM server $common --dev rxe0 --dev 'rxe1:x'
expect_exit 2 $SIM server $common --dev rxe0 --dev rxe1 --dev rxe2 --dev rxe3 --dev rxe4
expect_stderr "at most 4 --dev" $SIM server $common --dev a --dev b --dev c --dev d --dev e
expect_stderr "no RDMA device 'smcr-no-such-dev'" timeout 10 $SIM server $common --dev smcr-no-such-dev --dev smcr-no-such-dev2
# --fail-after and --fail-cmd go together
expect_stderr "go together" $SIM server $common --dev rxe0 --fail-after 1M
expect_stderr "go together" $SIM server $common --dev rxe0 --fail-cmd true
expect_exit 2 $SIM server $common --dev rxe0 --fail-after 3Q --fail-cmd true
expect_stderr "no RDMA device 'smcr-no-such-dev'" timeout 10 $SIM server $common --dev smcr-no-such-dev --fail-after 1M --fail-cmd true
$SIM --help | grep -q -- '--fail-cmd=CMD'
$SIM --help | grep -q -- '--release=0|1'
$SIM --help | grep -q -- '--testlink=TIME'
$SIM --help | grep -q -- '--end-lgr'

# Linux-side tools: usage errors, and a kernel without SMC (this host's) said plainly
expect_exit 2 "$BUILD/tests/interop/smc_peer"
expect_exit 2 "$BUILD/tests/interop/smc_peer" client --port 5000
expect_exit 2 "$BUILD/tests/interop/smc_nl"
expect_exit 2 "$BUILD/tests/interop/smc_nl" frobnicate
if [ ! -d /sys/module/smc ]; then
	expect_exit 1 "$BUILD/tests/interop/smc_nl" links
	expect_stderr 'is smc.ko loaded' "$BUILD/tests/interop/smc_nl" links
	expect_stderr 'is smc.ko loaded' "$BUILD/tests/interop/smc_peer" server --conns 1
fi
echo "interop cli ok"
