#!/bin/bash
# check-hw.sh BUILD [--smoke]: the real-hardware tests on Soft-RoCE, in QEMU VMs booted
# from Debian's kernel (this host needs no RDMA support, no KVM and no root networking).
#
#   full (make check-hw):
#     1. one VM, rxe0 on virtio-net: verbs_selftest loop (two QPs on rxe0, 100 SENDs,
#        64 MiB RDMA WRITE verified, rkey violation, flush, retry exhaustion, port
#        down/up events), then `smcr-sim bench verbs` beside ib_write_bw
#     2. two VMs on one virtual Ethernet: verbs_selftest server/client (SENDs, 16 MiB RDMA
#        WRITE verified by the peer, rkey violation), then ib_write_bw between them;
#        the wire (QEMU filter-dump) and the server's eth0 (tcpdump) are captured and
#        checked with tshark: RoCE v2 frames decoded as InfiniBand, the 44-byte SENDs as
#        SMC-R LLC, no malformed frame
#   --smoke (tests/t_hw_smoke.sh): step 1 only, with 8 MiB and without the benchmark
#
# Everything lands in BUILD/hw/ (initrd, share/ with consoles and captures, summary.txt).
# Exit: 0 all passed, 1 something failed, 77 the VM cannot run here (missing packages or
# kernel not readable), with the reason on stderr.
set -u
BUILD=${1:?usage: check-hw.sh BUILD [--smoke]}
MODE=${2:-full}
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=$(cd "$BUILD" && pwd)
WORK=$BUILD/hw
SHARE=$WORK/share
SELFTEST=$BUILD/tests/hw/verbs_selftest
SMCR_SIM=$BUILD/smcr-sim
MIB_PAIR=${MIB_PAIR:-16}

