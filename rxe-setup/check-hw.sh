#!/bin/bash
# check-hw.sh BUILD [--smoke]: the real-hardware tests on Soft-RoCE, in QEMU VMs booted
# from Debian's kernel (this host needs no RDMA support, no KVM and no root networking).
#
#   full (make check-hw):
#     1. one VM, rxe0 on virtio-net: verbs_selftest loop (two QPs on rxe0, SENDs, 64 MiB
#        RDMA WRITE verified, rkey violation, flush, retry exhaustion, port down/up
#        events), `smcr-sim bench verbs` beside ib_write_bw, rxe-host.sh; then the SMC-R
#        core on rxe0: scenarios/realhw-link-reuse.scn with both stacks on the one device
#        (a GID each), scenarios/two-stacks.scn, and `smcr-sim bench realhw --mode both` (one process, two)
#     2. one VM with two NICs on one virtual wire (rxe0 on eth0, rxe1 on eth1): the same
#        scenario with one device per stack, its frames on the wire captured (QEMU
#        filter-dump; tcpdump on eth0 in the guest, headers only) and checked with
#        tshark; scenarios/realhw-failover.scn (two adapters per stack on rxe0 and rxe1, an
#        adapter port fails and comes back: failover on real QPs); `bench realhw` rxe0 →
#        rxe1 beside ib_write_bw
#     3. two VMs on one virtual Ethernet: verbs_selftest server/client, ib_write_bw, and
#        `smcr-sim node` server/client (CLC over kernel TCP between the VMs, 3 connections
#        of 16 MiB over one link); the wire and the server's eth0 captured and checked
#     4. on the host: each real run's JSON report against the simulation of the same
#        scenario (rxe-setup/compare-reports.sh: equal but for timings and identities)
#   --smoke (tests/real/t_hw_smoke.sh): step 1's selftest with 8 MiB and two-stacks.scn on rxe0
# Env: KERNEL (major.minor of a Debian kernel to boot instead of the installed one; see
# kernel-select.sh).
#
# Everything lands in BUILD/hw/ (initrd, share/ with consoles, reports and captures,
# summary.txt). Exit: 0 all passed, 1 something failed, 77 the VM cannot run here
# (missing packages or kernel not readable), with the reason on stderr.
set -u
BUILD=${1:?usage: check-hw.sh BUILD [--smoke]}
MODE=${2:-full}
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/.." && pwd)
BUILD=$(cd "$BUILD" && pwd)
WORK=$BUILD/hw
SHARE=$WORK/share
SELFTEST=$BUILD/tests/hw/verbs_selftest
SMCR_SIM=$BUILD/smcr-sim
MIB_PAIR=${MIB_PAIR:-16}
SCN=realhw-link-reuse.scn

