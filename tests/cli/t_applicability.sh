# smcr-sim applicability: SMCAT's figures from TCP captures and the re-run over TCP and SMC-R.
#  - a real capture (Linux 6.1 connections that fell back to TCP): the figures worked out by
#    hand from the frames (4 connections, 3 well-suited, 126 of 128 segments), the JSON
#    validated against its schema, the SVG's elements, the re-run's connections done;
#  - the re-run's hosts (linux by default) and their CPU in text, JSON and SVG: non-zero for
#    every host, run and connection, by category (no SMC-R work over TCP), the connections'
#    shares adding up to the hosts'; hosts chosen by --client-host, --server-host and a
#    scenario's stacks (an option wins), bad choices said as the scenario says them;
#  - the same capture cut to 96 bytes a frame (headers only): the same figures;
#  - generated captures: IPv4/IPv6, Ethernet/raw IP/Linux cooked, TSO segments of 60000
#    bytes (IPv4 total length 0): every variant counts the same 3,840,000 bytes;
#  - the set-up: a host without SMC-R, different subnets, an SMC-Rv2 UEID in common;
#  - bad input: not a capture (exit 2), no TCP, a truncated file, a time stamp jump, steps
#    back in time, one direction only, 20,000 tiny connections with --max-open 500 (folded
#    early, memory bounded): clear messages, a partial result, exit 1 where data was lost.
set -eu
. tests/lib.sh

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
G=tests/support/gen-tcp-capture
A() { "$SMCR_SIM" applicability -q "$@"; }
jget() { # jget FILE PYTHON-EXPRESSION-ON-d
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}
schema() {
	if python3 -c 'import jsonschema' 2>/dev/null; then
		tools/validate-json applicability "$1" || fail "$1 does not validate"
	fi
}

# ---- a real capture
R=tests/data/replay/linux-6.1-fallbacks.pcap
A -f json --svg "$TMP/r.svg" "$R" >"$TMP/r.json"
schema "$TMP/r.json"
[ "$(jget "$TMP/r.json" '(d["total"]["connections"], d["total"]["eligible"], d["total"]["well_suited"])')" = "(4, 4, 3)" ] ||
	fail "real capture: $(jget "$TMP/r.json" 'd["total"]')"
[ "$(jget "$TMP/r.json" '(d["total"]["segments"], d["total"]["segments_well_suited"], d["total"]["bytes"])')" = "(128, 126, 120252)" ] ||
	fail "real capture segments: $(jget "$TMP/r.json" 'd["total"]')"
[ "$(jget "$TMP/r.json" 'd["rerun"]["smcr"]["done"]')" = 4 ] || fail "re-run: $(jget "$TMP/r.json" 'd["rerun"]["smcr"]')"
[ "$(jget "$TMP/r.json" 'd["rerun"]["tcp"]["smcr"]')" = 0 ] || fail "the TCP run used SMC-R"
[ "$(grep -c 'class="dest"' "$TMP/r.svg")" = 2 ] || fail "svg: $(grep -c 'class="dest"' "$TMP/r.svg") destinations"
[ "$(grep -c 'class="conn"' "$TMP/r.svg")" = 4 ] || fail "svg: connections"
A "$R" >"$TMP/r.txt"
grep -q '^10.0.0.1  *4  *100.0%  *75.0%  *98.4%  *128$' "$TMP/r.txt" || fail "text: $(cat "$TMP/r.txt")"
grep -q 'thresholds are assumed' "$TMP/r.txt" || fail "text: the assumed thresholds are not said"
echo "ok real capture: 4 connections, 3 well-suited, 98.4% of the segments; re-run done"

# ---- the re-run's hosts and their CPU (every figure from the host model, none zero)
[ "$(jget "$TMP/r.json" '[(h["profile"], h["from"], h["cpus"], h["client"], h["server"]) for h in d["rerun"]["hosts"]]')" = \
	"[('linux', 'default', 2, True, False), ('linux', 'default', 2, False, True)]" ] ||
	fail "hosts: $(jget "$TMP/r.json" 'd["rerun"]["hosts"]')"
for run in tcp smcr; do
	[ "$(jget "$TMP/r.json" "all(h['$run']['cpu_ns'] > 0 and h['$run']['busiest_cpu_ns'] > 0 and h['$run']['cpu_ns'] == sum(h['$run']['cpu_by_category_ns'].values()) for h in d['rerun']['hosts'])")" = True ] ||
		fail "$run: a host without CPU: $(jget "$TMP/r.json" 'd["rerun"]["hosts"]')"
	[ "$(jget "$TMP/r.json" "d['rerun']['$run']['cpu_ns'] == sum(h['$run']['cpu_ns'] for h in d['rerun']['hosts']) == sum(c['$run']['cpu_ns'] for c in d['rerun']['connections']) > 0")" = True ] ||
		fail "$run: the connections' CPU does not add up to the hosts': $(jget "$TMP/r.json" "d['rerun']['$run']")"
	[ "$(jget "$TMP/r.json" "all(c['$run']['cpu_ns'] > 0 for c in d['rerun']['connections']) and d['rerun']['$run']['cpu_per_exchange_ns'] > 0 and d['rerun']['$run']['cpu_per_mib_ns'] > 0")" = True ] ||
		fail "$run: a connection without CPU: $(jget "$TMP/r.json" "[c['$run'] for c in d['rerun']['connections']]")"
