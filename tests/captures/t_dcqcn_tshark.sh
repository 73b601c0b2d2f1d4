# Wireshark as the judge of DCQCN on the wire: a capture of the bottleneck of two RoCE v2
# flows (sim/testbed/testbed_bottleneck.h, `smcr-sim debug dcqcn-pcap`) holds ECT(0) data,
# frames the bottleneck marked CE and the receivers' CNPs. Every frame decodes as
# InfiniBand, none is malformed or carries an expert warning, IPv4 checksums are right
# (also after marking), and the CNPs have the Annex A17.9.3 shape: BTH opcode 0x81, BECN
# set, PSN 0, 16 reserved bytes then the ICRC, not ECN-capable, DSCP 48, tagged PCP 6
# when the adapter tags. Wireshark 4.0 has no name for opcode 0x81 ("Unknown (129)") and
# shows its 20 bytes after the BTH as vendor data: we check those bytes ourselves.
set -eu
. tests/lib.sh
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
pcap=$dir/dcqcn.pcap

expect_exit 2 "$SMCR_SIM" debug dcqcn-pcap
expect_exit 2 "$SMCR_SIM" debug dcqcn-pcap --frames 0 "$pcap"
"$SMCR_SIM" debug dcqcn-pcap "$pcap" >"$dir/out" || { cat "$dir/out"; fail "dcqcn-pcap failed"; }
grep -q 'marked CE' "$dir/out" || fail "no summary line"
sh tests/tshark-check "$pcap" >"$dir/summary" || { tail "$dir/summary"; fail "tshark-check rejected the capture"; }

t() { tshark -n -o ip.check_checksum:TRUE -r "$pcap" "$@" 2>/dev/null; }
count() { t -Y "$1" -T fields -e frame.number | wc -l; }

total=$(count frame)
[ "$total" -gt 1000 ] || fail "capture too short ($total frames)"
[ "$(count infiniband)" -eq "$total" ] || fail "not every frame decodes as InfiniBand"
[ "$(count 'ip.checksum.status == "Good"')" -eq "$total" ] || fail "IPv4 header checksums (marking must fix them)"
ect=$(count 'ip.dsfield.ecn == 2 && infiniband.bth.opcode != 0x81')
ce=$(count 'ip.dsfield.ecn == 3 && infiniband.bth.opcode != 0x81')
cnp=$(count 'infiniband.bth.opcode == 0x81')
[ "$ect" -gt 0 ] || fail "no ECT(0) data frames"
[ "$ce" -gt 0 ] || fail "no CE-marked frames"
[ "$cnp" -gt 0 ] || fail "no CNPs"
[ "$(count 'infiniband.bth.opcode == 0x81 && ip.dsfield.ecn == 0 && ip.dsfield.dscp == 48 && infiniband.bth.psn == 0 && infiniband.bth.a == 0 && udp.dstport == 4791 && udp.length == 40 && infiniband.reserved == 0x40')" -eq "$cnp" ] ||
	fail "CNP headers: not ECN-capable, DSCP 48, PSN 0, no AckReq, UDP length 8 + 12 + 16 + 4, BECN"
# (BTH byte 4 is F|B|reserved: 0x40 = BECN; tshark 4.0 calls the byte "Reserved")
# the 16 reserved bytes are zero (the ICRC follows them)
t -Y 'infiniband.bth.opcode == 0x81' -T fields -e infiniband.vendor > "$dir/rsv"
[ "$(grep -Ecv '(^|,)00000000000000000000000000000000[0-9a-f]{8}$' "$dir/rsv" || true)" -eq 0 ] ||
	fail "CNP: 16 reserved bytes of zero, then the ICRC"
# each CNP goes to a sender: a QP that the receivers acknowledge
t -Y 'infiniband.bth.opcode == 0x81' -T fields -e infiniband.bth.destqp | sort -u >"$dir/cnpq"
t -Y 'infiniband.bth.opcode == 17' -T fields -e infiniband.bth.destqp | sort -u >"$dir/ackq"
[ -z "$(comm -23 "$dir/cnpq" "$dir/ackq")" ] || fail "CNPs to QPs that send nothing: $(comm -23 "$dir/cnpq" "$dir/ackq")"
echo "dcqcn tshark ok ($total frames: $ect ECT(0), $ce CE, $cnp CNPs)"
