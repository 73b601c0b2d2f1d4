# Wireshark as the judge of the simulated fabric's RoCE encoding: a capture of RoCE v1 and
# v2 SENDs (44-byte payloads shaped like SMC-R CDC messages), RDMA WRITEs (FIRST, MIDDLE,
# LAST, ONLY with pad) and ACKs must decode as InfiniBand, with no malformed frames, no
# expert warnings and correct IP checksums; the CDC-shaped SENDs must decode as SMC-R.
set -eu
. tests/lib.sh
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
pcap=$dir/fabric.pcap

expect_exit 2 "$SMCR_SIM" debug
expect_exit 2 "$SMCR_SIM" debug no-such-tool
expect_exit 2 "$SMCR_SIM" debug fabric-pcap
expect_exit 2 "$SMCR_SIM" debug fabric-pcap --roce v3 "$pcap"
expect_stderr 'nonexistent' "$SMCR_SIM" debug fabric-pcap /nonexistent/x.pcap

"$SMCR_SIM" debug fabric-pcap "$pcap" | grep -q 'wrote .*: 24 frames' || fail "capture not written"
sh tests/tshark-check "$pcap" 4 >"$dir/summary" || { cat "$dir/summary"; fail "tshark-check rejected the capture"; }

t() { tshark -n -o ip.check_checksum:TRUE -r "$pcap" "$@" 2>/dev/null; }
count() { t -Y "$1" -T fields -e frame.number | wc -l; }

[ "$(count infiniband)" -eq 24 ] || fail "not every frame decodes as InfiniBand"
[ "$(count 'eth.type == 0x8915 && infiniband.grh.nxthdr == 0x1b')" -eq 12 ] || fail "RoCE v1: 12 frames with a GRH"
[ "$(count 'udp.dstport == 4791 && udp.srcport >= 49152 && udp.checksum == 0')" -eq 12 ] ||
	fail "RoCE v2: 12 frames to UDP 4791 from an ephemeral port, UDP checksum 0"
[ "$(count 'ip.checksum.status == "Good"')" -eq 12 ] || fail "IPv4 header checksums"
[ "$(count infiniband.invariant.crc)" -eq 24 ] || fail "every frame carries an ICRC"
ops=$(t -Y infiniband -T fields -e infiniband.bth.opcode | sort -n | uniq | tr '\n' ' ')
[ "$ops" = "4 6 7 8 10 17 " ] || fail "opcodes seen: $ops (want SEND ONLY, WRITE FIRST/MIDDLE/LAST/ONLY, ACK)"
[ "$(count 'smc.llc_msg == 0xfe')" -eq 4 ] || fail "the 4 CDC-shaped SENDs decode as SMC-R CDC"
[ "$(count 'infiniband.bth.opcode == 4 && infiniband.bth.se == 1 && infiniband.bth.a == 1')" -eq 4 ] ||
	fail "SENDs carry SE (solicited) and AckReq"
[ "$(count 'smc.rmbe.ctrl.peer.prod.curs == 5061')" -eq 2 ] || fail "CDC producer cursor field"
[ "$(count 'infiniband.reth.dmalen == 5000 && infiniband.bth.opcode == 6')" -eq 2 ] || fail "RETH on WRITE FIRST"
[ "$(count 'infiniband.bth.opcode == 10 && infiniband.bth.padcnt == 3 && infiniband.reth.dmalen == 61')" -eq 2 ] ||
	fail "a 61-byte WRITE ONLY is padded by 3"
[ "$(count 'infiniband.bth.opcode == 17 && infiniband.aeth.syndrome == 0x1f')" -eq 8 ] || fail "ACKs with AETH"

# a corrupted ICRC is invisible to tshark (it does not check it) but the capture still
# decodes: our own receiver is what drops such frames (tests/sim/rdma/test_qp.c)
echo "fabric tshark ok"
