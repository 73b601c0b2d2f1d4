# smcr-sim replay --mode redrive: one recorded side is fed to a simulated stack whose core
# plays the other side; our messages are compared with the recorded ones.
#  - our own traces: no difference, either side fed, with their scenario and without it
#    (the world made from the capture, O's recorded application: sim/app/app_recorded.c),
#    through a router (trace-v2-routed), the side named by its address;
#  - a negative control: one byte of a recorded Accept changed -> exactly that difference;
#  - the real Linux 6.1 trace (world made from the capture): every CLC and LLC message and
#    the data path up to the trimmed part of the transfer agree with Linux; the CDC
#    messages after the cut differ for the reason docs/conformance.md gives;
#  - refusals and bad captures: clear messages (a damaged file: its frame number; cursors
#    the recorded application cannot be derived from: a note, the re-drive goes on).
set -eu
. tests/lib.sh

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
rd() { "$SMCR_SIM" replay --mode redrive "$@"; }

zero() { # zero TRACE SCENARIO SIDE
	set +e
	rd "traces/$1.pcapng" --scenario "scenarios/$2.scn" --side "$3" >"$TMP/out" 2>&1
	rc=$?
	set -e
	[ "$rc" = 0 ] || fail "$1 --side $3 exited $rc: $(head -12 "$TMP/out")"
	grep -q '^no differences$' "$TMP/out" || fail "$1 --side $3: $(head -12 "$TMP/out")"
	line=$(grep 'ours:' "$TMP/out")
	n=$(echo "$line" | sed 's/.* \([0-9]*\) compared.*/\1/')
	[ "$n" -ge 30 ] || fail "$1 --side $3: only $n messages compared ($line)"
	echo "$line" | grep -q ' 0 missing, 0 extra' || fail "$1 --side $3: $line"
	echo "ok $1 --side $3: $line"
}
zero trace-two-stacks trace-two-stacks client
zero trace-two-stacks trace-two-stacks server
zero trace-two-stacks trace-two-stacks 192.168.10.1
zero trace-v2-routed trace-v2-routed client
zero trace-v2-routed trace-v2-routed server

# without a scenario: the world made from the capture reproduces the recorded side
made() { # made TRACE SIDE COMPARED
	set +e
	rd "traces/$1.pcapng" --side "$2" >"$TMP/out" 2>&1
	rc=$?
	set -e
	[ "$rc" = 0 ] && grep -q '^no differences$' "$TMP/out" || fail "$1 --side $2 (no scenario) exited $rc: $(head -20 "$TMP/out")"
	grep -q "^  ours: $3 sent, $3 compared, $3 equal, 0 differ, 0 missing, 0 extra\$" "$TMP/out" ||
		fail "$1 --side $2 (no scenario): $(grep 'ours:' "$TMP/out"), expected $3 compared"
	! grep -q 'note: connection .*recorded application' "$TMP/out" || fail "$1 --side $2: $(grep note "$TMP/out")"
	echo "ok $1 --side $2, no scenario: $(grep 'ours:' "$TMP/out")"
}
made trace-two-stacks client 65
made trace-two-stacks server 73
made trace-v2-routed client 62
made trace-v2-routed server 71

# negative control: the Accept's RMB size / MTU byte (offset 50) changed in the recording
cp traces/trace-two-stacks.pcapng "$TMP/mut.pcapng"
off=$(LC_ALL=C grep -obUaP '\xE2\xD4\xC3\xD9\x02\x00\x44' "$TMP/mut.pcapng" | head -1 | cut -d: -f1)
[ -n "$off" ] || fail "no CLC Accept in the trace"
printf '\044' | dd of="$TMP/mut.pcapng" bs=1 seek=$((off + 50)) conv=notrunc 2>/dev/null
set +e
rd "$TMP/mut.pcapng" --scenario scenarios/trace-two-stacks.scn >"$TMP/out" 2>&1
rc=$?
set -e
[ "$rc" = 1 ] || fail "a changed Accept: exit $rc"
grep -q '^  frame 7 CLC Accept: bytes 50..50: ours 23, recorded 24$' "$TMP/out" || fail "changed Accept: $(cat "$TMP/out")"
[ "$(grep -c '^  frame' "$TMP/out")" = 1 ] || fail "changed Accept: more than that one difference: $(cat "$TMP/out")"

# the real Linux trace: the control plane agrees with Linux
L=traces/linux-6.1-smcr-v2-rxe.pcapng
set +e
rd -v "$L" >"$TMP/linux" 2>&1
rc=$?
set -e
[ "$rc" = 1 ] || fail "Linux trace: exit $rc (the CDC messages are known to differ): $(head -20 "$TMP/linux")"
for want in 'frame 24 CLC Accept: equal' 'frame 27 LLC CONFIRM_LINK (v2) request: equal' \
	'frame 31 LLC ADD_LINK (v2) request: equal' 'frame 220 LLC DELETE_RKEY (v2) request: equal' \
	'frame 223 LLC DELETE_RKEY (v2) response: equal'; do
	grep -q "^  $want\$" "$TMP/linux" || fail "Linux trace: no '$want': $(grep -A14 comparisons "$TMP/linux")"
