# smcr-sim replay: golden reports for the real Linux trace and the Wireshark fixtures, the
# SMCID filter, and broken input (truncated, wrong link type, garbage, usage) with its
# messages and exit codes.
set -eu
. tests/lib.sh

D=tests/data/replay
TRACE=traces/linux-6.1-smcr-v2-rxe.pcapng
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

golden() { # golden FILE CMD...: stdout of CMD must equal FILE
	want=$1; shift
	"$@" >"$TMP/out" || fail "'$*' exited $?"
	diff -u "$want" "$TMP/out" >"$TMP/diff" || { head -40 "$TMP/diff" >&2; fail "'$*' differs from $want"; }
}

"$SMCR_SIM" --help | grep -q 'replay'
"$SMCR_SIM" replay --help | grep -q -- '--format'
"$SMCR_SIM" replay --help | grep -q -- '--smcid'
"$SMCR_SIM" replay --help | grep -q -- '--mode'

golden "$D/linux-netstat.golden" "$SMCR_SIM" replay --report netstat "$TRACE"
# a capture of Linux hosts alone (the OS type of their v2 first contact) defaults to
# smc-tools' style; one whose hosts' OS is not known (SMC-Rv1) to the netstat style
"$SMCR_SIM" replay "$TRACE" | head -2 | grep -qx '# smcr linkgroup show' || fail "replay of a Linux capture: not in smc-tools' style"
"$SMCR_SIM" replay traces/trace-two-stacks.pcapng | head -1 | grep -qx 'SMC-R NETSTAT DEVLINKS SMC REPORT' ||
	fail "replay of a capture of unknown OSes: not in the netstat style"
# its link events are at times since the capture's first frame, not wall-clock stamps
"$SMCR_SIM" replay --messages "$TRACE" | grep -q '^31 6.925592000 10.0.0.1->10.0.0.2 LLCv2 ADD_LINK request' ||
	fail "replay --messages: not the time since the first frame"
golden "$D/fixture-rocev2-smc.golden" "$SMCR_SIM" replay --format smc "$D/wireshark-fixture-rocev2.pcap"
golden "$D/fixture-rocev1.json.golden" "$SMCR_SIM" replay --format=json "$D/wireshark-fixture-rocev1.pcap"
# a real first contact that never got its CONFIRM LINK: SMC_INIT, a made-up group id, a note
golden "$D/linux-no-confirm-link-netstat.golden" "$SMCR_SIM" replay --report netstat "$D/linux-6.1-no-confirm-link.pcap"
# the same run twice gives the same bytes
"$SMCR_SIM" replay --format json "$TRACE" >"$TMP/a.json"
"$SMCR_SIM" replay --format json "$TRACE" >"$TMP/b.json"
cmp -s "$TMP/a.json" "$TMP/b.json" || fail "two replays of one file differ"

# the SMCID filter: the link id 00000101 selects that link; an unknown id says so
out=$("$SMCR_SIM" replay --smcid 00000101 "$TRACE")
echo "$out" | grep -q 'LnkId: 00000101' || fail "--smcid 00000101 did not show the link"
out=$("$SMCR_SIM" replay --smcid 0x00abcd00 "$TRACE")
echo "$out" | grep -q 'No SMC-R link group or link with id 00ABCD00' || fail "--smcid with no match"
echo "$out" | grep -q 'IntfName' && fail "--smcid with no match still printed interfaces"
expect_exit 2 "$SMCR_SIM" replay --smcid xyz "$TRACE"
expect_stderr 'nonzero hex' "$SMCR_SIM" replay --smcid xyz "$TRACE"
expect_exit 2 "$SMCR_SIM" replay --smcid 101 --format json "$TRACE"

