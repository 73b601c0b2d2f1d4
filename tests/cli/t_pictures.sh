# The pictures: smcr-sim msc (a run and a capture, its filters), the topology (check and
# run) and the links' timeline (run) are well-formed SVG with the elements the scenario
# calls for; the same input draws the same bytes; watching a run for pictures leaves its
# output alone; and docs/pictures/*.svg are what `make pictures` draws today.
# slow test: about 15 s
set -eu
. tests/lib.sh
python3 -c 'import xml.etree.ElementTree' 2>/dev/null || { echo "no python3 here to parse the SVG"; exit 77; }
C=tests/support/svg-count
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
count() { # FILE CLASS: how many elements have the class
	$C "$1" "$2" | sed -n "1s/^$2 //p"
}
texts() { $C "$1" | sed '1,/^texts$/d'; }

# --- the message-sequence chart of a run: default.scn's failover
"$SMCR_SIM" msc scenarios/default.scn -o "$TMP/msc.svg"
$C "$TMP/msc.svg" >/dev/null || fail "msc: not well-formed SVG: $($C "$TMP/msc.svg")"
[ "$(count "$TMP/msc.svg" head)" = 2 ] || fail "msc: not the two lifelines of ZOSA and ZOSB"
texts "$TMP/msc.svg" | grep -qx ZOSA || fail "msc: no ZOSA lifeline"
for k in clc llc cdc fail restore; do
	[ "$(count "$TMP/msc.svg" $k)" -gt 0 ] || fail "msc: no $k element"
done
[ "$(count "$TMP/msc.svg" clc)" -ge 4 ] || fail "msc: the three CLC messages of a connection (and the legend) are not there"
texts "$TMP/msc.svg" | grep -qx 'bulk.1: CLC Proposal v2' || fail "msc: no CLC Proposal arrow named with its connection"
texts "$TMP/msc.svg" | grep -q '^LLC ADD_LINK request' || fail "msc: no ADD LINK arrow"
texts "$TMP/msc.svg" | grep -qx 'fail adapter RA1' || fail "msc: the failure of RA1 is not marked"
texts "$TMP/msc.svg" | grep -q 'link 1 (0x00000101) failed' || fail "msc: link 1's failure is not marked on its lifeline"
texts "$TMP/msc.svg" | grep -Eqx '0\.[0-9]{6} s' || fail "msc: no virtual time down the side"
"$SMCR_SIM" msc scenarios/default.scn >"$TMP/msc2.svg"
cmp -s "$TMP/msc.svg" "$TMP/msc2.svg" || fail "msc: two draws of one run differ (or -o and stdout do)"
rows() { texts "$1" | sed -n 's/^\([0-9]*\) rows*$/\1/p'; }
all=$(rows "$TMP/msc.svg")
[ -n "$all" ] && [ "$all" -gt 50 ] || fail "msc: $all rows"

# the filters: fewer rows, only what was asked for
"$SMCR_SIM" msc --cdc all scenarios/default.scn -o "$TMP/cdc.svg"
[ "$(count "$TMP/cdc.svg" cdc)" -gt "$(count "$TMP/msc.svg" cdc)" ] || fail "msc --cdc all: no more CDC than notable"
"$SMCR_SIM" msc --cdc none scenarios/default.scn -o "$TMP/nocdc.svg"
[ "$(count "$TMP/nocdc.svg" cdc)" = 1 ] || fail "msc --cdc none: CDC arrows beyond the legend's"
"$SMCR_SIM" msc --from 250ms --to 400ms scenarios/default.scn -o "$TMP/win.svg"
w=$(rows "$TMP/win.svg")
[ "$w" -gt 0 ] && [ "$w" -lt "$all" ] || fail "msc --from/--to: $w rows of $all"
texts "$TMP/win.svg" | grep -qx 'fail adapter RA1' || fail "msc --from/--to: the failure at 300ms is outside"
texts "$TMP/win.svg" | grep -q 'CLC Proposal' && fail "msc --from/--to: a CLC of the first connections (before 250ms) is drawn"
"$SMCR_SIM" msc --conn bulk.2 --cdc none scenarios/default.scn -o "$TMP/conn.svg"
[ "$(count "$TMP/conn.svg" llc)" = 1 ] || fail "msc --conn: LLC (not a connection's) drawn"
[ "$(count "$TMP/conn.svg" clc)" = 4 ] || fail "msc --conn bulk.2: not its three CLC messages"
"$SMCR_SIM" msc --max 10 scenarios/default.scn -o "$TMP/max.svg"
texts "$TMP/max.svg" | grep -q "^\.\.\. $((all - 10)) more not drawn" || fail "msc --max 10: the cut is not said"
"$SMCR_SIM" msc --lgr 0x00000100 scenarios/default.scn -o "$TMP/lgr.svg"
[ "$(rows "$TMP/lgr.svg")" -gt 0 ] || fail "msc --lgr 0x00000100: nothing drawn"
# a filter that names nothing in the chart is an error that says what there is, not an
# empty chart
expect_stderr "^smcr-sim msc: bad --lgr '00000999': no message of the chart belongs to it; expected one of its link groups (00000100)$" \
	"$SMCR_SIM" msc --lgr 0x00000999 --cdc none scenarios/default.scn -o "$TMP/nolgr.svg"
