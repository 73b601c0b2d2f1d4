# tshark as an independent judge of our TCP: the SMC option (kind 254, ExID 0xE2D4) on the
# SYN and the SYN-ACK, nothing malformed, IPv4 and TCP checksums right. A capture with one
# damaged checksum must be caught, so the check itself is known to work.
set -eu
. tests/lib.sh
command -v tshark >/dev/null || fail "tshark is not installed"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
SMCR_PCAP_DIR=$dir "$BUILD/tests/sim/net/test_tcp_pcap" --filter 'tcp_pcap/*' >/dev/null 2>&1 ||
	fail "test_tcp_pcap could not write the captures"
T="tshark -n -o ip.check_checksum:TRUE -o tcp.check_checksum:TRUE"
good=$dir/smc-option.pcap
bad=$dir/bad-checksum.pcap

flags=$($T -r "$good" -Y 'tcp.options.experimental.exid == 0xe2d4' -T fields -e tcp.flags | tr '\n' ' ')
[ "$flags" = "0x0002 0x0012 " ] || fail "SMC option expected on SYN and SYN-ACK only, got flags: $flags"
magic=$($T -r "$good" -Y 'tcp.flags == 0x0002' -T fields -e tcp.options.experimental.data)
echo "$magic" | grep -qix "c3d9" || fail "SYN option: ExID E2D4 then C3D9 expected, data: $magic"
warn=$($T -r "$good" -Y '_ws.malformed || _ws.expert.severity >= 6291456' -T fields -e frame.number | tr '\n' ' ')
[ -z "$warn" ] || fail "malformed or expert warnings in frames: $warn"
$T -r "$good" -V 2>/dev/null | grep -q 'Bad checksum' && fail "bad checksum reported"
syns=$($T -r "$good" -Y 'tcp.flags.syn == 1' -T fields -e tcp.checksum.status | tr '\n' ' ')
[ "$syns" = "1 1 " ] || fail "checksum status of SYN, SYN-ACK: '$syns' (1 = good)"
ok=$($T -r "$good" -Y 'tcp' -T fields -e tcp.checksum.status | grep -vc '^1$' || true)
[ "$ok" = 0 ] || fail "$ok TCP segments without a verified checksum"
ok=$($T -r "$good" -Y 'ip' -T fields -e ip.checksum.status | grep -vc '^1$' || true)
[ "$ok" = 0 ] || fail "$ok IPv4 headers without a verified checksum"

# negative control: the damaged frame is reported
$T -r "$bad" -V 2>/dev/null | grep -q 'Bad checksum' || fail "a damaged checksum went unnoticed"
echo "tcp smc option ok"