skip() { echo "check-hw: SKIP: $*" >&2; exit 77; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN{printf "%.1f", b-a}'; }

# --- can a VM run here? --------------------------------------------------------------
missing=""
for t in qemu-system-x86_64 busybox cpio modprobe ib_write_bw tcpdump tshark; do
	command -v "$t" >/dev/null || missing="$missing $t"
done
KVER=$(ls /lib/modules 2>/dev/null | sort -V | tail -1)
[ -n "$KVER" ] || missing="$missing linux-image-amd64(modules)"
[ -n "$missing" ] && skip "missing:$missing (install them with: tools/install-deps --hw)"
[ -r "/boot/vmlinuz-$KVER" ] || skip "/boot/vmlinuz-$KVER is not readable (Debian installs it root-only; run as root)"
modprobe -S "$KVER" --show-depends rdma_rxe >/dev/null 2>&1 || skip "kernel $KVER has no rdma_rxe module"
[ -x "$SELFTEST" ] && [ -x "$SMCR_SIM" ] || { echo "check-hw: build first (make all)" >&2; exit 1; }

rm -rf "$WORK"
mkdir -p "$SHARE"
SUMMARY=$WORK/summary.txt
: > "$SUMMARY"
say() { echo "$*" | tee -a "$SUMMARY"; }
failures=0
T_ALL=$(now)

t0=$(now)
"$HERE/mkinitramfs.sh" "$WORK/initrd.gz" "$SELFTEST" "$SMCR_SIM" > "$WORK/mkinitramfs.log" 2>&1 ||
	{ cat "$WORK/mkinitramfs.log"; echo "check-hw: mkinitramfs failed" >&2; exit 1; }
say "initramfs: $(tail -1 "$WORK/mkinitramfs.log" | sed 's/^mkinitramfs: //') in $(since "$t0") s"

# The guest's job scripts. A job's exit status is the VM's verdict.
gidx='GIDX=$(grep -l ":ffff:" /sys/class/infiniband/rxe0/ports/1/gids/* | head -1); GIDX=${GIDX##*/}'
if [ "$MODE" = --smoke ]; then
	echo 'verbs_selftest loop -m 8 -n 50 --link-flap eth0' > "$SHARE/job-loop.sh"
else
	cat > "$SHARE/job-loop.sh" <<'EOF'
verbs_selftest loop --link-flap eth0
rc=$?
smcr-sim bench verbs --dev rxe0 -n 1000 -r 3 || rc=1
# rxe-setup/rxe-host.sh on a kernel that has rdma_rxe (this guest)
t() { if "$@"; then echo "ok - rxe-host: $*"; else echo "not ok - rxe-host: $*"; rc=1; fi; }
rxe-host.sh up > /tmp/up.log 2>&1; cat /tmp/up.log
t grep -q 'rxe1 on smcr-veth0' /tmp/up.log
t grep -q 'rxe2 on smcr-veth1' /tmp/up.log
t test "$(ibv_devices | grep -c rxe)" = 3
rxe-host.sh status | grep -E 'gid|rxe' | head -20
rxe-host.sh down smcr-veth1 > /tmp/down.log 2>&1; cat /tmp/down.log
t test "$(ibv_devices | grep -c rxe)" = 2
rxe-host.sh down > /tmp/down.log 2>&1; cat /tmp/down.log
t test "$(ibv_devices | grep -c rxe)" = 0
t test ! -e /sys/class/net/smcr-veth0
exit $rc
EOF
	cat > "$SHARE/job-server.sh" <<EOF
verbs_selftest server 7000 -m $MIB_PAIR -n 100
rc=\$?
$gidx
echo "ib_write_bw server (gid index \$GIDX)"
timeout 120 ib_write_bw -d rxe0 -x \$GIDX -n 500 -F > /tmp/bw.log 2>&1 || echo "ib_write_bw server failed"
exit \$rc
EOF
	cat > "$SHARE/job-client.sh" <<EOF
verbs_selftest client 10.0.0.1 7000 -m $MIB_PAIR -n 100
rc=\$?
$gidx
for i in \$(seq 1 40); do
	timeout 120 ib_write_bw -d rxe0 -x \$GIDX -n 500 -F 10.0.0.1 > /tmp/bw.log 2>&1 && break
	sleep 0.5
done
grep -A1 '#bytes' /tmp/bw.log | tail -1 | awk '{printf "MEASURE ib_write_bw_2vm_MiB_per_s %s MiB/s\n", \$4}'
exit \$rc
EOF
fi

# tap_report NAME: counts from a console log
tap_report() {
	local c=$SHARE/$1.console
	local ok bad
	ok=$(grep -c '^ok ' "$c" 2>/dev/null)
	bad=$(grep -c '^not ok ' "$c" 2>/dev/null)
	say "  $1: ${ok:-0} checks passed, ${bad:-0} failed"
	grep '^not ok ' "$c" 2>/dev/null | sed 's/^/    /' | tee -a "$SUMMARY"
	grep -E "^MEASURE|^  (smcr-sim|ib_write_bw|run [0-9])|^bench verbs" "$c" 2>/dev/null | sed 's/^/    /' | tee -a "$SUMMARY"
}

# --- 1. one VM ----------------------------------------------------------------------
t0=$(now)
if WD=${WD:-240} "$HERE/vm-run.sh" "$WORK/initrd.gz" "$SHARE" single loop >> "$SUMMARY.vm" 2>&1; then
	say "VM loop: passed in $(since "$t0") s ($(grep -o 'accel [a-z]*' "$SUMMARY.vm" | tail -1))"
else
	failures=$((failures + 1))
	say "VM loop: FAILED in $(since "$t0") s: $(tail -1 "$SUMMARY.vm")"
	tail -30 "$SHARE/loop.console"
fi
tap_report loop

# --- 2. two VMs, capture, tshark ------------------------------------------------------
if [ "$MODE" != --smoke ]; then
	t0=$(now)
	if WD=${WD:-240} CAPTURE=1 "$HERE/vm-run.sh" "$WORK/initrd.gz" "$SHARE" pair server client >> "$SUMMARY.vm" 2>&1; then
		say "VM pair: passed in $(since "$t0") s"
	else
		failures=$((failures + 1))
		say "VM pair: FAILED in $(since "$t0") s: $(tail -1 "$SUMMARY.vm")"
		tail -20 "$SHARE/server.console" "$SHARE/client.console"
	fi
	tap_report server
	tap_report client
	say "  server tcpdump: $(grep -E 'captured|dropped by kernel' "$SHARE/server.console" | tr '\n' ' ')"
	for pcap in wire server; do
		f=$SHARE/$pcap.pcap
		if [ ! -s "$f" ]; then
			failures=$((failures + 1))
			say "  capture $pcap.pcap: MISSING"
			continue
		fi
		ts() { tshark -n -o tcp.try_heuristic_first:TRUE -r "$f" "$@" 2>/dev/null; }
		frames=$(ts -T fields -e frame.number | wc -l)
		roce=$(ts -Y 'udp.dstport == 4791' -T fields -e frame.number | wc -l)
		ib=$(ts -Y 'infiniband.bth' -T fields -e frame.number | wc -l)
		llc=$(ts -Y 'smc.llc_msg == 0x07' -T fields -e frame.number | wc -l)
		writes=$(ts -Y 'infiniband.bth.opcode >= 6 && infiniband.bth.opcode <= 10' -T fields -e frame.number | wc -l)
		malformed=$(ts -Y '_ws.malformed' -T fields -e frame.number | wc -l)
		roce_expert=$(ts -Y 'infiniband && _ws.expert.severity >= 6291456' -T fields -e frame.number | wc -l)
		verdict=ok
		[ "$roce" -gt 0 ] && [ "$ib" -eq "$roce" ] && [ "$llc" -ge 100 ] && [ "$writes" -gt 0 ] &&
			[ "$malformed" -eq 0 ] && [ "$roce_expert" -eq 0 ] || { verdict=FAILED; failures=$((failures + 1)); }
		say "  capture $pcap.pcap: $verdict: $frames frames, $roce RoCE v2 (UDP 4791), $ib decoded as InfiniBand BTH," \
			"$llc as SMC-R LLC TEST_LINK, $writes RDMA WRITE, $malformed malformed, $roce_expert RoCE frames with expert warnings"
	done
fi

say "check-hw ($MODE): $([ $failures -eq 0 ] && echo PASSED || echo "FAILED ($failures)") in $(since "$T_ALL") s; logs in $WORK"
[ $failures -eq 0 ]
