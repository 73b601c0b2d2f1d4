# smcr-sim replay --mode timing: the recorded client of traces/trace-two-stacks.pcapng is
# injected into a world that has only the server (tests/data/replay/server-only.scn):
#  - the server answers every recorded SYN + Proposal with an Accept (our decoder and
#    tshark read it in the world's capture, where the injector is interface SW1/replay);
#  - with another seed the server picks other sequence numbers and the injected
#    acknowledgments follow it (rewritten), and it still answers;
#  - --speed scales the recorded times; without the recorded ARP exchange the injector
#    answers the server's ARP request;
#  - nothing to play, a missing switch, bad options and bad captures are refused with a
#    clear message (a damaged file: the frame number, after injecting what came before).
set -eu
. tests/lib.sh

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
TRACE=traces/trace-two-stacks.pcapng
SRV=tests/data/replay/server-only.scn
timing() { "$SMCR_SIM" replay --mode timing --scenario "$SRV" "$@"; }

accepts() { # FILE: frames of CLC Accepts the server sent, our decoder's reading
	"$SMCR_SIM" replay --messages "$1" | awk '$3 == "192.168.10.2->192.168.10.1" && $4 == "CLC" && $5 == "Accept"' | wc -l
}

timing --seed 7 --pcap "$TMP/out.pcapng" "$TRACE" >"$TMP/out.txt" || fail "timing replay exited $?: $(tail -5 "$TMP/out.txt")"
grep -q '^replay (timing): played 192.168.10.1$' "$TMP/out.txt" || fail "played: $(grep played "$TMP/out.txt")"
grep -Eq '[0-9]+ frames read, [1-9][0-9]* injected' "$TMP/out.txt" || fail "nothing injected: $(cat "$TMP/out.txt")"
moved=$(sed -n 's/^ *\([0-9]*\) TCP acknowledgment numbers moved.*/\1/p' "$TMP/out.txt")
[ "$moved" -gt 0 ] || fail "seed 7: no acknowledgment rewritten"
n=$(accepts "$TMP/out.pcapng")
[ "$n" = 3 ] || fail "the server answered $n of the 3 SMC-R Proposals with an Accept"
# each Accept follows its Proposal
"$SMCR_SIM" replay --messages "$TMP/out.pcapng" | awk '$4 == "CLC" { print $5 }' | tr '\n' ' ' |
	grep -q '^Proposal Accept Confirm Proposal Accept Confirm Proposal Accept Confirm $' ||
	fail "CLC order: $("$SMCR_SIM" replay --messages "$TMP/out.pcapng" | awk '$4 == "CLC" { print $1, $5 }' | tr '\n' ' ')"
if command -v tshark >/dev/null 2>&1; then
	got=$(tshark -n -o tcp.try_heuristic_first:TRUE -r "$TMP/out.pcapng" -Y 'smc.clc_msg == 2 && ip.src == 192.168.10.2' \
		-T fields -e frame.number 2>/dev/null | wc -l)
	[ "$got" = 3 ] || fail "tshark sees $got Accepts from the server"
	inj=$(tshark -r "$TMP/out.pcapng" -Y 'frame.interface_name == "SW1/replay"' -T fields -e frame.number 2>/dev/null | wc -l)
	[ "$inj" -gt 0 ] || fail "no frame on the injector's interface SW1/replay"
fi
# same seed twice: the same output
timing --seed 7 "$TRACE" >"$TMP/again.txt"
grep -v '^scenario' "$TMP/out.txt" >"$TMP/a"; grep -v '^scenario' "$TMP/again.txt" >"$TMP/b"
cmp -s "$TMP/a" "$TMP/b" || fail "two timing replays with one seed differ"