skip() { echo "check-hw: SKIP: $*" >&2; exit 77; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN{printf "%.1f", b-a}'; }

# --- can a VM run here? --------------------------------------------------------------
missing=""
for t in qemu-system-x86_64 busybox cpio modprobe ib_write_bw tcpdump tshark jq; do
	command -v "$t" >/dev/null || missing="$missing $t"
done
[ -n "$missing" ] && skip "missing:$missing (install them with: tools/install-deps --hw)"
# the VM's kernel: KERNEL=6.12 (7.3, …) fetches that Debian kernel (kernel-select.sh)
mkdir -p "$BUILD/kernels"
. "$HERE/kernel-select.sh"
modprobe ${MODROOT:+-d "$MODROOT"} -S "$KVER" --show-depends rdma_rxe >/dev/null 2>&1 ||
	skip "kernel $KVER has no rdma_rxe module"
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
cp "$TOP/scenarios/$SCN" "$TOP/scenarios/two-stacks.scn" "$TOP/scenarios/realhw-failover.scn" "$SHARE/"

# The guests' job scripts. A job's exit status is the VM's verdict; every check prints
# "ok - …" or "not ok - …" on the console.
check_fn='rc=0
t() { if "$@"; then echo "ok - $*"; else echo "not ok - $*"; rc=1; fi; }
timed() { local n=$1 o=$2; shift 2; local a=$(cut -d" " -f1 /proc/uptime); "$@" > "$o"; local r=$?; echo "MEASURE $n $(awk -v a=$a -v b=$(cut -d" " -f1 /proc/uptime) "BEGIN{printf \"%.1f\", b-a}") s"; return $r; }
cd /mnt/host'
gidx='GIDX=$(grep -l ":ffff:" /sys/class/infiniband/rxe0/ports/1/gids/* | head -1); GIDX=${GIDX##*/}'
# the SMC-R core on rxe0: both stacks on the one device, each with a GID of its own
core_on_rxe0="/usr/bin/ip addr add 10.0.0.11/24 dev eth0
for i in \$(seq 1 50); do grep -q ':ffff:0a00:000b' /sys/class/infiniband/rxe0/ports/1/gids/* && break; sleep 0.1; done
t timed realhw_two_stacks two-stacks.real.txt smcr-sim run --real-hw 0101=rxe0@10.0.0.1,0201=rxe0@10.0.0.11 two-stacks.scn"
if [ "$MODE" = --smoke ]; then
	cat > "$SHARE/job-loop.sh" <<EOF
$check_fn
t verbs_selftest loop -m 8 -n 50 --link-flap eth0
$core_on_rxe0
exit \$rc
EOF
else
	cat > "$SHARE/job-loop.sh" <<EOF
$check_fn
verbs_selftest loop --link-flap eth0 || rc=1
smcr-sim bench verbs --dev rxe0 -n 1000 -r 3 || rc=1
# rxe-setup/rxe-host.sh on a kernel that has rdma_rxe (this guest)
rxe-host.sh up > /tmp/up.log 2>&1; cat /tmp/up.log
t grep -q 'rxe1 on smcr-veth0' /tmp/up.log
t grep -q 'rxe2 on smcr-veth1' /tmp/up.log
t test "\$(ibv_devices | grep -c rxe)" = 3
rxe-host.sh status | grep -E 'gid|rxe' | head -20
rxe-host.sh down smcr-veth1 > /tmp/down.log 2>&1; cat /tmp/down.log
t test "\$(ibv_devices | grep -c rxe)" = 2
rxe-host.sh down > /tmp/down.log 2>&1; cat /tmp/down.log
t test "\$(ibv_devices | grep -c rxe)" = 0
t test ! -e /sys/class/net/smcr-veth0
rdma link add rxe0 type rxe netdev eth0
for i in \$(seq 1 50); do grep -q ':ffff:' /sys/class/infiniband/rxe0/ports/1/gids/* 2>/dev/null && break; sleep 0.1; done
$core_on_rxe0
t timed realhw_shared_device shared.real.json smcr-sim run --format json --real-hw 0101=rxe0@10.0.0.1,0201=rxe0@10.0.0.11 $SCN
smcr-sim bench realhw --dev rxe0 --mode both -r 3 || rc=1
exit \$rc
EOF
	cat > "$SHARE/job-wire.sh" <<EOF
$check_fn
# libpcap in the guest: eth0 while the scenario runs, 128 bytes a frame (whole LLC/CDC)
tcpdump -Z root -i eth0 -s 128 -B 131072 -U -w /tmp/eth0.pcap 2> /tmp/tcpdump.log &
TD=\$!
sleep 1
t timed realhw_two_devices wire.real.json smcr-sim run --format json --real-hw 0101=rxe0,0201=rxe1 $SCN
sleep 0.5
kill \$TD; wait \$TD
echo "tcpdump: \$(grep -E 'captured|dropped by kernel' /tmp/tcpdump.log | tr '\n' ' ')"
cp /tmp/eth0.pcap wire-eth0.pcap
# failover: two adapters per stack, each stack with a GID on rxe0 and one on rxe1; the
# second stack's addresses reach the other NIC's over the wire like the first ones
ip=/usr/bin/ip  # iproute2: busybox's ip applet has no 'neigh replace'
\$ip addr add 10.0.0.11/24 dev eth0
\$ip addr add 10.0.0.12/24 dev eth1
\$ip route add 10.0.0.12 dev eth0 table 102; \$ip rule add pref 12 iif lo to 10.0.0.12 lookup 102
\$ip route add 10.0.0.11 dev eth1 table 103; \$ip rule add pref 13 iif lo to 10.0.0.11 lookup 103
\$ip neigh replace 10.0.0.12 lladdr \$(cat /sys/class/net/eth1/address) dev eth0 nud permanent
\$ip neigh replace 10.0.0.11 lladdr \$(cat /sys/class/net/eth0/address) dev eth1 nud permanent
for i in \$(seq 1 50); do grep -q ':ffff:0a00:000c' /sys/class/infiniband/rxe1/ports/1/gids/* && break; sleep 0.1; done
t timed realhw_failover failover.real.txt smcr-sim run -v --real-hw 0011=rxe0@10.0.0.1,0012=rxe1@10.0.0.2,0021=rxe0@10.0.0.11,0022=rxe1@10.0.0.12 realhw-failover.scn
smcr-sim bench realhw --dev rxe0 --dev2 rxe1 --bytes 64M --mode both -r 3 || rc=1
exit \$rc
EOF
	cat > "$SHARE/job-server.sh" <<EOF
$check_fn
verbs_selftest server 7000 -m $MIB_PAIR -n 100 || rc=1
$gidx
echo "ib_write_bw server (gid index \$GIDX)"
timeout 120 ib_write_bw -d rxe0 -x \$GIDX -n 500 -F > /tmp/bw.log 2>&1 || echo "ib_write_bw server failed"
t timed node_server node-server.json smcr-sim node --listen 7100 --dev rxe0 --conns 3 --timeout 150s --name server --format json -v 2> node-server.log
# one connection with 1 MiB buffers, for its throughput beside ib_write_bw's
t timed node_bw_server node-bw-server.txt smcr-sim node --listen 7101 --dev rxe0 --rmbsize 1M --sndbufsize 1M --timeout 150s --name server
exit \$rc
EOF
	cat > "$SHARE/job-client.sh" <<EOF
$check_fn
verbs_selftest client 10.0.0.1 7000 -m $MIB_PAIR -n 100 || rc=1
$gidx
for i in \$(seq 1 40); do
	timeout 120 ib_write_bw -d rxe0 -x \$GIDX -n 500 -F 10.0.0.1 > /tmp/bw.log 2>&1 && break
	sleep 0.5
done
grep -A1 '#bytes' /tmp/bw.log | tail -1 | awk '{printf "MEASURE ib_write_bw_2vm_MiB_per_s %s MiB/s\n", \$4}'
sleep 2
t timed node_client node-client.txt smcr-sim node --connect 10.0.0.1:7100 --dev rxe0 --conns 3 --bytes 16M --timeout 150s -v --name client 2> node-client.log
cat node-client.txt | head -4
t timed node_bw_client node-bw-client.txt smcr-sim node --connect 10.0.0.1:7101 --dev rxe0 --bytes 64M --rmbsize 1M --sndbufsize 1M --timeout 150s --name client
grep 'data:' node-bw-client.txt | awk '{printf "MEASURE node_one_conn_1M_buffers_MiB_per_s %s MiB/s\n", \$4}'
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
	grep -E "^MEASURE|^  (smcr-sim|ib_write_bw|run [0-9]|SMC-R connection)|^bench (verbs|realhw)" "$c" 2>/dev/null |
		sed 's/^/    /' | tee -a "$SUMMARY"
}

# vm NAME MODE ARGS…: boot, report the verdict
vm() {
	local name=$1 t0
	shift
	t0=$(now)
	if WD=${WD:-300} TIMEOUT=${TIMEOUT:-360} "$HERE/vm-run.sh" "$WORK/initrd.gz" "$SHARE" "$@" >> "$SUMMARY.vm" 2>&1; then
		say "VM $name: passed in $(since "$t0") s ($(grep -o 'accel [a-z]*' "$SUMMARY.vm" | tail -1))"
	else
		failures=$((failures + 1))
		say "VM $name: FAILED in $(since "$t0") s: $(tail -1 "$SUMMARY.vm")"
		for r in "${@:2}"; do tail -30 "$SHARE/$r.console"; done
	fi
}

# roce_check FILE WHAT MIN_SENDS MIN_CONFIRM_LINK MIN_CLC: tshark on a capture. Every RoCE
# v2 frame must decode as InfiniBand; every SEND as SMC-R LLC or CDC (v1 formats: the
# runs speak SMC-Rv1, whose 44-byte LLC tshark 4.0 decodes, see docs/real-hw.md), at least
# MIN_CONFIRM_LINK CONFIRM_LINKs, RDMA WRITEs, MIN_CLC of each CLC message on TCP; no
# malformed frame and no RoCE frame with an expert warning anywhere.
roce_check() {
	local f=$1 what=$2 min_sends=$3 min_confirm=$4 min_clc=$5
	if [ ! -s "$f" ]; then
		failures=$((failures + 1))
		say "  capture $what ($(basename "$f")): MISSING"
		return
	fi
	local fields
	fields=$(tshark -n -o tcp.try_heuristic_first:TRUE -r "$f" -T fields -E separator='|' -e udp.dstport \
		-e infiniband.bth.opcode -e smc.llc_msg -e smc.clc_msg -e _ws.malformed -e _ws.expert.severity 2>/dev/null)
	local line verdict
	line=$(awk -F'|' -v min_sends="$min_sends" -v min_confirm="$min_confirm" -v min_clc="$min_clc" '
		{ n++ }
		$1 == 4791 { roce++ }
		$2 != "" { ib++ }
		$2 == 4 || $2 == 5 { sends++ }
		$2 >= 6 && $2 <= 11 { writes++ }
		$3 != "" { smc++; if ($3 == "0x01") confirm++; if ($3 == "0xfe") cdc++; else llc++; if ($3 ~ /^0x2/) v2++ }
		$4 != "" { split($4, m, ","); for (i in m) clc[m[i]]++ }
		$5 != "" { mal++ }
		$2 != "" && $6 != "" { k = split($6, sv, ","); for (i = 1; i <= k; i++) if (sv[i] + 0 >= 6291456) { warn++; break } }
		END {
			ok = roce > 0 && ib == roce && sends >= min_sends && smc == sends && confirm >= min_confirm && writes > 0 &&
			     !mal && !warn && !v2 && clc[1] >= min_clc && clc[2] >= min_clc && clc[3] >= min_clc
			printf "%s: %d frames, %d RoCE v2 all decoded as InfiniBand: %s, %d SENDs of which %d SMC-R (%d LLC incl. %d CONFIRM_LINK, %d CDC), %d RDMA WRITE, CLC %d/%d/%d, %d malformed, %d RoCE frames with expert warnings\n",
				ok ? "ok" : "FAILED", n, roce, ib == roce ? "yes" : "no", sends, smc, llc, confirm, cdc, writes,
				clc[1], clc[2], clc[3], mal, warn
		}' <<<"$fields")
	verdict=${line%%:*}
	[ "$verdict" = ok ] || failures=$((failures + 1))
	say "  capture $what ($(basename "$f")): $line"
}

# compare NAME SIM REAL
compare() {
	local out
	if out=$("$HERE/compare-reports.sh" "$2" "$3" 2>&1); then
		say "  report $1: $out"
	else
		failures=$((failures + 1))
		say "  report $1: FAILED"
		echo "$out" | head -40 | sed 's/^/    /' | tee -a "$SUMMARY"
	fi
}

# --- 1. one VM ----------------------------------------------------------------------
vm "loop (rxe0)" single loop
tap_report loop
if grep -q '^ok - timed realhw_two_stacks' <(tr -d '\r' < "$SHARE/loop.console"); then
	say "  two-stacks.scn on rxe0: $(grep -E 'expectations? met' "$SHARE/two-stacks.real.txt")"
else
	failures=$((failures + 1))
	say "  two-stacks.scn on rxe0: FAILED"
	grep -E 'expectation failed|smcr-sim' "$SHARE/two-stacks.real.txt" | head -10 | sed 's/^/    /' | tee -a "$SUMMARY"
fi

if [ "$MODE" != --smoke ]; then
	"$SMCR_SIM" run --format json "$TOP/scenarios/$SCN" > "$SHARE/sim.json" || { failures=$((failures + 1)); say "simulation of $SCN FAILED"; }
	compare "shared rxe0 vs simulation" "$SHARE/sim.json" "$SHARE/shared.real.json"

	# --- 2. two devices on one wire, one process --------------------------------------
	vm "wire (rxe0 + rxe1 on one wire)" wireloop wire
	tap_report wire
	compare "rxe0+rxe1 vs simulation" "$SHARE/sim.json" "$SHARE/wire.real.json"
	say "  failover (realhw-failover.scn, 4 adapters on rxe0/rxe1): $(grep -E 'expectations? met' "$SHARE/failover.real.txt")"
	grep -E 'expectation failed' "$SHARE/failover.real.txt" | sed 's/^/    /' | tee -a "$SUMMARY"
	grep -q '^ok - timed realhw_failover' <(tr -d '\r' < "$SHARE/wire.console") || failures=$((failures + 1))
	mv "$SHARE/wire.pcap" "$SHARE/wireloop.pcap" 2>/dev/null
	say "  guest $(grep -E '^tcpdump:' "$SHARE/wire.console" | tr -d '\r')"
	roce_check "$SHARE/wireloop.pcap" "two devices, QEMU wire, whole job" 100 2 0
	roce_check "$SHARE/wire-eth0.pcap" "two devices, tcpdump on eth0 during the scenario" 100 2 0

	# --- 3. two VMs: verbs and node ---------------------------------------------------
	CAPTURE=1 vm "pair (two VMs)" pair server client
	tap_report server
	tap_report client
	if [ -s "$SHARE/node-server.json" ] &&
	   [ "$(jq -c '.node | [.connections_done, .smcr, .bytes_verified, .content_ok]' "$SHARE/node-server.json")" = "[3,3,50331648,true]" ]; then
		say "  node across two VMs: ok: $(jq -r '.node | "\(.connections_done) connections on SMC-R, \(.bytes_verified) bytes verified by the server"' "$SHARE/node-server.json"); $(grep -h 'data:' "$SHARE/node-client.txt" | sed 's/^ *//')"
	else
		failures=$((failures + 1))
		say "  node across two VMs: FAILED"
		tail -5 "$SHARE/node-server.log" "$SHARE/node-client.log" 2>/dev/null | sed 's/^/    /' | tee -a "$SUMMARY"
	fi
	say "  server tcpdump: $(grep -E 'captured|dropped by kernel' "$SHARE/server.console" | tr '\n' ' ')"
	for pcap in wire server; do
		roce_check "$SHARE/$pcap.pcap" "two VMs" 100 2 3
	done
fi

say "check-hw ($MODE): $([ $failures -eq 0 ] && echo PASSED || echo "FAILED ($failures)") in $(since "$T_ALL") s; logs in $WORK"
[ $failures -eq 0 ]