done
[ "$(jget "$TMP/r.json" '(d["rerun"]["tcp"]["cpu_by_category_ns"]["smcr"], d["rerun"]["smcr"]["cpu_by_category_ns"]["smcr"] > 0, d["rerun"]["tcp"]["cpu_by_category_ns"]["tcpip"] > d["rerun"]["smcr"]["cpu_by_category_ns"]["tcpip"])')" = "(0, True, True)" ] ||
	fail "CPU categories: $(jget "$TMP/r.json" '(d["rerun"]["tcp"], d["rerun"]["smcr"])')"
grep -q '^  hosts: clients linux (default), servers linux (default); chosen with --client-host, --server-host' "$TMP/r.txt" ||
	fail "text: the hosts are not said: $(grep hosts "$TMP/r.txt")"
grep -Eq '^total over SMC-R: 4/4 connections done .*; CPU [1-9][0-9.]* (us|ms)$' "$TMP/r.txt" || fail "text: total CPU: $(grep '^total' "$TMP/r.txt")"
grep -Eq '^CPU over TCP  : [1-9][0-9.]* (us|ms): app [0-9.]* us, tcpip [1-9][0-9.]* us, smcr 0.0 us, irq [1-9][0-9.]* us; [1-9][0-9.]* us an exchange' "$TMP/r.txt" ||
	fail "text: CPU over TCP: $(grep '^CPU' "$TMP/r.txt")"
[ "$(grep -Ec '^#[1-4] .* \| TCP .* [1-9][0-9.]* us \| (TCP|SMC-R) .* [1-9][0-9.]* us$' "$TMP/r.txt")" = 4 ] ||
	fail "text: per-connection CPU: $(grep '^#' "$TMP/r.txt")"
[ "$(grep -Ec '^10\.0\.0\.[12] \(10\.0\.0\.[23]\) +(client|server) +4 linux \(default\) +\| +[1-9][0-9.]* us' "$TMP/r.txt")" = 2 ] ||
	fail "text: hosts: $(cat "$TMP/r.txt")"
tests/support/svg-count "$TMP/r.svg" cpu-tcp cpu-smcr host host-tcp host-smcr >"$TMP/r.count"
grep -qx 'cpu-tcp 4' "$TMP/r.count" && grep -qx 'cpu-smcr 4' "$TMP/r.count" && grep -qx 'host 2' "$TMP/r.count" &&
	grep -qx 'host-smcr 2' "$TMP/r.count" || fail "svg: $(head -6 "$TMP/r.count")"
python3 - "$TMP/r.svg" <<'PY' || fail "svg: CPU bars without length"
import re, sys
t = open(sys.argv[1]).read()
for cls in ("host-tcp", "host-smcr", "cpu-tcp", "cpu-smcr"):
    w = [float(x) for x in re.findall(r'<rect [^>]*width="([0-9.]+)"[^>]*class="%s"' % cls, t)]
    assert w and all(x > 1 for x in w[:2]), (cls, w)
assert re.search(r"CPU TCP [1-9][0-9]* ns, SMC-R [1-9][0-9]* ns", t)
PY
echo "ok hosts: linux by default, CPU by host, category and connection (adding up), text, JSON and SVG"

# ---- hosts chosen: --client-host, --server-host, a scenario's stacks; bad choices
A -f json --client-host none --server-host 'zos,cpus=8 speed=150' "$R" >"$TMP/h.json"
schema "$TMP/h.json"
[ "$(jget "$TMP/h.json" '[(h["profile"], h["from"], h["cpus"], h["tcp"]["cpu_ns"] > 0) for h in d["rerun"]["hosts"]]')" = \
	"[('none', '--client-host', 1, False), ('zos,cpus=8,speed=150', '--server-host', 8, True)]" ] ||
	fail "chosen hosts: $(jget "$TMP/h.json" 'd["rerun"]["hosts"]')"
[ "$(jget "$TMP/h.json" '(d["settings"]["client_host"], d["settings"]["server_host"])')" = "('none', 'zos,cpus=8,speed=150')" ] ||
	fail "chosen hosts: settings"