expect_exit 2 "$SMCR_SIM" msc --lgr 0x00000999 scenarios/default.scn -o "$TMP/nolgr.svg"
expect_stderr "^smcr-sim msc: bad --stack 'ZOSQ': the chart has no such lifeline; expected one of its stacks or hosts (ZOSA, ZOSB)$" \
	"$SMCR_SIM" msc --stack ZOSQ scenarios/default.scn -o "$TMP/nostack.svg"
expect_stderr "^smcr-sim msc: bad --conn 'bulk.9': no message of the chart belongs to it; expected an app, an app instance or a capture's connection number (bulk.1, bulk.2, bulk.3, bulk.4, bulk.5)$" \
	"$SMCR_SIM" msc --conn bulk.9 scenarios/default.scn -o "$TMP/noconn.svg"
expect_stderr "^smcr-sim msc: bad --stack 'LNXA': the chart has no such lifeline; expected one of its stacks or hosts (192.168.10.1, 192.168.10.2)$" \
	"$SMCR_SIM" msc --stack LNXA traces/trace-two-stacks.pcapng -o "$TMP/nohost.svg"
# 200 stacks: one stack's messages only, two lifelines
"$SMCR_SIM" msc --stack H00003 scenarios/scale-smoke.scn -o "$TMP/one.svg"
[ "$(count "$TMP/one.svg" head)" = 2 ] || fail "msc --stack H00003: $(count "$TMP/one.svg" head) lifelines, expected it and its peer"
expect_exit 2 "$SMCR_SIM" msc --lgr zz scenarios/default.scn
expect_exit 2 "$SMCR_SIM" msc --from 5s --to 1s scenarios/default.scn
expect_exit 2 "$SMCR_SIM" msc --cdc some scenarios/default.scn
expect_exit 2 "$SMCR_SIM" msc --max 0 scenarios/default.scn
expect_exit 2 "$SMCR_SIM" msc --seed 1 traces/trace-failover.pcapng
expect_exit 2 "$SMCR_SIM" msc "$TMP/nosuch.pcapng"
expect_exit 2 "$SMCR_SIM" msc
expect_stderr "bad --lgr" "$SMCR_SIM" msc --lgr zz scenarios/default.scn

# 1,000 connections (scale-1m-conns.scn made small): the chart is cut at --max rows and
# says so; one connection's chart is a handful of rows between its two stacks; to standard
# output, with the run's failed expectations (if any) kept off it
K="--set CLIENTS=2 --set SERVERS=2 --set FANOUT=1 --set CONNS=500 --end 20s"
# shellcheck disable=SC2086
"$SMCR_SIM" msc $K scenarios/scale-1m-conns.scn >"$TMP/k.svg"
$C "$TMP/k.svg" >/dev/null || fail "msc of 1,000 connections: not well-formed SVG on stdout"
texts "$TMP/k.svg" | grep -q '^\.\.\. [0-9]* more not drawn' || fail "msc of 1,000 connections: not cut at 2000 rows"
[ "$(count "$TMP/k.svg" head)" = 4 ] || fail "msc of 1,000 connections: not its 4 stacks"
# shellcheck disable=SC2086
"$SMCR_SIM" msc $K --conn e000_0.321 scenarios/scale-1m-conns.scn -o "$TMP/k1.svg"
r=$(rows "$TMP/k1.svg")
[ "$r" -ge 3 ] && [ "$r" -le 10 ] || fail "msc --conn e000_0.321 of 1,000 connections: $r rows"
[ "$(count "$TMP/k1.svg" head)" = 2 ] || fail "msc --conn of 1,000 connections: not its two stacks"
"$SMCR_SIM" msc --end 1ms scenarios/scale-1m-conns.scn --set CLIENTS=2 --set SERVERS=2 --set FANOUT=1 \
	--set CONNS=500 >"$TMP/early.svg" 2>/dev/null
