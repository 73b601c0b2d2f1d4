#!/bin/bash
# check-interop.sh BUILD: smcr-sim against the Linux kernel's SMC-R (net/smc) over real
# Soft-RoCE, both ways (make check-interop).
#
# Two QEMU VMs with Debian's 6.1 kernel on one virtual Ethernet (../vm-run.sh pair: socket
# netdev, filter-dump wire capture, guest watchdog, isa-debug-exit, outer timeout):
#   VM1 "linux"  10.0.0.1: kernel SMC-R (smc.ko, smc_diag.ko), the patched rdma_rxe
#                (build-rxe.sh), UEID SMC-RXE-LAB and a PNET entry for rxe0 (smc_nl),
#                tests/interop/smc_peer on AF_SMC;
#   VM2 "sim"    10.0.0.2 for its kernel and rxe0; smcr-sim's stack is 10.0.0.12 with its own
#                MAC on eth0 through AF_PACKET, its QPs on rxe0 (`smcr-sim interop`).
# Runs:
#   linux-server  Linux listens, smcr-sim connects (offering SMC-Rv2.0 as Linux 6.1 does)
#   linux-client  smcr-sim listens (ready for v2.1; Linux proposes v2.0), Linux connects;
#                 then TEST_LINK from smcr-sim every 2 s (Linux: 3 s) on the idle link, and
#                 smcr-sim ends the link group (--end-lgr: DELETE_LINK ALL, 0x00020000)
#   linux-server-v21  as linux-server, but smcr-sim offers v2.1 (its default): Linux 6.1
#                 ignores what it does not know and both settle on v2.0; then TEST_LINK from
#                 Linux every 2 s (smcr-sim: 3 s), and Linux unloads smc.ko (DELETE_LINK ALL)
#   linux-server-2links(-rev)  smcr-sim with a second device (rxe1 on macvlan mv0) and Linux
#                 as server form an asymmetric two-link group; mid-transfer mv0 goes down
#                 and link 2 (-rev: link 1, carrying the connections) fails over
#   linux-client-2links(-rev)  the roles swapped: smcr-sim's server with two devices adds the
#                 second link, Linux's one-device client accepts it (ASYMMETRIC_LOCAL); mv0
#                 goes down mid-transfer and our server runs Linux's server-side DELETE_LINK
#                 flow (lost path), Linux's client responds, rejects the next ADD_LINK
# Each run: N connections over one link group (the first alone, the others together),
# B bytes each way per connection with every byte checked, orderly close. Then, from the
# two sides' reports and the wire:
#   - both sides: every connection MODE=SMCR (Linux: smc_diag), fallback reason 0, data
#     verified; exactly one link group and one link;
#   - the Linux side's view (smc_diag per connection, SMC_GEN_NETLINK link/lgr dump) and
#     smcr-sim's agree: link id, GIDs (crossed), link user ids (crossed), negotiated UEID,
#     host names, direct route, roles;
#   - tshark decodes the CLC handshakes as SMC-Rv2 Proposal/Accept/Confirm and the CDC
#     messages as SMC-R; the only malformed frames are exactly the v2 CONFIRM_LINK and
#     ADD_LINK LLC frames (Linux's little-endian v2 length; wireshark-recipe.md §6);
#   - `smcr-sim replay` explains the capture: no decode error, both stacks, one link group
#     each with one link, N SMC-R connections each closed with the bytes both ways;
#   - byte-exactness with Linux 6.1 (traces/linux-6.1-smcr-v2-rxe.pcapng, same addresses):
#     smcr-sim's v2.0 Proposal and its CONFIRM_LINK response are the kernel's bytes; an
#     ADD_LINK reject repeats the request as Linux's does;
#   - TEST_LINK (wire): the side with the shorter interval sends >= 3 requests, each answered
#     by the other with the same bytes, the other sends none; the link stays ACTIVE, no link
#     down, no LLC violation;
#   - link group end (wire and reports): the ending side's DELETE_LINK ALL (flags 0x40,
#     reason 0x00020000), the other's DELETE_LINK ALL from its clean-up (0x00030000); both
#     sides' link groups and links gone (Linux: netlink), reasons in our events.
# Results: BUILD/interop/summary.txt; consoles, reports and captures in BUILD/interop/RUN/.
# Exit: 0 all passed, 1 something failed, 77 cannot run here (reason on stderr).
# Env: CONNS (4), BYTES (1048576), WD (guest watchdog, 150 s), KERNEL (the Linux VM's
# kernel, major.minor: the installed one by default; 6.12, 7.3, … are fetched from Debian's
# suites by ../kernel-fetch.sh, see ../kernel-select.sh). A kernel other than the installed
# one works in BUILD/interop-KERNEL/; one that speaks v2.1 (6.6 and later) also runs the
# v2.1 cases (max_links 1, max_conns 16 with a second link group) and, with its own
# capture of two such kernels, the kernel pair (and, where the installed 6.1 can be
# booted, the mixed pair 6.1 <-> KERNEL both ways).
set -u
BUILD=${1:?usage: check-interop.sh BUILD}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD=$(cd "$BUILD" && pwd)
WORK=$BUILD/interop
SMCR_SIM=$BUILD/smcr-sim
SMC_PEER=$BUILD/tests/interop/smc_peer
SMC_NL=$BUILD/tests/interop/smc_nl
TRACE=$ROOT/traces/linux-6.1-smcr-v2-rxe.pcapng
CONNS=${CONNS:-4}
BYTES=${BYTES:-1048576}
WD=${WD:-150}
UEID=SMC-RXE-LAB
SIM_IP=10.0.0.12

