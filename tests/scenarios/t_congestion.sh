# The fabric under load (docs/congestion.md): switch congestion attributes are checked
# and listed by `check --defaults`; the three incast scenarios show tail drops and
# go-back-N (lossy), pauses and no drop at all (PFC), ECN marks and CNPs (ECN+DCQCN) in
# their text and JSON reports; PFC frames in a capture decode in tshark as MAC Control
# CBFC (PFC) pauses with no malformed frame, with both XOFF and XON; CE-marked frames
# keep a good IPv4 checksum; `bench incast` prints its figures and rejects bad options.
# slow test: about 9 s
set -eu
. tests/lib.sh
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# --- attributes, ranges, defaults
"$SMCR_SIM" check --defaults >"$dir/defaults"
for k in buffer alpha pfc xoff xon headroom quanta ecn kmin kmax pmax trust; do
	grep -q "^switch  *$k " "$dir/defaults" || fail "check --defaults does not list switch $k"
done
grep -q '^switch  *buffer  *0 ' "$dir/defaults" || fail "buffer must default to 0 (off)"
bad() { # bad LINE PATTERN
	printf 'scenario "bad"\n%s\n' "$1" >"$dir/bad.scn"
	expect_exit 2 "$SMCR_SIM" check "$dir/bad.scn"
	expect_stderr "$2" "$SMCR_SIM" check "$dir/bad.scn"
}
bad 'switch S pfc=08' 'bad.scn:2:10: pfc= needs a switch buffer'
bad 'switch S buffer=1M kmin=300K' 'kmin=307200 is not below kmax=204800'
bad 'switch S buffer=1M xoff=10K xon=20K' 'xon=20480 is not below xoff=10240'
bad 'switch S buffer=1M alpha=0' 'alpha=0 leaves no buffer'
bad 'switch S buffer=1M pfc=100' 'bad.scn:2:'
bad 'switch S buffer=1M quanta=0' 'bad.scn:2:'
bad 'switch S buffer=1M trust=ip' 'bad.scn:2:'
bad 'switch S buffer=9G' 'bad.scn:2:'
printf 'scenario "tight"\nswitch S buffer=64K pfc=08 headroom=48K\nadapter A pfid=0001 switch=S\nadapter B pfid=0002 switch=S\n' >"$dir/tight.scn"
expect_exit 0 "$SMCR_SIM" check "$dir/tight.scn"
expect_stderr 'does not fit in buffer=65536' "$SMCR_SIM" run "$dir/tight.scn"

# --- the three incasts
port_sum() { # FILE FIELD-INDEX of "pause A+B/C+D ... drops T/H marks M"
	awk -v f="$2" '/^    p[0-9]/ { n = split($0, w, /[ +\/]+/); for (i = 1; i <= n; i++) if (w[i] == f) s += w[i + 1] } END { print s + 0 }' "$1"
}
"$SMCR_SIM" run scenarios/incast-none.scn >"$dir/none.out"
grep -q '^switch ports: ' "$dir/none.out" || fail "no switch section in the report"
[ "$(port_sum "$dir/none.out" drops)" -gt 0 ] || fail "lossy incast: no tail drops"
[ "$(port_sum "$dir/none.out" pause)" -eq 0 ] || fail "lossy incast: pauses without PFC"
"$SMCR_SIM" run scenarios/incast-pfc.scn >"$dir/pfc.out"
[ "$(port_sum "$dir/pfc.out" pause)" -gt 0 ] || fail "PFC incast: nobody paused"
awk '/^    p[0-9]/ && !/drops 0\/0 /' "$dir/pfc.out" | grep -q . && fail "PFC incast dropped: $(awk '/^    p[0-9]/ && !/drops 0\/0 /' "$dir/pfc.out")"
"$SMCR_SIM" run scenarios/incast-ecn-dcqcn.scn >"$dir/ecn.out"
[ "$(port_sum "$dir/ecn.out" marks)" -gt 0 ] || fail "ECN incast: no marks"
"$SMCR_SIM" run --format json scenarios/incast-pfc.scn >"$dir/pfc.json"
python3 - "$dir/pfc.json" <<'PY' || fail "JSON switch section"
import json, sys
d = json.load(open(sys.argv[1]))
reps = [e for e in d["timeline"] if "switches" in e]
assert reps, "no report with switches"
ports = reps[0]["switches"][0]["ports"]
assert sum(p["pause_tx"] for p in ports) > 0
assert sum(p["drops"] + p["headroom_drops"] for p in ports) == 0
assert all(p["depth_p50"] <= p["depth_p99"] for p in ports)
PY