$C "$TMP/early.svg" >/dev/null || fail "msc: a run whose expectations fail writes them into the SVG"

# --- of a capture: the hosts as lifelines, the same kinds of messages
"$SMCR_SIM" msc traces/trace-failover.pcapng -o "$TMP/cap.svg"
$C "$TMP/cap.svg" >/dev/null || fail "msc of a capture: not well-formed"
[ "$(count "$TMP/cap.svg" head)" = 2 ] || fail "msc of a capture: not two hosts"
texts "$TMP/cap.svg" | grep -qx '10.1.1.1' || fail "msc of a capture: no lifeline for 10.1.1.1"
for k in clc llc cdc; do
	[ "$(count "$TMP/cap.svg" $k)" -gt 1 ] || fail "msc of a capture: no $k arrow"
done
texts "$TMP/cap.svg" | grep -q '^LLC DELETE_LINK' || fail "msc of a capture: the failover's DELETE LINK is not drawn"
texts "$TMP/cap.svg" | grep -qx 'since the first frame' || fail "msc of a capture: its time axis is not relative"
# ... each LLC and CDC arrow names its link, each row its connection, and the links the
# failover lost are marked where replay finds them (link 1 removed, link 3 failed)
texts "$TMP/cap.svg" | grep -Eqx 'LLC DELETE_LINK request \[link 2\] \(frame [0-9]+\)' || fail "msc of a capture: no link on an LLC arrow"
texts "$TMP/cap.svg" | grep -Eqx 'conn 1: CDC seq 1 validation \[link 2\] \(frame [0-9]+\)' || fail "msc of a capture: no link or connection on a CDC arrow"
texts "$TMP/cap.svg" | grep -Eqx 'conn 2: CLC Proposal v2 \(frame [0-9]+\)' || fail "msc of a capture: the connection is not named"
[ "$(texts "$TMP/cap.svg" | grep -c '^link 1 (0x00000101) removed: DELETE LINK request from the client: lost path$')" = 2 ] ||
	fail "msc of a capture: link 1's loss is not marked on both hosts"
[ "$(texts "$TMP/cap.svg" | grep -c '^link 3 (0x00000103) failed: ')" = 2 ] || fail "msc of a capture: link 3's failure is not marked"
[ "$(count "$TMP/cap.svg" fail)" -ge 4 ] || fail "msc of a capture: no failure marks"

# --- the topology: from check (no links) and from a run (its links)
"$SMCR_SIM" check --topology "$TMP/topo.svg" scenarios/default.scn >/dev/null
for k in "stack 2" "adapter 4" "switch 2" "iface 4" "activation 4" "access 4" "smclink 0"; do
	[ "$(count "$TMP/topo.svg" "${k% *}")" = "${k#* }" ] || fail "check --topology default.scn: not $k"
done
"$SMCR_SIM" check --topology "$TMP/fab.svg" scenarios/large-fabric.scn >/dev/null
[ "$(count "$TMP/fab.svg" wire)" -gt 0 ] || fail "check --topology large-fabric.scn: no wires between its switches"
"$SMCR_SIM" check --topology "$TMP/vlan.svg" scenarios/vlan-separation.scn >/dev/null
texts "$TMP/vlan.svg" | grep -q 'vlan 20' || fail "check --topology: the interfaces' VLANs are not shown"
texts "$TMP/vlan.svg" | grep -qx 'VLANs: 10 20' || fail "check --topology: the switch's VLANs are not shown"
texts "$TMP/topo.svg" | grep -qx 'osd2 10.1.2.1/24 (SW2)' || fail "check --topology: an interface is not listed with its switch"
expect_exit 2 "$SMCR_SIM" check --topology "$TMP/x.svg" scenarios/default.scn scenarios/two-stacks.scn
"$SMCR_SIM" run -q --topology "$TMP/rtopo.svg" --timeline "$TMP/tl.svg" scenarios/default.scn >"$TMP/watched.txt"
[ "$(count "$TMP/rtopo.svg" smclink)" = 3 ] || fail "run --topology: not the 3 links that became active"
texts "$TMP/rtopo.svg" | grep -qx 'ZOSA 0x00000104 - ZOSB 0x00000104' || fail "run --topology: the new link after the restore is not named"