skip() { echo "check-interop: SKIP: $*" >&2; exit 77; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN{printf "%.1f", b-a}'; }

# --- can the lab run here? ----------------------------------------------------------
missing=""
for t in qemu-system-x86_64 busybox cpio modprobe tshark make patch; do
	command -v "$t" >/dev/null || missing="$missing $t"
done
[ -n "$missing" ] && skip "missing:$missing (install them with: tools/install-deps --interop)"
BUILD=$(cd "$BUILD" && pwd)
mkdir -p "$BUILD/kernels"
. "$HERE/../kernel-select.sh"
[ -z "${SMC_MISSING:-}" ] || skip "$SMC_MISSING"
if [ "$RXE_STOCK" = 0 ]; then
	[ -r /usr/src/linux-source-6.1.tar.xz ] || missing="$missing linux-source-6.1"
	[ -d "/lib/modules/$KVER/build" ] || missing="$missing linux-headers-$KVER"
	[ -n "$missing" ] && skip "missing:$missing (install them with: tools/install-deps --interop)"
fi
modprobe ${MODROOT:+-d "$MODROOT"} -S "$KVER" --show-depends smc_diag >/dev/null 2>&1 ||
	skip "kernel $KVER has no smc/smc_diag modules"
for b in "$SMCR_SIM" "$SMC_PEER" "$SMC_NL"; do
	[ -x "$b" ] || { echo "check-interop: $b missing: build first (make all)" >&2; exit 1; }
done

[ -z "$MODROOT" ] || WORK=$BUILD/interop-$KLABEL
for r in linux-server linux-client linux-server-v21 linux-server-2links linux-server-2links-rev linux-client-2links \
	linux-client-2links-rev linux-server-maxlinks1 linux-server-maxconns16 kernel-pair kernel-mixed kernel-mixed-rev; do
	rm -rf "${WORK:?}/$r"
done
rm -f "$WORK/summary.txt"
mkdir -p "$WORK"
SUMMARY=$WORK/summary.txt
: > "$SUMMARY"
say() { echo "$*" | tee -a "$SUMMARY"; }
FAILED=0
T_ALL=$(now)

say "kernel: $KVER ($([ -n "$MODROOT" ] && cat "$MODROOT/ready" || echo installed)), SMC-Rv2 release $LINUX_REL"
t0=$(now)
if [ "$RXE_STOCK" = 1 ]; then
	KO=stock
	say "rdma_rxe: Debian's own (6.12 and later carry both fixes of patches/)"
else
	KO=$(KVER=$KVER "$HERE/build-rxe.sh" "$WORK/rxe" 2> "$WORK/build-rxe.err") ||
		{ cat "$WORK/build-rxe.err"; echo "check-interop: building rdma_rxe failed" >&2; exit 1; }
	say "rdma_rxe with $(ls "$HERE"/patches/*.patch | wc -l) upstream fixes: $KO ($(since "$t0") s)"
fi
t0=$(now)
KVER=$KVER "$HERE/mkinitramfs-interop.sh" "$WORK/initrd.gz" "$KO" "$SMCR_SIM" "$SMC_PEER" "$SMC_NL" \
	> "$WORK/mkinitramfs.log" 2>&1 ||
	{ cat "$WORK/mkinitramfs.log"; echo "check-interop: initramfs failed" >&2; exit 1; }
say "initramfs: $(tail -1 "$WORK/mkinitramfs.log" | sed 's/^mkinitramfs-interop: //') in $(since "$t0") s"

# --- checks --------------------------------------------------------------------------
RUN=""
ok() { say "ok - $RUN: $*"; }
bad() { say "not ok - $RUN: $*"; FAILED=$((FAILED + 1)); }
check() { # check DESCRIPTION COMMAND…
	local d=$1
	shift
	if "$@"; then ok "$d"; else bad "$d"; fi
}
# value of key in a line of key=value words
kv() { awk -v k="$2" '{ for (i = 1; i <= NF; i++) if (index($i, k "=") == 1) { print substr($i, length(k) + 2); exit } }' <<< "$1"; }
conn_line() { grep -m1 "^conn k=$2 " "$1"; }
eq() { [ "$1" = "$2" ] || { echo "    expected '$2', got '$1'" | tee -a "$SUMMARY"; return 1; }; }

check_conns() { # LINUX_OUT SIM_OUT
	local lo=$1 so=$2 k l s
	for k in $(seq 1 "$CONNS"); do
		l=$(conn_line "$lo" "$k")
		s=$(conn_line "$so" "$k")
		if [ -z "$l" ] || [ -z "$s" ]; then
			bad "connection $k reported by both sides"
			continue
		fi
		check "conn $k: Linux smc_diag MODE=SMCR" eq "$(kv "$l" mode)" SMCR
		check "conn $k: Linux fallback reason 0, peer diagnosis 0" eq "$(kv "$l" reason)/$(kv "$l" peer_diag)" 0x00000000/0x00000000
		check "conn $k: Linux verified $BYTES bytes each way" eq "$(kv "$l" verified)" yes
		check "conn $k: smcr-sim mode SMCR, verified, closed in order" eq "$(kv "$s" mode)/$(kv "$s" verified)/$(kv "$s" closed)" SMCR/yes/yes
		check "conn $k: smcr-sim fallback reason 0" eq "$(kv "$s" reason)/$(kv "$s" peer_diag)" 0x00000000/0x00000000
		check "conn $k: same TCP connection (ports)" eq "$(kv "$l" local)" "$(kv "$s" peer)"
		check "conn $k: link id (smc_diag lgrinfo = smcr-sim)" eq "$(kv "$l" link_id)" "$(kv "$s" link_id)"
		check "conn $k: Linux's GID is smcr-sim's peer GID" eq "$(kv "$l" gid)" "$(kv "$s" peer_gid)"
		check "conn $k: Linux's peer GID is smcr-sim's GID" eq "$(kv "$l" peer_gid)" "$(kv "$s" gid)"
		check "conn $k: tokens cross (Linux conninfo token = smcr-sim peer token)" eq "$(kv "$l" token)" "$(kv "$s" peer_token)"
	done
}

check_links() { # LINUX_OUT SIM_OUT LINUX_ROLE
	local lo=$1 so=$2 role=$3 ll sl lg sg
	check "Linux dumps exactly $EXP_LGRS link(s) (netlink SMC_NETLINK_GET_LINK_SMCR)" eq "$(grep -c '^link ' "$lo")" "$EXP_LGRS"
	check "smcr-sim has exactly $EXP_LGRS link(s)" eq "$(grep -c '^link ' "$so")" "$EXP_LGRS"
	check "Linux has $EXP_LGRS link group(s)" eq "$(grep '^lgr ' "$lo" | sort -u | wc -l)" "$EXP_LGRS"
	check "smcr-sim has $EXP_LGRS link group(s)" eq "$(grep -c '^lgr ' "$so")" "$EXP_LGRS"
	ll=$(grep -m1 '^link ' "$lo")
	sl=$(grep -m1 '^link ' "$so")
	lg=$(grep -m1 '^lgr ' "$lo")
	sg=$(grep -m1 '^lgr ' "$so")
	check "link id: Linux = smcr-sim" eq "$(kv "$ll" link_id)" "$(kv "$sl" link_id)"
	check "link state ACTIVE on both" eq "$(kv "$ll" state)/$(kv "$sl" state)" 3/3
	check "link GIDs cross (Linux gid/peer_gid = smcr-sim peer_gid/gid)" eq "$(kv "$ll" gid)/$(kv "$ll" peer_gid)" "$(kv "$sl" peer_gid)/$(kv "$sl" gid)"
	check "link user ids cross (Linux uid/peer_uid = smcr-sim peer_uid/uid)" eq "$(kv "$ll" uid)/$(kv "$ll" peer_uid)" "$(kv "$sl" peer_uid)/$(kv "$sl" uid)"
	check "link on rxe0 port 1 on both" eq "$(kv "$ll" ibdev):$(kv "$ll" ibport)/$(kv "$sl" ibdev):$(kv "$sl" ibport)" rxe0:1/rxe0:1
	check "link group roles: Linux $role, smcr-sim the other" eq "$(kv "$lg" role)/$(kv "$sg" role)" "$role/$([ "$role" = server ] && echo client || echo server)"
	check "SMC-Rv2 on both, negotiated UEID $UEID" eq "$(kv "$lg" v2_ver)/$(kv "$sg" v2_ver)/$(kv "$lg" neg_eid)/$(kv "$sg" neg_eid)" "2/2/$UEID/$UEID"
	check "host names from the first contact (Linux sees smcr-sim, smcr-sim sees linux-peer)" eq "$(kv "$lg" peer_host)/$(kv "$sg" peer_host)" smcr-sim/linux-peer
	check "direct route (v2_direct) on both" eq "$(kv "$lg" v2_direct)/$(kv "$sg" v2_direct)" 1/1
	check "release agreed: Linux's peer release = smcr-sim's" eq "$(kv "$lg" v2_rel)" "$(kv "$sg" v2_rel)"
	local st
	st=$(grep -m1 '^stats ' "$so")
	check "smcr-sim: no decode error, no LLC protocol violation, link down $EXP_LINK_DOWN" eq "$(kv "$st" decode_errors)/$(kv "$st" llc_prot_viol)/$(kv "$st" link_down)" "0/0/$EXP_LINK_DOWN"
}

# frames of v2 LLC messages (SEND payload starts 0x21..0x29): "frame type src payload44"
v2_llc() { # PCAP
	tshark -r "$1" -Y "udp.dstport == 4791 && infiniband.bth.opcode == 4" -T fields -e frame.number -e ip.src \
		-e udp.payload 2>/dev/null |
		awk '{ t = substr($3, 25, 2); if (t >= "21" && t <= "29") print $1, t, $2, substr($3, 25, 88) }'
}

check_wire() { # PCAP
	local p=$1 mal exp
	[ -s "$p" ] || { bad "wire capture present"; return; }
	tshark -r "$p" -T fields -e frame.number -e _ws.col.Info > "$p.info" 2>/dev/null
	check "tshark: $CONNS SMC-Rv2 Proposals, Accepts, Confirms" eq \
		"$(grep -c 'SMC-Rv2-Proposal' "$p.info")/$(grep -c 'SMC-Rv2-Accept' "$p.info")/$(grep -c 'SMC-Rv2-Confirm' "$p.info")" \
		"$CONNS/$CONNS/$CONNS"
	check "tshark: CDC messages decoded as SMC-R" test "$(grep -c 'SMC-R\] CDC Message' "$p.info")" -ge $((2 * CONNS))
	check "tshark: RDMA WRITEs carry the data" test "$(grep -c 'RDMA Write' "$p.info")" -gt $((BYTES / 1024))
	v2_llc "$p" > "$p.llc"
	mal=$(tshark -r "$p" -Y _ws.malformed -T fields -e frame.number 2>/dev/null | sort -n | tr '\n' ' ')
	exp=$(awk '$2 == "21" || $2 == "22" { print $1 }' "$p.llc" | sort -n | tr '\n' ' ')
	check "v2 CONFIRM_LINK and ADD_LINK frames on the wire" test -n "$exp"
	check "tshark: malformed frames are exactly the v2 CONFIRM_LINK/ADD_LINK LLC frames ($exp)" eq "$mal" "$exp"
	local other
	other=$(awk '$2 != "21" && $2 != "22" { print $1 }' "$p.llc" | wc -l)
	say "    (v2 LLC frames: $(awk '{print $2}' "$p.llc" | sort | uniq -c | awk '{printf "%s 0x%s, ", $1, $2}')the others shown by tshark as undissected data: $other)"

	"$SMCR_SIM" replay --report netstat "$p" > "$p.replay" 2>&1 # netstat style: a capture of Linux hosts reads as smc-tools otherwise
	check "smcr-sim replay: exit 0" test $? -eq 0
	check "smcr-sim replay: no decode error" grep -q '^Decode errors: 0$' "$p.replay"
	check "smcr-sim replay: two stacks, $EXP_LGRS SMC-Rv2 link group(s) each with $REPLAY_LINKS link(s)" eq \
		"$(grep -c '^SMCR link group' "$p.replay")/$(grep -c 'SMCVersion: 2' "$p.replay")/$(grep -c "Links: $REPLAY_LINKS " "$p.replay")" \
		"$((2 * EXP_LGRS))/$((2 * EXP_LGRS))/$((2 * EXP_LGRS))"
	[ "$REPLAY_LINKS" = 1 ] || check "smcr-sim replay: one of the two links still active per side" eq \
		"$(grep -c 'LinkStatus: Active ' "$p.replay")" 2
	check "smcr-sim replay: $CONNS SMC-R connections per side, closed, $BYTES bytes each way (+8)" eq \
		"$(grep -cE "CLOSED +SMCR +[0-9A-F]{8} .* ($BYTES/$((BYTES + 8))|$((BYTES + 8))/$BYTES)\$" "$p.replay")" $((2 * CONNS))
	check "smcr-sim replay: frames it cannot explain are ARP and ICMPv6 only" \
		test -z "$(sed -n '/^Frames not explained by reason/,/^$/p;/^Frames not explained, by reason/,/^$/p' "$p.replay" | grep -vE 'reason|ARP|ICMPv6|^ *$')"
}

# byte-exactness with Linux 6.1 where the lab's addresses make the bytes comparable
check_bytes_vs_linux() { # PCAP (smcr-sim as client on 10.0.0.12 / rxe GID 10.0.0.2)
	local p=$1 ours theirs
	ours=$(tshark -r "$p" -Y "ip.src == $SIM_IP && tcp.len > 0" -T fields -e tcp.payload 2>/dev/null | grep -m1 '^e2d4c3d901')
	theirs=$(tshark -r "$TRACE" -Y "ip.src == 10.0.0.2 && tcp.len > 0" -T fields -e tcp.payload 2>/dev/null | grep -m1 '^e2d4c3d901')
	check "v2.0 Proposal: smcr-sim's bytes = Linux 6.1's (${#theirs} hex digits)" eq "$ours" "$theirs"
	ours=$(awk '$2 == "21" && $3 == "10.0.0.2" { print $4; exit }' "$p.llc")
	theirs=$(v2_llc "$TRACE" | awk '$2 == "21" && $3 == "10.0.0.2" { print $4; exit }')
	check "CONFIRM_LINK response: smcr-sim's 44 bytes = Linux 6.1's" eq "$ours" "$theirs"
}

check_reject_echo() { # PCAP: the client's ADD_LINK reject repeats the request (Linux does)
	local p=$1 req rej
	req=$(awk '$2 == "22" && substr($4, 7, 2) == "00" { r = substr($4, 9) } $2 == "22" && substr($4, 7, 2) == "c0" { print r; exit }' "$p.llc")
	rej=$(awk '$2 == "22" && substr($4, 7, 2) == "c0" { print substr($4, 9); exit }' "$p.llc")
	if [ "$EXPECT_REJECT" = no ]; then
		check "no ADD_LINK reject (every ADD_LINK accepted)" eq "${rej:-none}" none
		return
	fi
	check "ADD_LINK reject (flags 0xc0) repeats the request's 40 bytes" eq "${rej:-none}" "${req:-missing}"
}

# --- TEST_LINK and the link group's end -----------------------------------------------
# LLC fields in the .llc file's 44-byte hex: flags = byte 3, then the message body
LINUX_IP=10.0.0.1
SIM_GID_IP=10.0.0.2 # smcr-sim's RoCE packets carry the rxe GID of the VM's 10.0.0.2
side_name() { [ "$1" = "$LINUX_IP" ] && echo Linux || echo smcr-sim; }

# TEST_LINK (v2 0x27) on the idle link: the side with the shorter interval (2 s against the
# other's 3 s) sends every request; each is answered; the other side never sends one, as a
# received request is traffic that restarts its idle time (smc_llc_testlink_work compares
# with wr_rx_tstamp, net/smc/smc_llc.c:2103; model/link.c the same with last_rx)
check_testlink() { # SHARE SENDER_IP
	local llc=$1/wire.pcap.llc side=$2 quiet n open
	if [ "$side" = "$LINUX_IP" ]; then quiet=$SIM_GID_IP; else quiet=$LINUX_IP; fi
	n=$(awk -v s="$side" '$2 == "27" && $3 == s && substr($4, 7, 2) == "00"' "$llc" | wc -l)
	check "TEST_LINK: $(side_name "$side") (2 s) sent requests on the idle link: $n (>= 3)" test "$n" -ge 3
	# each request matched, in frame order, by a later response from the other side that
	# repeats the 40 bytes after the flags (Linux echoes the whole message, smc_llc_rx_request)
	open=$(awk -v s="$side" '
		$2 != "27" { next }
		$3 == s && substr($4, 7, 2) == "00" { req[++n] = substr($4, 9); next }
		$3 != s && substr($4, 7, 2) == "80" {
			for (i = 1; i <= n; i++) if (!ans[i] && req[i] == substr($4, 9)) { ans[i] = 1; break }
		}
		END { c = 0; for (i = 1; i <= n; i++) if (!ans[i]) c++; print c + 0 }' "$llc")
	check "TEST_LINK: every request from $(side_name "$side") answered by $(side_name "$quiet") with the same user data" eq "$open" 0
	check "TEST_LINK: $(side_name "$quiet") (3 s) sent none: the requests it got kept its link busy" eq \
		"$(awk -v s="$quiet" '$2 == "27" && $3 == s && substr($4, 7, 2) == "00"' "$llc" | wc -l)" 0
	check "TEST_LINK messages: v2 header, 44 bytes, length 0x2c little-endian" eq \
		"$(awk '$2 == "27" { print substr($4, 3, 4) }' "$llc" | sort -u | tr '\n' ' ')" "2c00 "
	check "Linux: net.smc.smcr_testlink_time as set" grep -qE '^smcr_testlink_time=[23]$' "$1/linux-post.out"
}

# the first DELETE_LINK (v2 0x24) from SRC: "flags reason" (link_num byte 4, reason bytes 5-8)
first_delete_link() { # LLC SRC
	awk -v s="$2" '$2 == "24" && $3 == s { print substr($4, 7, 2), substr($4, 11, 8); exit }' "$1"
}

check_linux_ends_lgr() { # SHARE: Linux unloaded smc.ko while the link group lingered
	local d=$1 llc=$1/wire.pcap.llc
	check "Linux: its one link still ACTIVE after the idle time (netlink)" eq \
		"$(grep -c '^idle_link .*state=3' "$d/linux-post.out")/$(grep -c '^idle_link ' "$d/linux-post.out")" 1/1
	check "Linux: rmmod smc succeeded (smc_exit -> smc_core_exit -> smc_lgrs_shutdown)" grep -q '^rmmod smc: ok' "$d/linux-post.out"
	check "wire: Linux's DELETE_LINK: ALL, not orderly, request (flags 0x40), reason 0x00020000 (operator)" eq \
		"$(first_delete_link "$llc" "$LINUX_IP")" "40 00020000"
	check "smcr-sim: link group ended by the peer, reason 0x00020000" \
		grep -qE 'lgr-terminated .* reason=0x00020000 end=peer-terminated' "$d/sim.err"
	check "wire: smcr-sim answers as Linux's client does (smc_lgr_cleanup): DELETE_LINK ALL 0x40, reason 0x00030000" eq \
		"$(first_delete_link "$llc" "$SIM_GID_IP")" "40 00030000"
	check "smcr-sim: no link group or link left" grep -q '^after lgrs=0 links=0$' "$d/sim.out"
	local st
	st=$(grep -m1 '^stats_end ' "$d/sim.out")
	check "smcr-sim: no decode error, no LLC violation through the end" eq \
		"$(kv "$st" decode_errors)/$(kv "$st" llc_prot_viol)/$(kv "$st" llc_dropped)" 0/0/0
}

check_sim_ends_lgr() { # SHARE: smcr-sim ended the link group (--end-lgr)
	local d=$1 llc=$1/wire.pcap.llc
	check "smcr-sim: ended one link group as an operator" grep -q '^end-lgr ended=1$' "$d/sim.out"
	check "smcr-sim: its link group terminated with reason 0x00020000" \
		grep -qE 'lgr-terminated .* reason=0x00020000 end=terminated' "$d/sim.err"
	check "wire: smcr-sim's DELETE_LINK: ALL, not orderly, request (flags 0x40), reason 0x00020000" eq \
		"$(first_delete_link "$llc" "$SIM_GID_IP")" "40 00020000"
	check "wire: Linux's client answers from smc_lgr_cleanup: DELETE_LINK ALL 0x40, reason 0x00030000" eq \
		"$(first_delete_link "$llc" "$LINUX_IP")" "40 00030000"
	check "Linux: no link group and no link left (netlink)" grep -q '^after_lgrs=0 after_links=0$' "$d/linux-post.out"
	check "smcr-sim: no link group or link left" grep -q '^after lgrs=0 links=0$' "$d/sim.out"
	local st
	st=$(grep -m1 '^stats_end ' "$d/sim.out")
	check "smcr-sim: no decode error, no LLC violation through the end" eq \
		"$(kv "$st" decode_errors)/$(kv "$st" llc_prot_viol)/$(kv "$st" llc_dropped)" 0/0/0
}

# LLC link messages (CONFIRM/ADD/ADD_CONT/DELETE LINK) in wire order: "type:flags:source"
llc_link_seq() { # LLC
	awk '$2 == "21" || $2 == "22" || $2 == "23" || $2 == "24" { printf "%s:%s:%s ", $2, substr($4, 7, 2), $3 }' "$1"
}

# Two links, as both sides saw them while both were active: our links printed just before
# --fail-cmd (prefail_link), Linux's polled from netlink until two were ACTIVE (two_link).
check_two_links() { # SHARE S1 S2 [LINUX_ROLE]: our first link's address and the second's
	local d=$1 s1=$2 s2=$3 lrole=${4:-server} llc=$1/wire.pcap.llc id ll sl
	check "two links ACTIVE on both sides before the failure (netlink / our report)" eq \
		"$(grep -c '^two_link .*state=3' "$d/linux-post.out")/$(grep -c '^prefail_link .*state=3' "$d/sim.out")" 2/2
	for id in 1 2; do
		ll=$(grep -m1 "^two_link .* link_id=$id " "$d/linux-post.out")
		sl=$(grep -m1 "^prefail_link .* link_id=$id " "$d/sim.out")
		check "link $id: GIDs cross (Linux gid/peer_gid = smcr-sim peer_gid/gid)" eq \
			"$(kv "$ll" gid)/$(kv "$ll" peer_gid)" "$(kv "$sl" peer_gid)/$(kv "$sl" gid)"
		check "link $id: link user ids cross ($(kv "$ll" uid))" eq "$(kv "$ll" uid)/$(kv "$ll" peer_uid)" "$(kv "$sl" peer_uid)/$(kv "$sl" uid)"
	done
	check "links on Linux's one rxe0 (asymmetric), ours on rxe0 and rxe1" eq \
		"$(grep '^two_link ' "$d/linux-post.out" | grep -o 'ibdev=[a-z0-9]*' | sort | tr '\n' ' ')/$(grep '^prefail_link ' "$d/sim.out" | grep -o 'ibdev=[a-z0-9]*' | sort | tr '\n' ' ')" \
		"ibdev=rxe0 ibdev=rxe0 /ibdev=rxe0 ibdev=rxe1 "
	local seq resp offer
	seq=$(llc_link_seq "$llc")
	if [ "$lrole" = server ]; then
		check "smcr-sim: the second link made the group ASYMMETRIC_PEER (Linux's client: same server GID, smc_llc.c:1052-1057)" \
			grep -q 'lgr-type .*(ASYMMETRIC_PEER)' "$d/sim.err"
		check "wire: first contact CONFIRM_LINK, Linux's ADD_LINK (v2, rkeys in its extension: no ADD_LINK_CONT), our response on link 1, CONFIRM_LINK on the new link" \
			eq "$(cut -d' ' -f1-6 <<< "$seq") " "21:03:$LINUX_IP 21:83:$s1 22:00:$LINUX_IP 22:80:$s1 21:03:$LINUX_IP 21:83:$s2 "
		resp=$(awk '$2 == "22" && substr($4, 7, 2) == "80" { print substr($4, 9, 12), substr($4, 49, 8); exit }' "$llc")
		offer=$(awk '$2 == "22" && substr($4, 7, 2) == "00" { print substr($4, 49, 8); exit }' "$llc")
		check "wire: our ADD_LINK response offers the second device (its MAC, GID of $s2)" eq "$resp" \
			"52540000000$(cut -d. -f4 <<< "$s2") $(printf '%02x%02x%02x%02x' $(tr . ' ' <<< "$s2"))"
		check "wire: Linux's ADD_LINK offers its one GID again (10.0.0.1)" eq "$offer" 0a000001
	else
		# we are the server: our ADD_LINK offers our other device; Linux's client finds no
		# alternate device and accepts on its one rxe0 (SMC_LGR_ASYMMETRIC_LOCAL,
		# smc_llc.c:1051-1062), so its response repeats its link 1 GID and our server's
		# group becomes ASYMMETRIC_PEER as Linux's server's would (smc_llc.c:1469-1474)
		check "smcr-sim (server): Linux answered from its link 1 GID: group ASYMMETRIC_PEER (smc_llc.c:1469-1474)" \
			grep -q 'lgr-type .*(ASYMMETRIC_PEER)' "$d/sim.err"
		check "Linux (client): group ASYMMETRIC_LOCAL (type 4) with two links (smc_llc.c:1059-1062)" eq \
			"$(kv "$(grep -m1 '^two_lgr ' "$d/linux-post.out")" type)" 4
		check "wire: first contact CONFIRM_LINK, our ADD_LINK (v2, 88 bytes, no ADD_LINK_CONT), Linux's response on link 1, our CONFIRM_LINK on the new link" \
			eq "$(cut -d' ' -f1-6 <<< "$seq") " "21:03:$s1 21:83:$LINUX_IP 22:00:$s1 22:80:$LINUX_IP 21:03:$s2 21:83:$LINUX_IP "
		check "wire: v2 ADD_LINK request and response are 88 bytes (length 0x58 little-endian)" eq \
			"$(awk '$2 == "22" { print substr($4, 3, 4); n++ } n == 2 { exit }' "$llc" | tr '\n' ' ')" "5800 5800 "
		resp=$(awk '$2 == "22" && substr($4, 7, 2) == "80" { print substr($4, 9, 12), substr($4, 49, 8); exit }' "$llc")
		offer=$(awk '$2 == "22" && substr($4, 7, 2) == "00" { print substr($4, 9, 12), substr($4, 49, 8); exit }' "$llc")
		check "wire: our ADD_LINK offers the second device (its MAC, GID of $s2)" eq "$offer" \
			"52540000000$(cut -d. -f4 <<< "$s2") $(printf '%02x%02x%02x%02x' $(tr . ' ' <<< "$s2"))"
		check "wire: Linux's response offers its one MAC and GID again (10.0.0.1)" eq "$resp" "525400000001 0a000001"
		check "wire: ADD_LINK request and response both for link 2, MTU 1024 (link_num, flags2 & 0x0f = 3)" eq \
			"$(awk '$2 == "22" { print substr($4, 63, 2) "/" substr($4, 66, 1); n++ } n == 2 { exit }' "$llc" | tr '\n' ' ')" "02/3 02/3 "
		# the v2 extension after the 44 bytes (smc_llc_fill_ext_v2, smc_llc.c:598-635):
		# v2_direct (0x80), client_target_gid = the sender's new link GID, num_rkeys in host
		# order (little-endian), then 16 bytes per RMB
		local ext
		ext=$(tshark -r "$d/wire.pcap" -Y "udp.dstport == 4791 && infiniband.bth.opcode == 4" -T fields -e ip.src -e udp.payload 2>/dev/null |
			awk 'substr($2, 25, 2) == "22" { x = substr($2, 25 + 88); print $1, substr(x, 1, 2), substr(x, 29, 8), substr(x, 53, 4); n++ } n == 2 { exit }' | tr '\n' ' ')
		check "wire: v2 ADD_LINK extensions: direct, target GID = the sender's new GID, 1 rkey (little-endian) - ours and Linux's" eq \
			"$ext" "$s1 80 $(printf '%02x%02x%02x%02x' $(tr . ' ' <<< "$s2")) 0100 $LINUX_IP 80 0a000001 0100 "
	fi
	check "wire: no ADD_LINK_CONT (0x23)" eq "$(grep -c ' 23 ' "$llc")" 0
	check "smcr-sim: --fail-cmd ran mid-transfer (after $((2 * BYTES)) of $((4 * BYTES)) bytes received)" \
		grep -qE '^fail-cmd .* rc=0$' "$d/sim.out"
	local got
	got=$(kv "$(grep -m1 '^fail-cmd ' "$d/sim.out")" received)
	check "failure while data flowed: received at the failure < all bytes" test "${got:-0}" -lt $((4 * (BYTES + 8)))
}

# Our second link's path fails (link 2 on rxe1/mv0): no connection moves (Linux puts new
# connections on non-asymmetric links only, smcr_lgr_conn_assign_link), our client sends
# DELETE_LINK on link 1, Linux echoes it as a request, we answer as Linux's client does
# for a link it already cleared (NOLNK), Linux tries a new asymmetric link and we reject it.
checks_failover_second() {
	local d=$1 llc=$1/wire.pcap.llc
	check_two_links "$d" "$SIM_GID_IP" 10.0.0.4
	check "smcr-sim: link 2 down on rxe1's failure (port error or a work completion error, whichever rxe reports first), removed" eq \
		"$(grep -cE 'link-down .* link_id=2 \((port error|work completion error)\)' "$d/sim.err")/$(grep -cE 'link-removed .* link_id=2' "$d/sim.err")" 1/1
	check "wire: after the failure: our DELETE_LINK (orderly, lost path) on link 1, Linux's echo, our NOLNK response, Linux's new ADD_LINK, our reject" \
		eq "$(llc_link_seq "$llc" | cut -d' ' -f7-)" \
		"24:20:$SIM_GID_IP 24:20:$LINUX_IP 24:a0:$SIM_GID_IP 22:00:$LINUX_IP 22:c0:$SIM_GID_IP "
	check "wire: our DELETE_LINK: link 2, reason 0x00010000 (SMC_LLC_DEL_LOST_PATH, smc_core.c:1706-1708)" eq \
		"$(awk -v s="$SIM_GID_IP" '$2 == "24" && $3 == s { print substr($4, 9, 10); exit }' "$llc")" 0200010000
	check "wire: Linux echoes it unchanged (smc_llc.c:1686-1691)" eq \
		"$(awk '$2 == "24" { print $4 }' "$llc" | sed -n 2p)" "$(awk '$2 == "24" { print $4 }' "$llc" | sed -n 1p)"
	check "wire: our response: reason 0x00100000 (SMC_LLC_DEL_NOLNK, as Linux's client, smc_llc.c:1597-1602)" eq \
		"$(awk '$2 == "24" && substr($4, 7, 2) == "a0" { print substr($4, 9, 10); exit }' "$llc")" 0200100000
	check "Linux: link group SINGLE again after the failure (netlink type 1)" eq "$(kv "$(grep -m1 '^lgr ' "$d/linux.out")" type)" 1
	check "smcr-sim replay: both sides removed link 2, lost path" eq \
		"$(grep -c 'SMC-R link removed: DELETE LINK request from the client: lost path' "$d/wire.pcap.replay")" 2
}

# Our first link's path fails (link 1 on rxe1/mv0, carrying connections 2-4): both sides
# move the connections to link 2 and every byte arrives. Linux's side of the DELETE_LINK
# never completes here: it waits for the lost link's sends (smc_llc.c:1682-1684,
# smc_wr.c:61-63), and rxe retries them forever (SMC asks retry_cnt 7, smc_ib.c:37 and 102;
# rxe takes 7 as infinite, rxe_comp.c:703-705).
checks_failover_first() {
	local d=$1 llc=$1/wire.pcap.llc k
	check_two_links "$d" 10.0.0.4 "$SIM_GID_IP"
	check "smcr-sim: link 1 down on rxe1's failure (port error or a work completion error, whichever rxe reports first), removed" eq \
		"$(grep -cE 'link-down .* link_id=1 \((port error|work completion error)\)' "$d/sim.err")/$(grep -cE 'link-removed .* link_id=1' "$d/sim.err")" 1/1
	check "smcr-sim: link 1 carried connections 2-$CONNS when it failed" eq \
		"$(kv "$(grep -m1 '^prefail_link .* link_id=1 ' "$d/sim.out")" conn_cnt)" $((CONNS - 1))
	for k in $(seq 2 "$CONNS"); do
		check "conn $k: on link 2 at the end on both sides (smc_diag lgrinfo / ours)" eq \
			"$(kv "$(conn_line "$d/linux.out" "$k")" link_id)/$(kv "$(conn_line "$d/sim.out" "$k")" link_id)" 2/2
	done
	check "wire: after the failure: our DELETE_LINK (orderly, lost path) on link 2; no echo from Linux (rxe: the lost link's sends never end)" \
		eq "$(llc_link_seq "$llc" | cut -d' ' -f7-)" "24:20:$SIM_GID_IP "
	check "wire: our DELETE_LINK: link 1, reason 0x00010000 (SMC_LLC_DEL_LOST_PATH)" eq \
		"$(awk -v s="$SIM_GID_IP" '$2 == "24" && $3 == s { print substr($4, 9, 10); exit }' "$llc")" 0100010000
	local f last
	f=$(awk '$2 == "24" { print $1; exit }' "$llc")
	last=$(tshark -r "$d/wire.pcap" -Y "ip.dst == 10.0.0.4 && udp.dstport == 4791" -T fields -e frame.number 2>/dev/null | tail -1)
	check "wire: Linux still retransmits to the lost path after our DELETE_LINK (frame ${last:-none} > $f)" test "${last:-0}" -gt "${f:-0}"
	check "Linux: one usable link left (link 2), group still ASYMMETRIC_LOCAL (type 4): its DELETE_LINK flow waits" eq \
		"$(grep -c '^link ' "$d/linux.out")/$(kv "$(grep -m1 '^link ' "$d/linux.out")" link_id)/$(kv "$(grep -m1 '^lgr ' "$d/linux.out")" type)" 1/2/4
	check "smcr-sim replay: connections 2-$CONNS on link 2 (0102) on both sides" eq \
		"$(grep -cE "CLOSED +SMCR +00000102 " "$d/wire.pcap.replay")" $((2 * (CONNS - 1)))
}

# smcr-sim is the SERVER (Linux's client on its one rxe0). After our path fails our server
# runs Linux's server flow: smcr_link_down queues a local DELETE_LINK (orderly, link id,
# SMC_LLC_DEL_LOST_PATH: smc_core.c:1692-1694, smc_llc.c:1561-1570) which
# smc_llc_process_srv_delete_link switches the connections for and sends on the surviving
# link (smc_llc.c:1683-1691); Linux's client responds at once, reason 0, before it switches
# its own connections (smc_llc.c:1597-1610) - no wait for the lost link's sends, so the flow
# completes on rxe too; the server, SINGLE again, offers an asymmetric link on its one
# remaining device (smc_llc.c:1710-1712) and Linux's client, with no alternate device,
# rejects an ADD_LINK from its link 1 peer's GID (smc_llc.c:1052-1056).
checks_cli_delete_flow() { # SHARE LOST_LINK_ID
	local d=$1 id=$2 llc=$1/wire.pcap.llc
	check "wire: after the failure: our DELETE_LINK (orderly), Linux's response, our ADD_LINK on the remaining device, Linux's reject" \
		eq "$(llc_link_seq "$llc" | cut -d' ' -f7-)" "24:20:$SIM_GID_IP 24:a0:$LINUX_IP 22:00:$SIM_GID_IP 22:c0:$LINUX_IP "
	check "wire: our DELETE_LINK: link $id, reason 0x00010000 (SMC_LLC_DEL_LOST_PATH, server: smc_llc_srv_delete_link_local)" eq \
		"$(awk -v s="$SIM_GID_IP" '$2 == "24" && $3 == s { print substr($4, 9, 10); exit }' "$llc")" "0${id}00010000"
	check "wire: Linux's response: link $id, reason 0 (smc_llc.c:1597, 1606-1607)" eq \
		"$(awk '$2 == "24" && substr($4, 7, 2) == "a0" { print substr($4, 9, 10); exit }' "$llc")" "0${id}00000000"
	check "wire: our new ADD_LINK offers our remaining GID (10.0.0.2, asymmetric on our side)" eq \
		"$(awk '$2 == "22" && substr($4, 7, 2) == "00" { g = substr($4, 49, 8) } END { print g }' "$llc")" 0a000002
	check "smcr-sim: the reject reported, no link added" grep -q 'add-link-rejected' "$d/sim.err"
	check "Linux: SINGLE again, one link left (netlink type 1); ours SINGLE (type 1)" eq \
		"$(kv "$(grep -m1 '^lgr ' "$d/linux.out")" type)/$(kv "$(grep -m1 '^lgr ' "$d/sim.out")" type)" 1/1
	check "smcr-sim replay: both sides removed link $id: DELETE LINK from the server, lost path" eq \
		"$(grep -c 'SMC-R link removed: DELETE LINK request from the server: lost path' "$d/wire.pcap.replay")" 2
}

# link 2 (our rxe1, no connections: new connections go to the non-asymmetric link 1 on both
# sides, smcr_lgr_conn_assign_link, smc_core.c:134) fails
checks_cli_failover_second() {
	local d=$1 k
	check_two_links "$d" "$SIM_GID_IP" 10.0.0.4 client
	check "smcr-sim: link 2 down on rxe1's failure (port error or a work completion error, whichever rxe reports first), removed" eq \
		"$(grep -cE 'link-down .* link_id=2 \((port error|work completion error)\)' "$d/sim.err")/$(grep -cE 'link-removed .* link_id=2' "$d/sim.err")" 1/1
	check "the asymmetric link 2 carried no connection (ours before the failure)" eq \
		"$(kv "$(grep -m1 '^prefail_link .* link_id=2 ' "$d/sim.out")" conn_cnt)" 0
	for k in $(seq 2 "$CONNS"); do
		check "conn $k: on link 1 on both sides (smc_diag lgrinfo / ours)" eq \
			"$(kv "$(conn_line "$d/linux.out" "$k")" link_id)/$(kv "$(conn_line "$d/sim.out" "$k")" link_id)" 1/1
	done
	checks_cli_delete_flow "$d" 2
}

# link 1 (our rxe1, carrying connections 2-N) fails: both sides move them to link 2
checks_cli_failover_first() {
	local d=$1 k
	check_two_links "$d" 10.0.0.4 "$SIM_GID_IP" client
	check "smcr-sim: link 1 down on rxe1's failure (port error or a work completion error, whichever rxe reports first), removed" eq \
		"$(grep -cE 'link-down .* link_id=1 \((port error|work completion error)\)' "$d/sim.err")/$(grep -cE 'link-removed .* link_id=1' "$d/sim.err")" 1/1
	check "smcr-sim: link 1 carried connections 2-$CONNS when it failed, link 2 none" eq \
		"$(kv "$(grep -m1 '^prefail_link .* link_id=1 ' "$d/sim.out")" conn_cnt)/$(kv "$(grep -m1 '^prefail_link .* link_id=2 ' "$d/sim.out")" conn_cnt)" \
		$((CONNS - 1))/0
	for k in $(seq 2 "$CONNS"); do
		check "conn $k: on link 2 at the end on both sides (smc_diag lgrinfo / ours)" eq \
			"$(kv "$(conn_line "$d/linux.out" "$k")" link_id)/$(kv "$(conn_line "$d/sim.out" "$k")" link_id)" 2/2
	done
	checks_cli_delete_flow "$d" 1
	check "Linux: the one link left is link 2" eq "$(grep -c '^link ' "$d/linux.out")/$(kv "$(grep -m1 '^link ' "$d/linux.out")" link_id)" 1/2
	check "smcr-sim replay: connections 2-$CONNS on link 2 (0102) on both sides" eq \
		"$(grep -cE "CLOSED +SMCR +00000102 " "$d/wire.pcap.replay")" $((2 * (CONNS - 1)))
}
checks_testlink_and_linux_end() { check_testlink "$1" "$LINUX_IP"; check_linux_ends_lgr "$1"; }
checks_testlink_and_sim_end() { check_testlink "$1" "$SIM_GID_IP"; check_sim_ends_lgr "$1"; }
# Linux's TEST_LINK interval is net.smc.smcr_testlink_time, read when a link group is made
# (smc_llc_lgr_init, net/smc/smc_llc.c:2137; seconds, proc_dointvec_jiffies)
linux_testlink() { echo "echo $1 > /proc/sys/net/smc/smcr_testlink_time || exit 1
echo \"smcr_testlink_time=\$(cat /proc/sys/net/smc/smcr_testlink_time)\" >> /mnt/host/linux-post.out"; }

# --- one run -------------------------------------------------------------------------
run_case() { # NAME LINUX_ROLE PROPOSED_RELEASE SIM_EXTRA [BYTES_CHECK]
	local name=$1 lrole=$2 rel=$3 extra=$4 bytes_check=${5:-} share t0 rc
	case " ${RUNS:-$name} " in *" $name "*) ;; *) return 0 ;; esac
	RUN=$name
	share=$WORK/$name
	mkdir -p "$share"
	cat > "$share/job-linux.sh" <<EOF
# VM1: kernel SMC-R, Linux $lrole
hostname linux-peer
while read -r ko; do insmod "\$ko" || exit 1; done < /etc/smcr-interop-modules
smc_nl ueid-add $UEID || exit 1
smc_nl pnet-add LABNET eth0 rxe0 1 || exit 1
: > /mnt/host/linux-post.out
$LINUX_PRE
EOF
	if [ "$lrole" = server ]; then
		echo "smc_peer server --port 5000 --conns $CONNS --bytes $BYTES > /mnt/host/linux.out 2>&1; rc=\$?" >> "$share/job-linux.sh"
	else
		echo "smc_peer client --peer $SIM_IP --port 5000 --conns $CONNS --bytes $BYTES --wait 90 > /mnt/host/linux.out 2>&1; rc=\$?" >> "$share/job-linux.sh"
	fi
	cat >> "$share/job-linux.sh" <<'EOF'
smc_nl lgrs >> /mnt/host/linux.out
smc_nl links | grep '^link ' >> /mnt/host/linux.out
EOF
	printf '%s\n' "$LINUX_POST" >> "$share/job-linux.sh"
	cat >> "$share/job-linux.sh" <<'EOF'
cat /mnt/host/linux.out /mnt/host/linux-post.out
exit $rc
EOF
	local srole peer=""
	if [ "$lrole" = server ]; then srole=client; peer="--peer 10.0.0.1"; else srole=server; fi
	cat > "$share/job-sim.sh" <<EOF
# VM2: smcr-sim $srole, stack $SIM_IP on eth0 (AF_PACKET), QPs on rxe0 (GID of 10.0.0.2)
$SIM_PRE
smcr-sim interop $srole --ifname eth0 --ip $SIM_IP/24 $SIM_DEVS --ueid $UEID --pnet LABNET \\
	$peer --port 5000 --conns $CONNS --bytes $BYTES --wait 90s --timeout 120s $extra -v \\
	> /mnt/host/sim.out 2> /mnt/host/sim.err
rc=\$?
cat /mnt/host/sim.out
grep -v conn-state /mnt/host/sim.err
exit \$rc
EOF
	t0=$(now)
	WD=$WD TIMEOUT=$((WD + 60)) timeout --kill-after=10 $((WD + 90)) "$HERE/../vm-run.sh" "$WORK/initrd.gz" "$share" pair linux sim \
		> "$share/vm-run.log" 2>&1
	rc=$?
	say "$name: $(grep -m1 '^vm-run:' "$share/vm-run.log" || echo "vm-run exited with $rc") [$(since "$t0") s]"
	check "both VMs passed (guest jobs exit 0)" test $rc -eq 0
	for f in linux.out sim.out; do
		[ -f "$share/$f" ] || : > "$share/$f"
	done
	check "Linux: $(grep -m1 '^result' "$share/linux.out" || echo 'no result')" grep -q '^result pass' "$share/linux.out"
	check "smcr-sim: $(grep -m1 '^result' "$share/sim.out" || echo 'no result')" grep -q '^result pass' "$share/sim.out"
	check_conns "$share/linux.out" "$share/sim.out"
	check_links "$share/linux.out" "$share/sim.out" "$lrole"
	check_wire "$share/wire.pcap"
	check_reject_echo "$share/wire.pcap"
	local settle=$((rel < LINUX_REL ? rel : LINUX_REL))
	check "release: the first Proposal offers v2.$rel, the first contact settles on v2.$settle (Linux speaks v2.$LINUX_REL)" eq \
		"$(tshark -r "$share/wire.pcap" -Y smc -T fields -e smc.proposal.smc.version.relnum -e smc.accept.smc.version.relnum \
			-e smc.confirm.smc.version.relnum 2>/dev/null | tr -d '\t' | head -3 | tr '\n' ' ')" "$rel $settle $settle "
	if [ -n "$bytes_check" ] && [ -r "$TRACE" ] && [ "$LINUX_REL" = 0 ]; then
		check_bytes_vs_linux "$share/wire.pcap"
	fi
	[ -z "$EXTRA_CHECKS" ] || "$EXTRA_CHECKS" "$share"
}