# --- txwindow: 1us by default on a lossless priority (a PFC MAC stops at the next frame),
# 10us otherwise; a written value wins
run_as() { # SED-EXPR: the PFC incast with its txwindow rewritten, its output without names
	sed "$1" scenarios/incast-pfc.scn >"$dir/tw.scn"
	"$SMCR_SIM" run "$dir/tw.scn" | sed "s|$dir/tw.scn|X|g"
}
run_as 's/ txwindow=2us//' >"$dir/tw.default"
run_as 's/ txwindow=2us/ txwindow=1us/' >"$dir/tw.1us"
run_as 's/ txwindow=2us/ txwindow=10us/' >"$dir/tw.10us"
cmp -s "$dir/tw.default" "$dir/tw.1us" || fail "a lossless adapter without txwindow= does not run as with txwindow=1us"
cmp -s "$dir/tw.default" "$dir/tw.10us" && fail "txwindow=10us written on a lossless priority was not taken"
run_as 's/ txwindow=2us//; s/ pfc=08 xoff=24K xon=12K headroom=24K//' >"$dir/tw.lossy"
run_as 's/ txwindow=2us/ txwindow=10us/; s/ pfc=08 xoff=24K xon=12K headroom=24K//' >"$dir/tw.lossy10"
cmp -s "$dir/tw.lossy" "$dir/tw.lossy10" || fail "a lossy adapter's txwindow default is not 10us"
grep -q '^adapter  *txwindow  *10us .*1us on a lossless priority' "$dir/defaults" || fail "check --defaults: txwindow's lossless default"

# --- captures: PFC frames as tshark sees them
"$SMCR_SIM" run --pcap "$dir/pfc.pcapng" --pcap-taps both scenarios/incast-pfc.scn >/dev/null
t() { tshark -n -o ip.check_checksum:TRUE -r "$1" -Y "$2" -T fields -e frame.number 2>/dev/null | wc -l; }
n=$(t "$dir/pfc.pcapng" macc)
[ "$n" -gt 0 ] || fail "no MAC Control frame in the capture"
[ "$(t "$dir/pfc.pcapng" 'macc.opcode == 0x0101 && macc.cbfc.enbv == 0x0008')" -eq "$n" ] ||
	fail "every MAC Control frame is a PFC frame for priority 3"
[ "$(t "$dir/pfc.pcapng" 'macc && (_ws.malformed || _ws.expert.severity >= warning)')" -eq 0 ] || fail "malformed PFC frames"
[ "$(t "$dir/pfc.pcapng" 'macc.cbfc.pause_time.c3 == 65535')" -gt 0 ] || fail "no XOFF"
[ "$(t "$dir/pfc.pcapng" 'macc.cbfc.pause_time.c3 == 0')" -gt 0 ] || fail "no XON"
[ "$(t "$dir/pfc.pcapng" 'eth.dst == 01:80:c2:00:00:01')" -eq "$n" ] || fail "PFC frames to 01:80:C2:00:00:01"
"$SMCR_SIM" run --pcap "$dir/ecn.pcapng" --pcap-taps both scenarios/incast-ecn-dcqcn.scn >/dev/null
[ "$(t "$dir/ecn.pcapng" 'ip.dsfield.ecn == 3')" -gt 0 ] || fail "no CE-marked frame in the capture"
[ "$(t "$dir/ecn.pcapng" 'ip.dsfield.ecn == 3 && ip.checksum.status != "Good"')" -eq 0 ] || fail "CE marking broke a checksum"

# --- bench incast
"$SMCR_SIM" bench incast --senders 4 >"$dir/bench.out"
[ "$(grep -c '^bench incast: 4 senders' "$dir/bench.out")" -eq 3 ] || fail "bench incast: three fabrics"
for w in goodput "Jain's fairness" 'bottleneck queue' 'pauses sent' drops 'ECN marks' 'simulated frames/s'; do
	grep -q "$w" "$dir/bench.out" || fail "bench incast does not print $w"
done
"$SMCR_SIM" bench incast --senders 4 --fabric pfc | grep -q 'drops: *0 tail, 0 headroom' || fail "bench incast pfc dropped"
# --speed: the incast's frames per wall second against bench fabric's (the value is the
# machine's; the lines are checked)
"$SMCR_SIM" bench incast --senders 4 --fabric ecn-dcqcn --repeat 1 --speed >"$dir/speed.out"
grep -Eq '^speed against bench fabric \([0-9.]+ M frames/s, 4 GiB of 64 KiB WRITEs, best of 3\):$' "$dir/speed.out" ||
	fail "bench incast --speed: no bench fabric line"
