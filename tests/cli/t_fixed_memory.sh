# One answer for memory, and FIXEDMEMORY as z/OS does it (issue 33, points 2 and 3):
# - fixed memory counts a stack's RMBs and send buffers, not control blocks: 128K holds one
#   connection's 64K + 64K exactly (tests/data/fixedmem/exact.scn);
# - a z/OS stack whose buffers would go past the limit declines the new connection with
#   MEM (0x01010000) before any Accept, at once, and it uses TCP (one-short.scn, several.scn);
# - reports and JSON show the fixed memory in use against the limit and the connections
#   declined for it; the report's in_use, the link groups' buffer_storage +
#   send_buffer_storage and --stats buffer_bytes are the same number (default.scn at 200 ms).
set -eu
. tests/lib.sh
D=tests/data/fixedmem
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

for f in exact one-short several; do
	"$SMCR_SIM" run -q $D/$f.scn >"$TMP/$f.out" || fail "$f.scn: $(grep expectation "$TMP/$f.out")"
done

# no Accept before the Decline, the Decline says MEM, the client falls back at once
"$SMCR_SIM" run -q $D/one-short.scn --events "$TMP/ev.jsonl" >/dev/null
python3 - "$TMP/ev.jsonl" <<'EOF' || fail "one-short.scn: not a MEM decline before any Accept"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
clc = [e for e in ev if e["kind"] == "clc" and e["dir"] == "out"]
kinds = [e["summary"] for e in clc]
assert not any("Accept" in k for k in kinds), kinds
dec = [e for e in clc if "Decline" in e["summary"]]
assert len(dec) == 1 and dec[0]["stack"] == "S", kinds
assert dec[0]["fields"]["diagnosis"] == "0x01010000", dec[0]["fields"]
op = [e for e in ev if e["kind"] == "conn" and e["what"] == "opened" and e["role"] == "client"]
assert op and op[0]["fallback_name"] == "SMC_CLC_DECL_PEERDECL" and op[0]["peer_diagnosis"] == "0x01010000", op
assert op[0]["time_ns"] < 1000000, "the client waited: %d ns" % op[0]["time_ns"]
EOF
"$SMCR_SIM" run -v $D/one-short.scn >"$TMP/log"
grep -q 'blk: S accepts it on TCP, fallback 01010000 (SMC_CLC_DECL_MEM): its RMB and send buffer (65536 + 65536 bytes) would take S.s SMC-R fixed memory (0 bytes in use) past its limit, smcr fixedmemory=130048' "$TMP/log" ||
	fail "run -v one-short.scn: the server does not say why it declined"

# a failed expectation keeps the peer's code (issue 33, point 4)
sed 's/^expect mode blk == FALLBACK reason=PEERDECL$/expect mode blk == SMCR/' $D/one-short.scn >"$TMP/want-smcr.scn"
"$SMCR_SIM" run "$TMP/want-smcr.scn" >"$TMP/want.out" 2>&1 || true
grep -q 'blk.1 is FALLBACK reason=0x05000000 (SMC_CLC_DECL_PEERDECL) peer diagnosis 0x01010000 (SMC_CLC_DECL_MEM))$' "$TMP/want.out" ||
	fail "a failed mode expectation does not keep the peer's code: $(grep expectation "$TMP/want.out")"

# the report and its JSON: in use against the limit, and the declined connections
"$SMCR_SIM" run -f json $D/several.scn >"$TMP/several.json"
python3 - "$TMP/several.json" <<'EOF' || fail "several.scn: fixed_memory in the JSON report is wrong"
import json, sys
st = {s["name"]: s for s in json.load(open(sys.argv[1]))["reports"][0]["stacks"]}
assert st["S"]["fixed_memory"] == {"in_use": 262144, "limit": 262144, "declined": 2}, st["S"]["fixed_memory"]
assert st["C"]["fixed_memory"]["declined"] == 0 and st["C"]["fixed_memory"]["limit"] == 256 << 20, st["C"]["fixed_memory"]
lg = st["S"]["link_groups"][0]
assert lg["buffer_storage"] == 131072 and lg["send_buffer_storage"] == 131072, lg
EOF
sed 's/^report format=json$/report format=netstat/' $D/several.scn >"$TMP/several-netstat.scn"
"$SMCR_SIM" run "$TMP/several-netstat.scn" | grep -qx 'SMCRFixedMemory: InUse: 262144  Limit: 262144  DeclinedConns: 2' ||
	fail "netstat report: no SMCRFixedMemory line for S"

# one number for the buffers: report JSON, link groups and --stats at the same time
"$SMCR_SIM" run -f json --end 200ms --stats "$TMP/st.csv" scenarios/default.scn >"$TMP/d.json" 2>/dev/null || [ $? = 1 ]
python3 - "$TMP/d.json" "$TMP/st.csv" <<'EOF' || fail "default.scn at 200 ms: the memory figures disagree"
import csv, json, sys
rep = json.load(open(sys.argv[1]))["timeline"][0]
assert rep["time_ns"] == 200000000, rep["time_ns"]
rows = {r["stack"]: r for r in csv.DictReader(open(sys.argv[2])) if r["object"] == "stack" and r["time_ns"] == "200000000"}
for s in rep["stacks"]:
    groups = sum(g["buffer_storage"] + g["send_buffer_storage"] for g in s["link_groups"])
    assert s["fixed_memory"]["in_use"] == groups == int(rows[s["name"]]["buffer_bytes"]) > 0, \
        (s["name"], s["fixed_memory"], groups, rows[s["name"]]["buffer_bytes"])
    assert all(g["buffer_storage"] * 2 == groups for g in s["link_groups"]), "BufferStorage is the RMBs alone"
EOF
echo "fixed memory ok"
