# --real-hw, node and bench realhw without an RDMA device stop at once with a clear
# message (never a hang or a crash); the simulation of realhw-link-reuse.scn agrees with
# the report recorded on Soft-RoCE (two rxe devices across a wire, make check-hw), and the
# comparison notices a difference.
set -eu
. tests/lib.sh

SCN=scenarios/realhw-link-reuse.scn
expect_exit 2 timeout 10 "$SMCR_SIM" run --real-hw 0101=smcr-no-such-dev,0201=smcr-no-such-dev "$SCN"
expect_stderr "no RDMA device 'smcr-no-such-dev'" "$SMCR_SIM" run --real-hw 0101=smcr-no-such-dev,0201=smcr-no-such-dev "$SCN"
expect_stderr 'rxe-setup/rxe-host.sh up' "$SMCR_SIM" run --real-hw 0101=smcr-no-such-dev,0201=smcr-no-such-dev "$SCN"
expect_stderr 'stack LNXB activates PFID 0201 port 1, which --real-hw does not map' "$SMCR_SIM" run --real-hw 0101=rxe0 "$SCN"
expect_stderr "bad --real-hw entry '0101=rxe0:x'" "$SMCR_SIM" run --real-hw 0101=rxe0:x,0201=rxe0 "$SCN"
expect_exit 2 "$SMCR_SIM" run --real-hw 0101 "$SCN"
"$SMCR_SIM" run --help | grep -q -- '--real-hw'

expect_exit 2 timeout 10 "$SMCR_SIM" node --listen 7100 --dev smcr-no-such-dev
expect_stderr "no RDMA device 'smcr-no-such-dev'" "$SMCR_SIM" node --listen 7100 --dev smcr-no-such-dev
expect_stderr "give either --listen" "$SMCR_SIM" node
expect_stderr "bad --connect '10.0.0.1'" "$SMCR_SIM" node --connect 10.0.0.1
expect_stderr "bad --bytes" "$SMCR_SIM" node --connect 10.0.0.1:7100 --bytes 5x
expect_exit 2 timeout 20 "$SMCR_SIM" bench realhw --dev smcr-no-such-dev --no-compare -r 1
expect_stderr "no RDMA device 'smcr-no-such-dev'" "$SMCR_SIM" bench realhw --dev smcr-no-such-dev --no-compare -r 1
# --mode split: both nodes (server, client) report the missing device and the run fails
expect_exit 2 timeout 20 "$SMCR_SIM" bench realhw --mode split --dev smcr-no-such-dev --no-compare -r 1
expect_stderr "client on smcr-no-such-dev: no RDMA device 'smcr-no-such-dev'" "$SMCR_SIM" bench realhw --mode split --dev smcr-no-such-dev --no-compare -r 1
expect_stderr "client on smcr-no-such-a: no RDMA device 'smcr-no-such-a'" "$SMCR_SIM" bench realhw --mode split --dev smcr-no-such-a --dev2 smcr-no-such-b --no-compare -r 1
expect_stderr "server on smcr-no-such-b: no RDMA device 'smcr-no-such-b'" "$SMCR_SIM" bench realhw --mode split --dev smcr-no-such-a --dev2 smcr-no-such-b --no-compare -r 1
expect_stderr "no RDMA device 'smcr-no-such-dev'" "$SMCR_SIM" bench realhw --mode both --dev smcr-no-such-dev --no-compare -r 1
expect_stderr "bad --mode 'two'; expected one, split or both" "$SMCR_SIM" bench realhw --mode two
expect_exit 2 "$SMCR_SIM" bench realhw --mode split --tcp-port 70000
"$SMCR_SIM" bench realhw --help | grep -q -- '--mode'

if ! command -v jq >/dev/null; then
	echo "SKIP: the report comparison needs jq (tools/install-deps --hw)"
	exit 77
fi
"$SMCR_SIM" run --format json "$SCN" > "$BUILD/realhw-sim.json"
rxe-setup/compare-reports.sh "$BUILD/realhw-sim.json" tests/data/realhw/link-reuse.rxe.json ||
	fail "the simulation no longer agrees with the run recorded on rxe (re-record it from build/hw/share/wire.real.json after make check-hw, if the change is meant)"
jq '(.reports[0].stacks[1].link_groups[0].links[0].bytes_in) -= 1' tests/data/realhw/link-reuse.rxe.json > "$BUILD/realhw-bad.json"
expect_exit 1 rxe-setup/compare-reports.sh "$BUILD/realhw-sim.json" "$BUILD/realhw-bad.json"
jq '(.reports[0].stacks[0].link_groups[0].links[0].local_qpn) = "0x000abc" | .end_ns = 1' tests/data/realhw/link-reuse.rxe.json > "$BUILD/realhw-ident.json"
rxe-setup/compare-reports.sh "$BUILD/realhw-sim.json" "$BUILD/realhw-ident.json" >/dev/null ||
	fail "a QP number or a timing made the comparison fail"
expect_exit 2 rxe-setup/compare-reports.sh "$BUILD/realhw-sim.json" tests/data/realhw
echo "realhw cli ok"