grep -Eq '^  ecn-dcqcn +[0-9.]+ M frames/s = [0-9.]+x bench fabric \(target: within 2x, (met|MISSED)\)$' "$dir/speed.out" ||
	fail "bench incast --speed: no ratio line"
expect_exit 2 "$SMCR_SIM" bench incast --repeat 0
expect_exit 2 "$SMCR_SIM" bench incast --senders 0
# --- bench incast --convergence: two DCQCN flows, rates over time, the 10 % figures
"$SMCR_SIM" bench incast --convergence --ms 100 >"$dir/conv.out"
grep -q '^bench incast --convergence: 2 DCQCN flows through one 40.0 Gb/s bottleneck' "$dir/conv.out" || fail "convergence header"
[ "$(grep -c '^  [0-9]' "$dir/conv.out")" -eq 100 ] || fail "convergence: one line per ms"
first=$(sed -n 's/^  within 10 %: *first \([0-9]*\) ms after the join.*/\1/p' "$dir/conv.out")
[ -n "$first" ] && [ "$first" -le 40 ] || fail "the two flows did not come within 10 % of fair in 40 ms: $(grep within "$dir/conv.out")"
grep -q '^  last quarter: ' "$dir/conv.out" || fail "convergence: no last-quarter figures"
grep -q '^  DCQCN: g 1/256, alpha timer 55 us, rate timer 55 us, byte counter 10000000 B, F 5, R_AI 40 Mb/s' "$dir/conv.out" ||
	fail "convergence: the paper's parameters are not printed"
for a in 1 2 5 10 20 50; do
	grep -Eq "^ +$a ms +(never|[0-9]+ ms) +(never|[0-9]+ ms) +[0-9.]+ % +[0-9.]+ %$" "$dir/conv.out" ||
		fail "convergence: no row for $a ms means"
done
"$SMCR_SIM" bench incast --convergence --ms 20 --cnp-interval 4us --rate-timer 300us --rai 5Mbps |
	grep -q 'rate timer 300 us, .* R_AI 5 Mb/s, R_HAI 400 Mb/s, CNP interval 4 us' || fail "convergence: parameter overrides"
expect_exit 2 "$SMCR_SIM" bench incast --convergence --rate-timer 0us
expect_exit 2 "$SMCR_SIM" bench incast --rai 5Mbps
"$SMCR_SIM" bench incast --convergence --fabric relay --rate 25Gbps --ms 50 --avg 2 | grep -q '25.0 Gb/s bottleneck (RED relay' ||
	fail "convergence through the relay at 25 Gb/s"
# --svg: the same curves as a picture, well-formed, 1 ms windows and the means per flow
if python3 -c 'import xml.etree.ElementTree' 2>/dev/null; then
	"$SMCR_SIM" bench incast --convergence --ms 60 --svg "$dir/conv.svg" >/dev/null || fail "convergence --svg"
	tests/support/svg-count "$dir/conv.svg" series band ref mark >"$dir/conv.count" ||
		fail "convergence --svg: not well-formed SVG: $(cat "$dir/conv.count")"
	grep -qx 'series 4' "$dir/conv.count" && grep -qx 'band 1' "$dir/conv.count" && grep -qx 'mark 1' "$dir/conv.count" ||
		fail "convergence --svg: not four series, the fair band and the join: $(cat "$dir/conv.count")"
	"$SMCR_SIM" bench incast --convergence --ms 60 --svg "$dir/conv2.svg" >/dev/null
	cmp -s "$dir/conv.svg" "$dir/conv2.svg" || fail "convergence --svg: two runs drew different bytes"
fi
expect_exit 1 "$SMCR_SIM" bench incast --convergence --ms 20 --svg /nonexistent/dir/c.svg
expect_exit 2 "$SMCR_SIM" bench incast --svg "$dir/x.svg"
expect_exit 2 "$SMCR_SIM" bench incast --convergence --senders 3
expect_exit 2 "$SMCR_SIM" bench incast --convergence --rate wet
expect_exit 2 "$SMCR_SIM" bench incast --convergence --fabric pfc
expect_exit 2 "$SMCR_SIM" bench incast --ms 100
expect_exit 2 "$SMCR_SIM" bench incast --fabric wet
echo "congestion ok"