LINUX_PRE="" LINUX_POST="" EXTRA_CHECKS="" SIM_PRE="" SIM_DEVS="--dev rxe0:1@10.0.0.2" EXP_LINK_DOWN=0 REPLAY_LINKS=1 EXPECT_REJECT=yes
EXP_LGRS=1
run_case linux-server server 0 "--release 0" bytes

# TEST_LINK every 2 s from smcr-sim (Linux: 3 s) while the link group lingers idle (7 s);
# then smcr-sim ends the link group (as `rmmod smc` would on Linux); Linux's netlink then
# shows it gone
LINUX_PRE=$(linux_testlink 3)
LINUX_POST='for i in $(seq 1 60); do smc_nl lgrs | grep -q "^lgr " || break; sleep 0.25; done
echo "after_lgrs=$(smc_nl lgrs | grep -c "^lgr ") after_links=$(smc_nl links | grep -c "^link ")" >> /mnt/host/linux-post.out'
EXTRA_CHECKS=checks_testlink_and_sim_end
run_case linux-client client "$LINUX_REL" "--testlink 2s --linger 7s --end-lgr --after 15s"

# TEST_LINK every 2 s from Linux (smcr-sim: 3 s) while the link group lingers idle (12 s),
# then Linux unloads smc.ko: DELETE_LINK ALL from Linux. smcr-sim reports at 14 s, between.
LINUX_PRE=$(linux_testlink 2)
LINUX_POST='sleep 12
smc_nl links | grep "^link " | sed "s/^/idle_/" >> /mnt/host/linux-post.out
sleep 4
for i in $(seq 1 40); do rmmod smc_diag 2>/dev/null; rmmod smc 2>/dev/null && break; sleep 0.25; done
[ -d /sys/module/smc ] && echo "rmmod smc: failed" >> /mnt/host/linux-post.out || echo "rmmod smc: ok" >> /mnt/host/linux-post.out
sleep 1
dmesg | grep -i smc | sed "s/^/dmesg /" >> /mnt/host/linux-post.out'
EXTRA_CHECKS=checks_testlink_and_linux_end
run_case linux-server-v21 server 1 "--testlink 3s --linger 14s --after 20s"