# --- the timeline: a lane per link and stack, the timeline's actions
[ "$(count "$TMP/tl.svg" lane)" = 8 ] || fail "run --timeline: $(count "$TMP/tl.svg" lane) lanes, expected 4 links x 2 stacks"
[ "$(count "$TMP/tl.svg" timeline-mark)" = 2 ] || fail "run --timeline: not the fail and restore marks"
[ "$(count "$TMP/tl.svg" band-active)" -gt 0 ] || fail "run --timeline: no active band"
[ "$(count "$TMP/tl.svg" band-activating)" -gt 0 ] || fail "run --timeline: link 3's activating band is not there"
[ "$(count "$TMP/tl.svg" tput)" -gt 0 ] || fail "run --timeline: no throughput line"
texts "$TMP/tl.svg" | grep -q '^9[0-9][0-9]\.[0-9] Mbit/s$' || fail "run --timeline: no link near 1 Gbit/s (the wire's speed)"
"$SMCR_SIM" run -q --timeline "$TMP/tl10.svg" --stats-interval 1s scenarios/default.scn >/dev/null
# a window of it: its axis starts there, what is outside is left out
"$SMCR_SIM" run -q --timeline "$TMP/tlw.svg" --from 250ms --to 700ms --stats-interval 10ms scenarios/default.scn >/dev/null
texts "$TMP/tlw.svg" | grep -qx '250ms' || fail "run --timeline --from 250ms: the axis does not start there"
texts "$TMP/tlw.svg" | grep -qx '700ms' || fail "run --timeline --to 700ms: the axis does not end there"
texts "$TMP/tlw.svg" | grep -q '^restore adapter' && fail "run --timeline --to 700ms: the restore at 5s is drawn"
[ "$(count "$TMP/tlw.svg" timeline-mark)" = 1 ] || fail "run --timeline --from/--to: not the one mark inside"
expect_exit 2 "$SMCR_SIM" run -q --from 1s scenarios/default.scn
expect_stderr 'need --timeline' "$SMCR_SIM" run -q --from 1s scenarios/default.scn
expect_stderr 'bad --to 1s: it is not after --from' "$SMCR_SIM" run -q --timeline "$TMP/x.svg" --from 2s --to 1s scenarios/default.scn
[ "$(wc -c <"$TMP/tl10.svg")" -lt "$(wc -c <"$TMP/tl.svg")" ] || fail "run --timeline --stats-interval 1s: not coarser"

expect_exit 2 "$SMCR_SIM" run -q --stats-interval 1s scenarios/default.scn
expect_exit 2 "$SMCR_SIM" run -q --stats-format csv --timeline "$TMP/x.svg" scenarios/default.scn
expect_exit 2 "$SMCR_SIM" run -q --timeline "$TMP/nodir/x.svg" scenarios/default.scn

# every shipped scenario (not the heavy ones) and every trace draws well-formed pictures
n=0
for f in scenarios/*.scn; do
	case "$f" in scenarios/realhw-*) continue ;; esac
	grep -q '^# heavy:' "$f" && continue
	b=$(basename "$f" .scn)
	"$SMCR_SIM" msc "$f" -o "$TMP/all-msc.svg" 2>/dev/null || fail "$f: msc failed"
	"$SMCR_SIM" run -q --topology "$TMP/all-topo.svg" --timeline "$TMP/all-tl.svg" --stats-interval 1s "$f" \
		>/dev/null 2>&1 || [ $? = 1 ] || fail "$f: run --topology --timeline failed"
	for p in msc topo tl; do
		$C "$TMP/all-$p.svg" >/dev/null || fail "$f: $p: $($C "$TMP/all-$p.svg" | head -1)"
	done
	n=$((n + 1))
done
[ "$n" -ge 15 ] || fail "only $n scenarios drawn"
for tr in traces/*.pcap*; do
	"$SMCR_SIM" msc "$tr" -o "$TMP/tr.svg" || fail "$tr: msc failed"
	$C "$TMP/tr.svg" >/dev/null || fail "$tr: msc: not well-formed"
	[ "$(count "$TMP/tr.svg" clc)" -gt 1 ] || fail "$tr: msc: no CLC arrow"
done

# watching changes nothing
"$SMCR_SIM" run -q scenarios/default.scn >"$TMP/plain.txt"
cmp -s "$TMP/plain.txt" "$TMP/watched.txt" || fail "run --topology --timeline changed the run's output"

# --- the committed pictures are current
MAKE_PICTURES_SVG_ONLY=1 tools/make-pictures "$SMCR_SIM" "$TMP/pictures" >/dev/null
for f in "$TMP"/pictures/*.svg; do
	cmp -s "$f" "docs/pictures/$(basename "$f")" || fail "docs/pictures/$(basename "$f") is stale: run make pictures"
	[ -f "docs/pictures/$(basename "$f" .svg).png" ] || fail "docs/pictures/$(basename "$f" .svg).png is missing"
done
echo "pictures ok: msc ($all rows), topology, timeline"