done
for want in 'frame 103 CDC: equal' 'frame 174 CDC: equal'; do
	grep -q "^  $want\$" "$TMP/linux" || fail "Linux trace: the recorded reads: no '$want': $(grep -A14 comparisons "$TMP/linux")"
done
# what differs is past the cut of the 1 MiB transfer (frames 201-2239 are not in the file)
grep '^  frame' "$TMP/linux" | grep -v ': equal$' | grep -Ev '^  frame (208|216) CDC: ' &&
	fail "Linux trace: a difference before the trimmed part: $(grep '^  frame' "$TMP/linux" | grep -v ': equal$')"
grep -q 'recorded client 10.0.0.2 fed in, our core plays the server 10.0.0.1' "$TMP/linux" || fail "Linux trace: sides"
# ... and with the recorded Linux server fed in, our client (release 0 as recorded): the
# Proposal and the RDMA WRITEs of 64 and 64 KiB agree too; frame 176's WRITE, cut by the
# trim after 25 KiB, is Linux's write of the whole window, 64 KiB, as ours is
set +e
rd -v --side server "$L" >"$TMP/linuxs" 2>&1
set -e
for want in 'frame 22 CLC Proposal: equal' 'frame 26 CLC Confirm: equal' 'frame 29 LLC CONFIRM_LINK (v2) response: equal' \
	'frame 34 LLC ADD_LINK (v2) response: equal' 'frame 36 RDMA WRITE: equal' 'frame 100 CDC: equal' \
	'frame 107 RDMA WRITE: equal' 'frame 171 CDC: equal' 'frame 176 RDMA WRITE: differs' \
	'frame 221 LLC DELETE_RKEY (v2) request: equal' 'frame 226 LLC DELETE_RKEY (v2) response: equal'; do
	grep -q "^  $want\$" "$TMP/linuxs" || fail "Linux trace, server fed: no '$want': $(grep -A16 comparisons "$TMP/linuxs")"
done
grep -q '^  frame 176 RDMA WRITE: length: ours 65536 bytes, recorded 25600$' "$TMP/linuxs" ||
	fail "Linux trace, server fed: frame 176 not our 64 KiB against the recorded 25 KiB"
grep '^  frame' "$TMP/linuxs" | grep -v ': equal$' | grep -Ev '^  frame (211|213) CDC: |^  frame 176 RDMA WRITE: (differs|length: ours 65536 bytes, recorded 25600)$' &&
	fail "Linux trace, server fed: a difference before the trimmed part: $(grep '^  frame' "$TMP/linuxs" | grep -v ': equal$')"

# the complete Linux 6.1 capture (two connections, 128 KiB each way, nothing trimmed):
# every message of ours is Linux's, with either side fed, including the write-blocked flag
# of the client's CDC messages (the re-drive's writes follow the recorded flag)
C=tests/data/replay/linux-6.1-smcr-v2-rxe-complete.pcap
set +e
rd "$C" >"$TMP/full" 2>&1
rc=$?
set -e
[ "$rc" = 0 ] && grep -q '^no differences$' "$TMP/full" || fail "complete Linux capture, client fed: $(head -12 "$TMP/full")"
grep -q '^  ours: 26 sent, 26 compared, 26 equal, 0 differ, 0 missing, 0 extra$' "$TMP/full" ||
	fail "complete Linux capture, client fed: $(grep 'ours:' "$TMP/full")"
set +e
rd --side server "$C" >"$TMP/fulls" 2>&1
rc=$?
set -e
[ "$rc" = 0 ] && grep -q '^no differences$' "$TMP/fulls" || fail "complete Linux capture, server fed: $(head -12 "$TMP/fulls")"
grep -q '^  ours: 40 sent, 40 compared, 40 equal, 0 differ, 0 missing, 0 extra$' "$TMP/fulls" ||
	fail "complete Linux capture, server fed: $(grep 'ours:' "$TMP/fulls")"
echo "ok complete Linux capture: client fed 26/26 equal, server fed 40/40 equal"

