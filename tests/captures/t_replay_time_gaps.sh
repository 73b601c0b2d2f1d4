# Every replay mode facing a capture whose time stamps jump by hours or years (one byte
# of a time stamp flipped): the jump is reported with its frame numbers and closed, the
# run finishes at once (it used to run for minutes of wall time, simulating centuries),
# and the exit status says the capture is damaged. Real shipped captures, mangled:
#  - traces/linux-6.1-smcr-v2-rxe.pcapng (pcapng, microsecond stamps): frame 226 dated
#    about 500 years later, then frame 227 back in 2026: two jumps;
#  - tests/data/replay/linux-6.1-fallbacks.pcap (classic pcap): frame 100 and every frame
#    after it four hours later (a capture that resumed): one jump;
#  - --max-gap raises the limit: a long idle capture is then taken as it is.
set -eu
. tests/lib.sh

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# pcapng: set byte 2 of the high time stamp word of enhanced packet block number $3 (0-based)
python3 - traces/linux-6.1-smcr-v2-rxe.pcapng "$TMP/y2544.pcapng" 225 <<'EOF'
import struct, sys
src, dst, which = sys.argv[1], sys.argv[2], int(sys.argv[3])
b = bytearray(open(src, 'rb').read())
off, epbs = 0, []
while off < len(b):
    t, l = struct.unpack_from('<II', b, off)
    if t == 6:
        epbs.append(off)
    off += l
b[epbs[which] + 12 + 2] = 0x40
open(dst, 'wb').write(b)
EOF
# classic pcap: frames from number $3 on, 4 h later
python3 - tests/data/replay/linux-6.1-fallbacks.pcap "$TMP/resumed.pcap" 100 <<'EOF'
import struct, sys
src, dst, first = sys.argv[1], sys.argv[2], int(sys.argv[3])
b = bytearray(open(src, 'rb').read())
off, n = 24, 0
while off + 16 <= len(b):
    n += 1
    sec, usec, cap, wire = struct.unpack_from('<IIII', b, off)
    if n >= first:
        struct.pack_into('<I', b, off, sec + 4 * 3600)
    off += 16 + cap
open(dst, 'wb').write(b)
EOF

run() { # run NAME SECONDS ARGS...: exit status into $rc, output in $TMP/NAME.{out,err}
	name=$1 limit=$2
	shift 2
	set +e
	timeout "$limit" "$SMCR_SIM" replay "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
	rc=$?
	set -e
	[ "$rc" != 124 ] || fail "$name: still running after ${limit}s (the jump was not closed)"
}

Y=$TMP/y2544.pcapng
for mode in decode redrive timing; do
	extra=
	[ "$mode" = timing ] && extra="--scenario tests/data/replay/server-only.scn"
	# shellcheck disable=SC2086
	run "$mode" 30 --mode "$mode" "$Y" $extra
	[ "$rc" = 1 ] || fail "$mode, year 2544: exit $rc, expected 1: $(cat "$TMP/$mode.err")"
	grep -q 'frame 226 is dated 517 years after frame 225 (2544-03-31 13:04:09 UTC against 2026-11-29 10:26:40 UTC)' \
		"$TMP/$mode.err" || fail "$mode: no report of the jump at frame 226: $(cat "$TMP/$mode.err")"
	echo "ok $mode: $(head -c 160 "$TMP/$mode.err")"
done
grep -q 'frame 227 is dated 517 years before frame 226' "$TMP/decode.err" || fail "decode: the jump back at frame 227 is not listed"
grep -q '(2 jumps in all)' "$TMP/redrive.err" || fail "redrive: $(cat "$TMP/redrive.err")"
grep -q '^  2 time stamp jumps closed' "$TMP/timing.out" || fail "timing: $(cat "$TMP/timing.out")"
# the re-drive compared what it compares on the intact capture: the control plane agrees
grep -q '^  frame 24 CLC Accept' "$TMP/redrive.out" && fail "redrive: the Accept differs after the jump was closed"
grep -q 'messages in the conversation' "$TMP/redrive.out" || fail "redrive printed no summary: $(cat "$TMP/redrive.out")"
# the capture's span is the real one
run span 30 --format json "$Y"
grep -q '"time_gaps": 2' "$TMP/span.out" || fail "json: no time_gaps 2: $(grep -o '"time_gaps[^,]*' "$TMP/span.out")"

# a capture that resumed 4 h later: one jump, at frame 100
R=$TMP/resumed.pcap
run resumed 30 "$R"
[ "$rc" = 1 ] || fail "resumed: exit $rc"
[ "$(grep -c 'time stamp jump' "$TMP/resumed.err")" = 1 ] || fail "resumed: $(cat "$TMP/resumed.err")"
grep -q 'frame 100: time stamp jump: frame 100 is dated 4 h after frame 99' "$TMP/resumed.err" ||
	fail "resumed: $(cat "$TMP/resumed.err")"
run resumed_redrive 30 --mode redrive "$R"
grep -q 'frame 100 is dated 4 h after frame 99' "$TMP/resumed_redrive.err" || fail "resumed redrive: $(cat "$TMP/resumed_redrive.err")"
# ... which --max-gap allows
run allowed 30 --max-gap 5h "$R"
[ "$rc" = 0 ] || fail "--max-gap 5h: exit $rc: $(cat "$TMP/allowed.err")"
! grep -q 'time stamp jump' "$TMP/allowed.err" || fail "--max-gap 5h still reports a jump"
expect_exit 2 "$SMCR_SIM" replay --max-gap 0 "$R"
echo "ok: jumps reported with their frames and closed in every mode; --max-gap"