# --speed: recorded gaps scaled
last() { sed -n 's/.* to \([0-9.]*\) s).*/\1/p' "$1" | tr -d '.' | sed 's/^0*//'; }
timing --speed 2 "$TRACE" >"$TMP/fast.txt"
timing --speed 0.5 "$TRACE" >"$TMP/slow.txt"
timing "$TRACE" >"$TMP/one.txt"
l1=$(last "$TMP/one.txt"); l2=$(last "$TMP/fast.txt"); lh=$(last "$TMP/slow.txt")
[ "$l2" = $((l1 / 2)) ] && [ "$lh" = $((l1 * 2)) ] || fail "--speed: last frame at $l1 ns (1), $l2 (2), $lh (0.5)"

# without the recorded ARP exchange (frames 1-2) the injector answers the server's request
if command -v editcap >/dev/null 2>&1; then
	editcap "$TRACE" "$TMP/noarp.pcapng" 1-2 >/dev/null
	timing --pcap "$TMP/noarp-out.pcapng" "$TMP/noarp.pcapng" >"$TMP/noarp.txt"
	grep -Eq ' [1-9][0-9]* ARP requests answered' "$TMP/noarp.txt" || fail "ARP not answered: $(cat "$TMP/noarp.txt")"
	[ "$(accepts "$TMP/noarp-out.pcapng")" = 3 ] || fail "no Accepts without the recorded ARP"
fi

# refusals
expect_exit 2 "$SMCR_SIM" replay --mode timing --scenario scenarios/trace-two-stacks.scn "$TRACE"
expect_stderr 'nothing to play' "$SMCR_SIM" replay --mode timing --scenario scenarios/trace-two-stacks.scn "$TRACE"
expect_exit 2 timing --inject-at NOSUCH "$TRACE"
expect_stderr 'no switch NOSUCH' timing --inject-at NOSUCH "$TRACE"
expect_exit 2 timing --speed 0 "$TRACE"
expect_exit 2 timing --speed fast "$TRACE"
expect_exit 2 timing --play 10.0.0 "$TRACE"
expect_exit 2 timing --messages "$TRACE"
# bad captures: garbage, a truncated file (frame number; what came before is injected)
head -c 3000 /dev/zero | tr '\0' 'x' >"$TMP/garbage.pcap"
expect_exit 2 timing "$TMP/garbage.pcap"
expect_stderr 'cannot read as a capture file' timing "$TMP/garbage.pcap"
size=$(wc -c <"$TRACE")
head -c $((size / 2)) "$TRACE" >"$TMP/trunc.pcapng"
expect_exit 1 timing "$TMP/trunc.pcapng"
expect_stderr 'capture file damaged at frame [0-9]' timing "$TMP/trunc.pcapng"
set +e; timing "$TMP/trunc.pcapng" >"$TMP/trunc.txt" 2>/dev/null; set -e
grep -q 'the frames before it were injected' "$TMP/trunc.txt" || fail "truncated: $(cat "$TMP/trunc.txt")"
grep -Eq '[1-9][0-9]* injected' "$TMP/trunc.txt" || fail "truncated: nothing injected before the damage"
# a real capture's QP numbers are not the scenario's: said after the run; a recording of
# a scenario like the one it is played into has none to say
"$SMCR_SIM" replay --mode timing traces/linux-6.1-smcr-v2-rxe.pcapng --scenario tests/data/replay/rxe-server.scn >"$TMP/rxe.txt" 2>&1 || true
grep -q '^  warning: [0-9]* of [0-9]* injected RoCE frames went to QP numbers no simulated adapter had (the first: 0x000011, frame 28)' "$TMP/rxe.txt" ||
	fail "timing replay of a real capture: no warning about its QP numbers: $(tail -3 "$TMP/rxe.txt")"
"$SMCR_SIM" replay --mode timing traces/trace-two-stacks.pcapng --scenario tests/data/replay/server-only.scn >"$TMP/own.txt" 2>&1
grep -q 'warning' "$TMP/own.txt" && fail "timing replay of a recording of the scenario warns: $(grep warning "$TMP/own.txt")"
echo "timing replay ok: 3 Accepts from the simulated server, $moved acknowledgments rewritten"