[ "$(jget "$TMP/h.json" 'd["rerun"]["hosts"][1]["tcp"]["cpu_ns"]')" != "$(jget "$TMP/r.json" 'd["rerun"]["hosts"][1]["tcp"]["cpu_ns"]')" ] ||
	fail "a z/OS server costs what a Linux one does"
A --server-host zos "$R" | grep -q '^  hosts: clients linux (default), servers zos (--server-host);' || fail "text: chosen hosts"
$G "$TMP/one.pcap" 1 rr
cat >"$TMP/pair.scn" <<'S'
switch SW
adapter RA pfid=0001 switch=SW
adapter RB pfid=0002 switch=SW
stack CLI personality=linux
  interface eth0 switch=SW ip=10.1.0.1/16
  smcr pfid=0001
  host speed=150
end
stack SRV personality=zos
  interface eth0 switch=SW ip=10.1.0.254/16
  smcr pfid=0002
  host cpus=6
end
S
A -f json --scenario "$TMP/pair.scn" "$TMP/one.pcap" >"$TMP/sc2.json"
[ "$(jget "$TMP/sc2.json" '[(h["profile"], h["from"], h["stack"]) for h in d["rerun"]["hosts"]]')" = \
	"[('linux,speed=150', 'scenario', 'CLI'), ('zos,cpus=6', 'scenario', 'SRV')]" ] ||
	fail "scenario hosts: $(jget "$TMP/sc2.json" 'd["rerun"]["hosts"]')"
A -f json --scenario "$TMP/pair.scn" --server-host linux "$TMP/one.pcap" >"$TMP/sc3.json"
[ "$(jget "$TMP/sc3.json" '[(h["profile"], h["from"]) for h in d["rerun"]["hosts"]]')" = "[('linux,speed=150', 'scenario'), ('linux', '--server-host')]" ] ||
	fail "an option over the scenario: $(jget "$TMP/sc3.json" 'd["rerun"]["hosts"]')"
expect_exit 2 A --server-host zoss "$R"
expect_stderr "--server-host 'zoss': bad value 'zoss' for host; expected none, linux or zos" A --server-host zoss "$R"
expect_stderr "--client-host 'linux,cpus=0': cpus=0 is out of range; expected 1..256" A --client-host linux,cpus=0 "$R"
expect_stderr "--client-host 'linux,irqcpu=2': irqcpu=2 names no CPU of the 2; expected 0..1" A --client-host linux,irqcpu=2 "$R"
echo "ok hosts chosen: --client-host none, --server-host zos,cpus=8, a scenario's stacks (an option wins); bad choices said"

# ---- headers only
editcap -s 96 "$R" "$TMP/cut.pcap" >/dev/null 2>&1 || fail "editcap"
A -f json --rerun 0 "$TMP/cut.pcap" >"$TMP/cut.json"
[ "$(jget "$TMP/cut.json" 'd["total"]')" = "$(jget "$TMP/r.json" 'd["total"]')" ] ||
	fail "snap length 96 changed the figures: $(jget "$TMP/cut.json" 'd["total"]')"
echo "ok snap length 96: the same figures"

# ---- link types, IPv6, TSO
for v in "rr" "rr --v6" "tso" "tso --v6 --link raw" "rr --link sll2" "tso --link sll2 --v6"; do
	# shellcheck disable=SC2086
	$G "$TMP/g.pcap" 20 $v
	A -f json --rerun 0 "$TMP/g.pcap" >"$TMP/g.json"
	got=$(jget "$TMP/g.json" '(d["total"]["connections"], d["total"]["well_suited"], d["total"]["bytes"], d["total"]["receives"]["32K-64K"])')
	[ "$got" = "(20, 20, 3840000, 60)" ] || fail "$v: $got"
done
echo "ok IPv4/IPv6, Ethernet/raw/cooked, TSO: 3840000 bytes each"

# ---- the set-up
$G "$TMP/s.pcap" 4 rr
cat >"$TMP/setup" <<'S'
default pnetid=NET1
host 10.1.0.1 smcr=no          # no RoCE adapter
host 10.1.0.2 pnetid=NET2      # another physical network
S
A -f json --rerun 0 --setup "$TMP/setup" "$TMP/s.pcap" >"$TMP/s.json"
[ "$(jget "$TMP/s.json" 'd["total"]["not_eligible"]')" = "{'no_smcr': 1, 'subnet': 0, 'vlan': 0, 'pnetid': 1}" ] ||
	fail "set-up: $(jget "$TMP/s.json" 'd["total"]')"
[ "$(jget "$TMP/s.json" 'd["total"]["eligible"]')" = 2 ] || fail "set-up: eligible"
cat >"$TMP/setup2" <<'S'
host 10.1.0.254/32 v2=yes ueid=APP1    # the server alone in its subnet: SMC-Rv1 reaches nobody
host 10.1.0.4 v2=yes ueid=OTHER,APP1   # SMC-Rv2 does, with the UEID in common
S
A -f json --rerun 0 --setup "$TMP/setup2" "$TMP/s.pcap" >"$TMP/s2.json"
[ "$(jget "$TMP/s2.json" '(d["total"]["eligible"], d["total"]["not_eligible"]["subnet"])')" = "(1, 3)" ] ||
	fail "set-up v2: $(jget "$TMP/s2.json" 'd["total"]')"
