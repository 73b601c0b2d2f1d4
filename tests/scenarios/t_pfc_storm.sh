# A PFC storm (scenarios/incast-pfc-storm.scn, docs/congestion.md): a receiving adapter
# whose receive side stalls (rxstall=) pauses its switch with PFC; the pause spreads hop
# by hop (SW2 pauses the trunk, SW1 pauses every sender on the priority, the innocent
# one too) and unwinds when the receiver drains again. The report shows it per port; the
# scenario's timed expectations fail when the pause does not reach the innocent flow
# (no stall, or lossy switches); tshark decodes every PFC frame of the storm, none
# malformed, and sees the receiver's XOFF refreshed every half pause, then its XON.
set -eu
. tests/lib.sh
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
scn=scenarios/incast-pfc-storm.scn

# --- the attributes
"$SMCR_SIM" check --defaults >"$dir/defaults"
grep -q '^adapter  *rxstall  *(none) .*never$' "$dir/defaults" || fail "check --defaults does not list adapter rxstall (unset: never)"
grep -q '^adapter  *rxstallfor  *1ms ' "$dir/defaults" || fail "rxstallfor must default to 1ms"
printf 'scenario "bad"\nswitch S\nadapter A pfid=0001 switch=S rxstall=1ms rxstallfor=0\n' >"$dir/bad.scn"
expect_exit 2 "$SMCR_SIM" check "$dir/bad.scn"
expect_stderr 'bad.scn:3:' "$SMCR_SIM" check "$dir/bad.scn"

# --- the storm: every expectation met, the report in the middle of the stall
"$SMCR_SIM" run "$scn" >"$dir/out" || { grep 'expectation failed' "$dir/out"; fail "the storm scenario failed"; }
awk '/^==== report/ { r++ } r == 1' "$dir/out" >"$dir/mid"
port() { # SWITCH PORT-NAME-PREFIX: its line in the mid-stall report
	awk -v sw="  $1:" -v p="$2" 'index($0, sw) == 1 { on = 1; next } /^  [A-Z]/ { on = 0 } on && $2 ~ "^" p { print; exit }' "$dir/mid"
}
num() { # LINE WORD: the number after WORD ("pause 8+0/0+0" -> fields)
	echo "$1" | awk -v w="$2" '{ for (i = 1; i < NF; i++) if ($i == w) { print $(i + 1); exit } }'
}
rx=$(port SW2 RX.p1)
trunk2=$(port SW2 TRUNK)
trunk1=$(port SW1 TRUNK)
innocent=$(port SW1 ITX.p1)
[ -n "$rx" ] && [ -n "$trunk2" ] && [ -n "$trunk1" ] && [ -n "$innocent" ] || fail "switch ports missing in the report: $(cat "$dir/mid" | grep -c .)"
# "pause S1+S2/R1+R2": XOFF+XON sent / received
case "$(num "$rx" pause)" in 0+0/0+*) fail "SW2 got no XOFF from the stalled receiver: $rx" ;; esac
case "$(num "$trunk2" pause)" in 0+*) fail "SW2 did not pause the trunk: $trunk2" ;; esac
case "$(num "$trunk1" pause)" in */0+*) fail "SW1's trunk port was not paused: $trunk1" ;; esac
case "$(num "$innocent" pause)" in 0+*) fail "SW1 did not pause the innocent sender: $innocent" ;; esac
paused_us() { num "$1" paused | cut -d. -f1; }
[ "$(paused_us "$rx")" -ge 4900 ] || fail "SW2's port to the receiver paused only $(paused_us "$rx") us of 5 ms"
[ "$(paused_us "$trunk1")" -ge 4500 ] || fail "SW1's trunk paused only $(paused_us "$trunk1") us of 5 ms"
# at the end: recovered, nothing dropped anywhere
awk '/^    p[0-9]/ && !/drops 0\/0 /' "$dir/out" | grep -q . && fail "the storm dropped frames"
grep -q '^  receive side stalled 10000.000 us: PFC frames sent 16, ' "$dir/out" ||
	fail "the receiver's 10 ms stall (15 XOFFs and an XON) is not in the adapter congestion section"