# usage errors
expect_exit 2 "$SMCR_SIM" replay
expect_exit 2 "$SMCR_SIM" replay "$TRACE" "$TRACE"
expect_exit 2 "$SMCR_SIM" replay --format xml "$TRACE"
expect_stderr "bad --format 'xml'; expected text or json" "$SMCR_SIM" replay --format xml "$TRACE"
expect_exit 2 "$SMCR_SIM" replay --mode timing "$TRACE"
expect_stderr "needs --scenario" "$SMCR_SIM" replay --mode timing "$TRACE"
expect_exit 2 "$SMCR_SIM" replay --scenario x.scn "$TRACE"
expect_exit 2 "$SMCR_SIM" replay --mode timing --format json "$TRACE"
expect_exit 2 "$SMCR_SIM" replay --mode nonsense "$TRACE"
expect_exit 0 "$SMCR_SIM" replay --mode decode "$TRACE"
expect_exit 2 "$SMCR_SIM" replay --max-list=-1 "$TRACE"

# a missing file and a file that is no capture
expect_exit 2 "$SMCR_SIM" replay "$TMP/nonexistent.pcap"
expect_stderr 'cannot read as a capture file' "$SMCR_SIM" replay "$TMP/nonexistent.pcap"
head -c 3000 /dev/zero | tr '\0' 'x' >"$TMP/garbage.pcap"
expect_exit 2 "$SMCR_SIM" replay "$TMP/garbage.pcap"
expect_stderr 'cannot read as a capture file' "$SMCR_SIM" replay "$TMP/garbage.pcap"

# wrong link type: the fixture with its header's link type set to 101 (raw IP)
cp "$D/wireshark-fixture-rocev2.pcap" "$TMP/raw.pcap"
printf '\145\000\000\000' | dd of="$TMP/raw.pcap" bs=1 seek=20 conv=notrunc 2>/dev/null
expect_exit 2 "$SMCR_SIM" replay "$TMP/raw.pcap"
expect_stderr 'link-layer type RAW' "$SMCR_SIM" replay "$TMP/raw.pcap"
expect_stderr 'is not Ethernet' "$SMCR_SIM" replay "$TMP/raw.pcap"

# truncated file: the last frame (19) loses its end; frames 1-18 are decoded, exit 1
size=$(wc -c <"$D/wireshark-fixture-rocev2.pcap")
head -c $((size - 10)) "$D/wireshark-fixture-rocev2.pcap" >"$TMP/trunc.pcap"
expect_exit 1 "$SMCR_SIM" replay "$TMP/trunc.pcap"
expect_stderr 'frame 19: capture file damaged at frame 19' "$SMCR_SIM" replay "$TMP/trunc.pcap"
"$SMCR_SIM" replay "$TMP/trunc.pcap" 2>/dev/null | grep -q 'Frames: 18 ' || fail "truncated file: frames before the damage not decoded"
"$SMCR_SIM" replay "$TMP/trunc.pcap" 2>/dev/null | grep -q 'LnkId: 00000100' || fail "truncated file: link not reconstructed"

# garbage payload: the Accept's CLC length byte overwritten (frame 5) -> decode error, exit 1.
# Offset: file header 24, frames 1-4 (16-byte record headers + 66 66 54 146 bytes), frame 5's
# record header 16, its Ethernet/IPv4/TCP headers 54, then byte 5 of the CLC message.
off=$((24 + 16 + 66 + 16 + 66 + 16 + 54 + 16 + 146 + 16 + 54 + 5))
cp "$D/wireshark-fixture-rocev2.pcap" "$TMP/bad-clc.pcap"
printf '\177' | dd of="$TMP/bad-clc.pcap" bs=1 seek=$off conv=notrunc 2>/dev/null
expect_exit 1 "$SMCR_SIM" replay "$TMP/bad-clc.pcap"
expect_stderr 'frame 5: TCP 10.0.0.2:12345 -> 10.0.0.1:40001: CLC message header does not decode: CLC Accept: field length' "$SMCR_SIM" replay "$TMP/bad-clc.pcap"
# the benchmark runs on a small made trace and prints both rates side by side
out=$("$SMCR_SIM" bench replay --copies 3 --repeat 1 --no-tshark)
echo "$out" | grep -Eq 'frames 681, .* 0 errors' || fail "bench replay: unexpected decode ($out)"
echo "$out" | grep -Eq 'smcr-sim replay \(decode\) .* frames/s' || fail "bench replay: no rate"
expect_exit 2 "$SMCR_SIM" bench replay --copies 0
echo "replay ok"