# --- a second link and failover -----------------------------------------------------
# VM2 gets a second RoCE device: rxe allows one per netdev, so rxe1 sits on a macvlan of
# eth0 (mv0, 10.0.0.4/24, its own MAC). smcr-sim gets both (--dev twice, PNET LABNET);
# Linux keeps its one rxe0 and, as server, adds the second link anyway when the client
# offers another GID (SMC_LGR_ASYMMETRIC_LOCAL, net/smc/smc_llc.c:1427-1430). Mid-transfer
# smcr-sim runs `ip link set mv0 down` (rxe1's port goes to error: a real IB_EVENT_PORT_ERR
# through the verbs async events).
SIM_PRE='while read -r ko; do insmod "$ko" || exit 1; done < /etc/smcr-interop-net-modules
/usr/bin/ip link add mv0 link eth0 address 52:54:00:00:00:04 type macvlan mode bridge || exit 1
echo 1 > /proc/sys/net/ipv4/conf/all/arp_ignore; echo 2 > /proc/sys/net/ipv4/conf/all/arp_announce
/usr/bin/ip addr add 10.0.0.4/24 dev mv0 && /usr/bin/ip link set mv0 up || exit 1
rdma link add rxe1 type rxe netdev mv0 || exit 1
for i in $(seq 1 100); do grep -q "ffff:0a00:0004" /sys/class/infiniband/rxe1/ports/1/gids/* 2>/dev/null && break; sleep 0.1; done
echo "rxe1: $(cat /sys/class/infiniband/rxe1/ports/1/state) $(grep -h ffff /sys/class/infiniband/rxe1/ports/1/gids/* | tr "\n" " ")" >&2'
# Linux's netlink view while it has two links (polled during the exchange)
LINUX_PRE='( for i in $(seq 1 600); do smc_nl links | grep "^link " > /tmp/links; [ "$(grep -c "state=3 .*peer_uid=0000010[12]" /tmp/links)" -ge 2 ] && { sed "s/^/two_/" /tmp/links >> /mnt/host/linux-post.out; smc_nl lgrs | grep "^lgr " | sed "s/^/two_/" >> /mnt/host/linux-post.out; break; }; sleep 0.1; done ) &'
LINUX_POST='sleep 1; wait'
EXP_LINK_DOWN=1 REPLAY_LINKS=2
B_SAVED=$BYTES
BYTES=${BYTES_2LINKS:-4194304}
FAIL="--fail-after $((2 * BYTES)) --fail-cmd '/usr/bin/ip link set mv0 down'"
EXTRA_CHECKS=checks_failover_second
SIM_DEVS="--dev rxe0:1@10.0.0.2 --dev rxe1:1@10.0.0.4"
run_case linux-server-2links server 0 "--release 0 $FAIL"
EXTRA_CHECKS=checks_failover_first EXPECT_REJECT=no
SIM_DEVS="--dev rxe1:1@10.0.0.4 --dev rxe0:1@10.0.0.2"
run_case linux-server-2links-rev server 0 "--release 0 $FAIL"
# smcr-sim as the server with two devices, Linux's client on its one rxe0
EXTRA_CHECKS=checks_cli_failover_second EXPECT_REJECT=yes
SIM_DEVS="--dev rxe0:1@10.0.0.2 --dev rxe1:1@10.0.0.4"
run_case linux-client-2links client "$LINUX_REL" "$FAIL"
EXTRA_CHECKS=checks_cli_failover_first
SIM_DEVS="--dev rxe1:1@10.0.0.4 --dev rxe0:1@10.0.0.2"
run_case linux-client-2links-rev client "$LINUX_REL" "$FAIL"
BYTES=$B_SAVED


# --- v2.1 (a kernel of 6.6 or later) ---------------------------------------------------
# smcr_max_links_per_lgr 1 on the Linux server: the first contact negotiates max_links 1
# (smc_clc_srv_v2x_features_validate: min(proposal, sysctl)), both sides show it, and the
# server offers no second link (smc_llc_srv_add_link: SINGLE and max_links <= 1)
checks_maxlinks1() {
	local d=$1 llc=$1/wire.pcap.llc
	check "Linux and smcr-sim: the link group's max_links is 1 (netlink / our report)" eq \
		"$(kv "$(grep -m1 '^lgr ' "$d/linux.out")" max_links)/$(kv "$(grep -m1 '^lgr ' "$d/sim.out")" max_links)" 1/1
	check "wire: no ADD_LINK at all (0x22)" eq "$(awk '$2 == "22"' "$llc" | wc -l)" 0
	check "wire: the first contact's CONFIRM_LINK carries max_links 1 (byte 34)" eq \
		"$(awk '$2 == "21" { print substr($4, 69, 2); exit }' "$llc")" 01
}
# smcr_max_conns_per_lgr 16 on the Linux server, 20 connections: the 17th finds the group
# full (smc_conn_create: conns_num < max_conns) and opens a second one, on both sides
checks_maxconns16() {
	local d=$1
	check "Linux: two link groups, each with max_conns 16" eq \
		"$(grep '^lgr ' "$d/linux.out" | sort -u | grep -c 'max_conns=16 ')" 2
	check "smcr-sim: two link groups, each with max_conns 16" eq "$(grep '^lgr ' "$d/sim.out" | grep -c 'max_conns=16 ')" 2
}
if [ "$LINUX_REL" = 1 ]; then
	LINUX_PRE='echo 1 > /proc/sys/net/smc/smcr_max_links_per_lgr || exit 1' LINUX_POST="" SIM_PRE=""
	SIM_DEVS="--dev rxe0:1@10.0.0.2" EXP_LINK_DOWN=0 REPLAY_LINKS=1 EXPECT_REJECT=no EXP_LGRS=1
	EXTRA_CHECKS=checks_maxlinks1
	run_case linux-server-maxlinks1 server 1 ""
	LINUX_PRE='echo 16 > /proc/sys/net/smc/smcr_max_conns_per_lgr || exit 1' EXPECT_REJECT=yes EXP_LGRS=2
	EXTRA_CHECKS=checks_maxconns16
	C_SAVED=$CONNS B_SAVED=$BYTES
	# 16 MiB each: the 19 connections after the first must be open at once for the 17th to
	# find the group full; with 64 KiB each the early ones had closed before the last ones'
	# handshakes (which the server serialises) came, and both sides kept one link group
	CONNS=20 BYTES=16777216
	run_case linux-server-maxconns16 server 1 ""
	CONNS=$C_SAVED BYTES=$B_SAVED EXP_LGRS=1
fi

say "check-interop: $FAILED failed checks, $(grep -c '^ok - ' "$SUMMARY") passed, in $(since "$T_ALL") s"
[ "$FAILED" -eq 0 ]