# --- the expectations depend on the pause spreading
sed 's/rxstallfor={STALLFOR}/rxstallfor=1us/' "$scn" >"$dir/nostall.scn"
expect_exit 1 "$SMCR_SIM" run "$dir/nostall.scn"
"$SMCR_SIM" run "$dir/nostall.scn" | grep -q 'expectation failed: expect delivered innocent < 15500K' ||
	fail "without the stall the innocent flow's expectation should fail"
sed 's/ pfc=08 / pfc=00 /' "$scn" >"$dir/lossy.scn"
"$SMCR_SIM" run "$dir/lossy.scn" >"$dir/lossy.out" || true
grep -q 'expectation failed: expect delivered innocent < 15500K' "$dir/lossy.out" ||
	fail "on lossy switches the pause must not reach the innocent flow"

# --- JSON: the receiver's stall fields
"$SMCR_SIM" run --format json "$scn" >"$dir/out.json"
python3 - "$dir/out.json" <<'PY' || fail "JSON adapter_congestion of the stalled receiver"
import json, sys
d = json.load(open(sys.argv[1]))
ac = d["adapter_congestion"]
rx = [a for a in ac if a["adapter"] == "RX"][0]
assert rx["rx_stalled_ns"] == 10000000, rx
# only what was already on the wire reaches the stalled receiver: the headroom holds the rest
assert rx["pfc_tx"] == 16 and 0 < rx["rx_stall_peak_bytes"] <= 24 * 1024, rx
others = [a for a in ac if a["adapter"] != "RX"]
assert others and all("pfc_tx" not in a for a in others), "stall fields only on a stalling adapter"
PY

# --- tshark: the storm's PFC frames
"$SMCR_SIM" run --pcap "$dir/storm.pcapng" --pcap-taps both --pcap-snaplen 128 "$scn" >/dev/null
tshark -n -r "$dir/storm.pcapng" -Y macc -T fields -e frame.time_relative -e frame.interface_name -e eth.src \
	-e eth.dst -e macc.opcode -e macc.cbfc.enbv -e macc.cbfc.pause_time.c3 -e _ws.malformed \
	-e _ws.expert.severity 2>/dev/null >"$dir/macc"
[ -s "$dir/macc" ] || fail "no MAC Control frame in the capture"
awk -F'\t' '$5 != "0x0101" || $6 != "0x0008" || $4 != "01:80:c2:00:00:01" || $8 != "" || $9 != ""' "$dir/macc" | grep -q . &&
	fail "a PFC frame that is not a clean priority-3 PFC: $(awk -F'\t' '$5 != "0x0101" || $6 != "0x0008" || $8 != "" || $9 != ""' "$dir/macc" | head -1)"
# the receiver (MAC 02:01:01:00:00:01): XOFF at the stall, every half pause (671 us at
# 25 Gb/s), XON at its end
awk -F'\t' '$3 == "02:01:01:00:00:01"' "$dir/macc" >"$dir/rx"
[ "$(awk -F'\t' '$7 == 65535' "$dir/rx" | wc -l)" -eq 15 ] || fail "the receiver sent $(awk -F'\t' '$7 == 65535' "$dir/rx" | wc -l) XOFFs, expected 15"
[ "$(awk -F'\t' '$7 == 0' "$dir/rx" | wc -l)" -eq 1 ] || fail "the receiver's XON"
awk -F'\t' '$7 == 0 { if ($1 < 0.0299 || $1 > 0.0301) exit 1 }' "$dir/rx" || fail "the XON is not at the stall's end"
# the innocent sender is held paused throughout: XOFFs and no XON in the stall
awk -F'\t' '$2 ~ /ITX/ && $1 > 0.0202 && $1 < 0.0299 { if ($7 == 0) xon++; else xoff++ } END { exit !(xoff > 0 && xon == 0) }' "$dir/macc" ||
	fail "the innocent sender was not kept paused during the stall"
echo "pfc storm ok ($(wc -l <"$dir/macc") PFC frames)"