# a Linux 6.1 server without a UEID declines a v2-only Proposal in v2 with NOSMCDEV (its v2
# device search finds no common UEID and the Proposal offers no v1): ours must do the same
# (a server's v2 stays on without a UEID; the re-drive reads v2 from O's v2 Decline)
F=tests/data/replay/linux-6.1-fallbacks.pcap
set +e
rd "$F" >"$TMP/fb" 2>&1
rc=$?
set -e
[ "$rc" = 0 ] && grep -q '^no differences$' "$TMP/fb" && grep -q '^  ours: 1 sent, 1 compared, 1 equal, 0 differ' "$TMP/fb" ||
	fail "Linux server without a UEID, client fed: $(head -12 "$TMP/fb")"
echo "ok Linux server without a UEID: its v2 Decline NOSMCDEV"

# Linux 6.12 (v2.1) captures, kernel <-> kernel and kernel <-> smcr-sim (tests/data/replay/
# README.md), and the 32 connections of 6.1 with their buffers reused: every message of
# our side equal, fed from either side (the order of independent LLC flows and which free
# buffer a connection takes are timing, each said in a note)
for c in linux-6.12-pair-reuse linux-6.1-6.12-mixed linux-6.12-6.1-mixed linux-6.12-client-ours \
	linux-6.12-server-ours linux-6.1-32-conns; do
	for side in client server; do
		set +e
		rd --side "$side" "tests/data/replay/$c.pcap" >"$TMP/k" 2>&1
		rc=$?
		set -e
		[ "$rc" = 0 ] && grep -q '^no differences$' "$TMP/k" && grep -q ' 0 differ, 0 missing, 0 extra$' "$TMP/k" ||
			fail "$c, recorded $side fed: $(head -20 "$TMP/k")"
	done
done
echo "ok Linux 6.12 pair, 6.1 <-> 6.12 both ways, 6.12 <-> smcr-sim both ways, 6.1 32 connections: no differences"

# refusals and bad input
expect_exit 2 rd --side 1.2.3.4 traces/trace-two-stacks.pcapng --scenario scenarios/trace-two-stacks.scn
expect_stderr 'neither side of the conversation' rd --side 1.2.3.4 traces/trace-two-stacks.pcapng
expect_exit 2 rd --side sideways traces/trace-two-stacks.pcapng
expect_exit 2 rd --speed 2 traces/trace-two-stacks.pcapng
"$SMCR_SIM" run --end 20ms --pcap "$TMP/tcp.pcapng" scenarios/fallback-smc-disabled.scn >/dev/null 2>&1 || true
expect_exit 2 rd "$TMP/tcp.pcapng"
expect_stderr 'no SMC-R conversation' rd "$TMP/tcp.pcapng"
head -c 3000 /dev/zero | tr '\0' 'x' >"$TMP/garbage.pcap"
expect_stderr 'cannot read as a capture file' rd "$TMP/garbage.pcap"
expect_exit 2 rd "$TMP/garbage.pcap"
size=$(wc -c <traces/trace-two-stacks.pcapng)
head -c $((size / 2)) traces/trace-two-stacks.pcapng >"$TMP/half.pcapng"
expect_exit 1 rd "$TMP/half.pcapng" --scenario scenarios/trace-two-stacks.scn
expect_stderr 'capture file damaged at frame [0-9]*' rd "$TMP/half.pcapng" --scenario scenarios/trace-two-stacks.scn
expect_exit 2 rd traces/trace-two-stacks.pcapng --scenario tests/data/bad-values.scn
# a damaged capture without a scenario: the messages before the damage are re-driven
expect_exit 1 rd "$TMP/half.pcapng"
expect_stderr 'capture file damaged at frame [0-9]*' rd --side server "$TMP/half.pcapng"
# a recorded consumer cursor of our side that jumps (wrap 1 -> 5): the application of that
# connection cannot be derived; said so, the connection is drained, the rest goes on
cp traces/trace-two-stacks.pcapng "$TMP/cdc.pcapng"
off=$(LC_ALL=C grep -obUaP '\xFE\x2C\x00\x01\x00\xBA\x63\xF8' "$TMP/cdc.pcapng" | head -1 | cut -d: -f1)
[ -n "$off" ] || fail "no CDC of the server in the trace"
printf '\005' | dd of="$TMP/cdc.pcapng" bs=1 seek=$((off + 19)) conv=notrunc 2>/dev/null
set +e
rd "$TMP/cdc.pcapng" >"$TMP/out" 2>&1
rc=$?
set -e
[ "$rc" = 1 ] || fail "a jumping cursor: exit $rc: $(cat "$TMP/out")"
grep -q 'note: connection 1: the recorded application cannot be derived (the cursors of its CDC message in frame 159' "$TMP/out" ||
	fail "a jumping cursor: no note: $(cat "$TMP/out")"
grep -q '^  frame 87 CDC: bytes 19..19: ours 01, recorded 05$' "$TMP/out" && [ "$(grep -c '^  frame' "$TMP/out")" = 1 ] ||
	fail "a jumping cursor: $(cat "$TMP/out")"
echo "re-drive ok"
