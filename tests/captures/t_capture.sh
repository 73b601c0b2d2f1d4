# `smcr-sim run --pcap / --pcap-per-stack`: what the captures hold, read back with tshark.
#  - whole fabric: an interface per tap point with its name; frames turned around inside
#    a shared adapter are there (SHRn.p1/eswitch); every RoCE frame carries a comment
#    naming the SMC-R link, and LLC frames name their message;
#  - per stack: one file per stack, holding that stack's traffic and nothing of the
#    others (shared adapters: frames between other stacks' VFs are left out);
#  - --pcap-taps both: each frame once per access port it crosses;
#  - the same run twice writes the same bytes.
# slow test: about 13 s
set -eu
. tests/lib.sh

command -v tshark >/dev/null 2>&1 && command -v capinfos >/dev/null 2>&1 ||
	{ echo "tshark/capinfos are not installed"; exit 77; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
ts() { f=$1; shift; tshark -n -r "$f" "$@" 2>/dev/null; }
count() { ts "$1" -Y "$2" -T fields -e frame.number | wc -l; }
# a shortened run: expectations about the end may fail (exit 1), nothing else may
run() {
	set +e; "$SMCR_SIM" run "$@" >"$TMP/run.out" 2>&1; rc=$?; set -e
	[ "$rc" -le 1 ] || fail "run $* exited $rc: $(tail -3 "$TMP/run.out")"
}

S=scenarios/shared-adapters.scn
run --end 40ms --pcap "$TMP/all.pcapng" --pcap-per-stack "$TMP/st" "$S"
ifnames() { capinfos -I "$1" 2>/dev/null | sed -n 's/^ *Name = //p'; }
ifnames "$TMP/all.pcapng" | sort >"$TMP/ifs"
for want in SW1/LP1.osd1 SW2/LP4.osd2 SW1/SHR1.p1 SW2/SHR2.p1 SHR1.p1/eswitch SHR2.p1/eswitch; do
	grep -qx "$want" "$TMP/ifs" || fail "no interface $want in the whole-fabric capture: $(tr '\n' ' ' <"$TMP/ifs")"
done
# the four stacks share both adapters: all RoCE traffic is turned around inside them
looped=$(count "$TMP/all.pcapng" 'frame.interface_name == "SHR1.p1/eswitch" && infiniband')
[ "$looped" -gt 100 ] || fail "only $looped RoCE frames captured inside adapter SHR1"
roce=$(count "$TMP/all.pcapng" infiniband)
commented=$(count "$TMP/all.pcapng" 'infiniband && frame.comment contains "SMC-R "')
[ "$roce" -gt 0 ] && [ "$roce" = "$commented" ] || fail "$commented of $roce RoCE frames carry an SMC-R comment"
[ "$(count "$TMP/all.pcapng" '!infiniband && frame.comment')" = 0 ] || fail "a frame that is not RoCE has a comment"
llc=$(count "$TMP/all.pcapng" 'smc.llc_msg == 0x01')
named=$(count "$TMP/all.pcapng" 'smc.llc_msg == 0x01 && frame.comment contains "LLC CONFIRM_LINK"')
[ "$llc" -gt 0 ] && [ "$llc" = "$named" ] || fail "$named of $llc CONFIRM LINK frames say so in their comment"
ts "$TMP/all.pcapng" -Y 'smc.llc_msg == 0x01' -T fields -e frame.comment | head -1 |
	grep -Eq '^SMC-R LLC CONFIRM_LINK (request|response); link 1: LP[1-4] \(lgr [0-9A-F]{8}, LnkId [0-9A-F]{8}\) -> LP[1-4] \(lgr [0-9A-F]{8}, LnkId [0-9A-F]{8}\)$' ||
	fail "comment: $(ts "$TMP/all.pcapng" -Y 'smc.llc_msg == 0x01' -T fields -e frame.comment | head -1)"

# per stack: four files; LP1's holds its own link groups only (LP2-LP3 is not its business)
for s in LP1 LP2 LP3 LP4; do [ -s "$TMP/st/$s.pcapng" ] || fail "no capture for stack $s"; done
ifnames "$TMP/st/LP1.pcapng" | tr '\n' ' ' >"$TMP/ifs1"
grep -q 'LP1.osd1 LP1.osd2 SHR1.p1 SHR2.p1' "$TMP/ifs1" || fail "LP1's interfaces: $(cat "$TMP/ifs1")"
r1=$(count "$TMP/st/LP1.pcapng" infiniband)
mine=$(count "$TMP/st/LP1.pcapng" 'infiniband && frame.comment contains "LP1 ("')
[ "$r1" -gt 0 ] && [ "$r1" = "$mine" ] || fail "$mine of LP1's $r1 RoCE frames involve LP1"
[ "$(count "$TMP/st/LP1.pcapng" 'ip.addr == 172.16.1.2 && ip.addr == 172.16.1.3')" = 0 ] ||
	fail "LP1's capture holds TCP between LP2 and LP3"
# a turnaround between LP1 and LP2 is in both of their files
f12=$(ts "$TMP/all.pcapng" -Y 'frame.interface_name == "SHR1.p1/eswitch" && frame.comment contains "LP1 (" && frame.comment contains "LP2 ("' -T fields -e frame.number | wc -l)
f1=$(count "$TMP/st/LP1.pcapng" 'frame.comment contains "LP2 (" && frame.interface_name == "SHR1.p1"')
f2=$(count "$TMP/st/LP2.pcapng" 'frame.comment contains "LP1 (" && frame.interface_name == "SHR1.p1"')
[ "$f12" -gt 0 ] && [ "$f1" = "$f12" ] && [ "$f2" = "$f12" ] ||
	fail "LP1<->LP2 frames inside SHR1: $f12 in the fabric file, $f1 in LP1's, $f2 in LP2's"

# taps: ingress has every frame once; both has a frame at each access port it crosses
T=scenarios/two-stacks.scn
run --end 30ms --pcap "$TMP/in.pcapng" "$T"
run --end 30ms --pcap "$TMP/both.pcapng" --pcap-taps both "$T"
n_in=$(count "$TMP/in.pcapng" 'frame')
n_both=$(count "$TMP/both.pcapng" 'frame')
uni=$(count "$TMP/in.pcapng" '!eth.dst.ig')      # unicast: seen entering and leaving
[ "$n_both" -ge $((2 * uni)) ] && [ "$n_both" -gt "$n_in" ] ||
	fail "--pcap-taps both: $n_both frames, ingress $n_in ($uni unicast)"
ts "$TMP/both.pcapng" -T fields -e frame.interface_description | grep -q '^frames to and from' ||
	fail "--pcap-taps both: interface descriptions do not say both directions"

# determinism: the same run writes the same bytes, in both formats
run --end 30ms --pcap "$TMP/in2.pcapng" "$T"
cmp -s "$TMP/in.pcapng" "$TMP/in2.pcapng" || fail "two runs wrote different pcapng files"
run --end 30ms --pcap "$TMP/a.pcap" --pcap-format pcap "$T"
run --end 30ms --pcap "$TMP/b.pcap" --pcap-format pcap "$T"
cmp -s "$TMP/a.pcap" "$TMP/b.pcap" || fail "two runs wrote different pcap files"
[ "$(count "$TMP/a.pcap" frame)" = "$n_in" ] || fail "pcap and pcapng hold different frame counts"
# snap length: frames cut, lengths kept
run --end 30ms --pcap "$TMP/s.pcapng" --pcap-snaplen 128 "$T"
[ "$(count "$TMP/s.pcapng" 'frame.cap_len > 128')" = 0 ] || fail "--pcap-snaplen 128 kept longer frames"
[ "$(count "$TMP/s.pcapng" 'frame.len > 1000')" -gt 0 ] || fail "--pcap-snaplen lost the wire lengths"
echo "captures ok: $looped RoCE frames inside SHR1, $roce RoCE frames commented; taps ingress $n_in, both $n_both"