printf 'host bad\n' >"$TMP/bad.setup"
expect_stderr "bad.setup:1: host wants an address" A --setup "$TMP/bad.setup" "$TMP/s.pcap"
A -f json --rerun 0 --scenario scenarios/two-stacks.scn "$TMP/s.pcap" >"$TMP/sc.json"
[ "$(jget "$TMP/sc.json" 'd["total"]["not_eligible"]["no_smcr"]')" = 4 ] || fail "a scenario without these hosts"
echo "ok set-up: no SMC-R, another PNet ID, v2 UEID; a scenario"

# ---- bad input
expect_exit 2 A scenarios/two-stacks.scn
expect_stderr "cannot read as a capture file" A scenarios/two-stacks.scn
"$SMCR_SIM" debug fabric-pcap "$TMP/roce.pcap" >/dev/null 2>&1 || fail "debug fabric-pcap"
A "$TMP/roce.pcap" >"$TMP/none.txt" || fail "no TCP: exit $?"
grep -q 'no TCP segment in' "$TMP/none.txt" || fail "no TCP: $(cat "$TMP/none.txt")"
head -c 30000 "$R" >"$TMP/trunc.pcap"
set +e
A "$TMP/trunc.pcap" >"$TMP/trunc.txt" 2>&1
rc=$?
set -e
[ "$rc" = 1 ] || fail "truncated: exit $rc"
grep -q 'the file is damaged here' "$TMP/trunc.txt" && grep -q 'the file ends damaged' "$TMP/trunc.txt" ||
	fail "truncated: $(cat "$TMP/trunc.txt")"
python3 - "$R" "$TMP/jump.pcap" <<'EOF'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
off, n = 24, 0
while off + 16 <= len(b):
    n += 1
    if n == 60:
        struct.pack_into('<I', b, off, 0xE0000000)  # frame 60: libpcap reads it as before 1970
    off += 16 + struct.unpack_from('<I', b, off + 8)[0]
open(sys.argv[2], 'wb').write(b)
EOF
set +e
A -f json --rerun 0 "$TMP/jump.pcap" >"$TMP/jump.json"
rc=$?
set -e
[ "$rc" = 1 ] || fail "jump: exit $rc"
[ "$(jget "$TMP/jump.json" 'd["capture"]["time_gaps"]')" = 2 ] || fail "jump: $(jget "$TMP/jump.json" 'd["capture"]')"
[ "$(jget "$TMP/jump.json" 'd["capture"]["notes"][0]["frame"] == 60 and d["capture"]["notes"][0]["text"].startswith("time stamp jump: frame 60 is dated")')" = True ] ||
	fail "jump: $(jget "$TMP/jump.json" 'd["capture"]["notes"]')"
[ "$(jget "$TMP/jump.json" 'd["total"]["connections"]')" = 4 ] || fail "jump: connections"
$G "$TMP/o.pcap" 200 rr --shuffle-times
A -f json --rerun 0 "$TMP/o.pcap" >"$TMP/o.json"
[ "$(jget "$TMP/o.json" 'd["capture"]["out_of_order"] > 0 and d["total"]["connections"] == 200')" = True ] || fail "out of order"
$G "$TMP/w.pcap" 10 rr --one-way
A -f json --rerun 0 "$TMP/w.pcap" >"$TMP/w.json"
[ "$(jget "$TMP/w.json" '(d["capture"]["connections_one_way"], d["total"]["bytes"])')" = "(10, 120000)" ] ||
	fail "one way: $(jget "$TMP/w.json" 'd["capture"]')"
$G "$TMP/t.pcap" 20000 tiny
/usr/bin/time -f '%M' -o "$TMP/rss" "$SMCR_SIM" applicability -q -f json --rerun 0 --max-open 500 "$TMP/t.pcap" >"$TMP/t.json"
[ "$(jget "$TMP/t.json" 'd["total"]["connections"]')" = 20000 ] || fail "tiny: $(jget "$TMP/t.json" 'd["total"]')"
[ "$(jget "$TMP/t.json" 'd["total"]["segments"]')" = 160000 ] || fail "tiny: segments"
[ "$(cat "$TMP/rss")" -lt 200000 ] || fail "tiny: $(cat "$TMP/rss") KB"
echo "ok bad input: not a capture, no TCP, truncated, jump, out of order, one way, 20000 tiny ($(cat "$TMP/rss") KB)"
echo "applicability ok"
