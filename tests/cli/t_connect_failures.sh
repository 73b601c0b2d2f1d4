# A connection that never connects says why, everywhere the run shows connections: the
# event log (run -v), the event stream (--events), the statistics (--stats), the JSON
# result (connects) and a failed expectation; and `check` warns before the run when the
# scenario's own addressing (subnets, routes, forwarding, VLANs) cannot get a client to its
# listener. The scenarios are in tests/data/connect/.
set -eu
. tests/lib.sh
D=tests/data/connect
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# --- check warns, and says why; the shipped scenarios draw no such warning
"$SMCR_SIM" check $D/no-route.scn >/dev/null 2>"$TMP/w"
grep -q "no-route.scn:17:1: warning: app 'rr' on B cannot reach 10.10.0.1:5000 (A) with the scenario's addressing: B has no route to 10.10.0.1" "$TMP/w" ||
	fail "check no-route.scn: no warning ($(cat "$TMP/w"))"
"$SMCR_SIM" check $D/vlan-mismatch.scn >/dev/null 2>"$TMP/w"
grep -q "the address 10.10.0.1 is A.eth0 (switch SW, VLAN 10), not on the network of B.eth0 (switch SW, VLAN 20)" "$TMP/w" ||
	fail "check vlan-mismatch.scn: no VLAN warning ($(cat "$TMP/w"))"
"$SMCR_SIM" check $D/refused-timeout.scn >/dev/null 2>"$TMP/w"
grep -q "app 'routed' on B cannot reach 10.20.0.1:5000 (C) .*next hop 10.10.0.9 (R.eth0) does not forward" "$TMP/w" ||
	fail "check refused-timeout.scn: the router that does not forward is not named ($(cat "$TMP/w"))"
[ "$(grep -c warning "$TMP/w")" = 1 ] || fail "check refused-timeout.scn: warnings for reachable apps: $(cat "$TMP/w")"
for f in scenarios/*.scn; do
	"$SMCR_SIM" check "$f" 2>&1 >/dev/null | grep -q "cannot reach\|cannot come back" && fail "check $f: warns of an endpoint it reaches"
done

# --- the event log
"$SMCR_SIM" run -v $D/no-route.scn >"$TMP/log" || true
grep -qF 'rr: failed (No route to host): 0 sent, 0 delivered; connect B -> A 10.10.0.1:5000: no route to 10.10.0.1: B has no interface on its subnet and no route to it' "$TMP/log" ||
	fail "run -v no-route.scn: the failed connect is not in the log"
grep -qF 'rr.1 is not connected (no route to 10.10.0.1' "$TMP/log" || fail "no-route.scn: the failed expectation does not say why"
"$SMCR_SIM" run -v $D/vlan-mismatch.scn >"$TMP/log" || true
grep -qF '[   3.000000000] rr: failed (No route to host): 0 sent, 0 delivered; connect B -> A 10.10.0.1:5000: no ARP reply from 10.10.0.1 (on B.eth0, 3 requests 1.000 s apart)' "$TMP/log" ||
	fail "run -v vlan-mismatch.scn: not the ARP failure when ARP gives up (3 s): $(grep rr: "$TMP/log")"
"$SMCR_SIM" run -v $D/refused-timeout.scn >"$TMP/log"
for l in 'refused: failed (Connection refused): 0 sent, 0 delivered; connect B -> A 10.10.0.1:5000: refused: 10.10.0.1:5000 answered the SYN with a reset' \
	'timeout: failed (Connection timed out): 0 sent, 0 delivered; connect B -> A 10.10.0.1:5000: no answer to its SYN from 10.10.0.1:5000 (sent 7 times in 127.000 s)' \
	'pending: B -> A 10.10.0.1:5000: not connected: still connecting at the end of the run: its SYN to 10.10.0.1:5000 unanswered since 100.000 s'; do
	grep -qF "$l" "$TMP/log" || fail "run -v refused-timeout.scn: no '$l'"
done

# --- the event stream: a conn line with what=failed (or pending), connect and cause
"$SMCR_SIM" run -q $D/refused-timeout.scn --events "$TMP/ev.jsonl" --stats "$TMP/st.csv" >/dev/null
python3 - "$TMP/ev.jsonl" <<'EOF' || fail "events: the connects are not there with their outcome"
import json, sys
got = {}
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e["kind"] == "conn" and e["role"] == "client" and e["what"] in ("failed", "pending"):
        got[e["conn"]] = (e["what"], e["connect"], e["cause"], e["remote"])
want = {"refused": ("failed", "refused"), "timeout": ("failed", "syn_timeout"),
        "routed": ("failed", "syn_timeout"), "pending": ("pending", "pending")}
for k, (what, connect) in want.items():
    assert k in got, "no line for %s: %s" % (k, got)
    assert got[k][:2] == (what, connect), "%s: %s" % (k, got[k])
    assert got[k][2], "%s: no cause" % k
    assert got[k][3].endswith(":5000"), "%s: remote %s" % (k, got[k][3])
EOF
"$SMCR_SIM" run -q $D/no-route.scn --events - 2>/dev/null |
	grep -q '"what":"failed","conn":"rr",.*"remote":"10.10.0.1:5000".*"connect":"no_route","cause":"no route to 10.10.0.1' ||
	fail "events: the connect that had no route has no line"

# --- the statistics: SYN_SENT rows while it tries, one FAILED row with the reason
grep -q ',conn,B,10.10.0.3:[0-9]*-10.10.0.1:5000,A,timeout,,,SYN_SENT,,connecting: its SYN' "$TMP/st.csv" ||
	fail "stats: no SYN_SENT row while 'timeout' connects"
[ "$(grep -c ',timeout,,,FAILED,,no answer to its SYN' "$TMP/st.csv")" = 1 ] || fail "stats: not one FAILED row for 'timeout'"
[ "$(grep -c ',refused,,,FAILED,,' "$TMP/st.csv")" = 1 ] || fail "stats: not one FAILED row for 'refused'"
head -1 "$TMP/st.csv" | grep -q ',mode,reason,' || fail "stats: no reason column"

# --- the JSON result
"$SMCR_SIM" run -f json $D/refused-timeout.scn >"$TMP/r.json"
python3 - "$TMP/r.json" <<'EOF' || fail "run -f json: connects is wrong"
import json, sys
c = json.load(open(sys.argv[1]))["connects"]
assert (c["attempts"], c["connected"], c["not_connected"]) == (4, 0, 4), c
out = {x["conn"]: x["outcome"] for x in c["not_connected_list"]}
assert out == {"refused": "refused", "timeout": "syn_timeout", "routed": "syn_timeout", "pending": "pending"}, out
p = [x for x in c["not_connected_list"] if x["conn"] == "pending"][0]
assert p["ended_ns"] is None and p["started_ns"] == 100000000000, p
EOF
if [ -x tools/validate-json ] && python3 -c 'import jsonschema' 2>/dev/null; then
	tools/validate-json run "$TMP/r.json" || fail "run -f json: not valid against run.schema.json"
	tools/validate-json events "$TMP/ev.jsonl" || fail "events: not valid against events.schema.json"
	tools/validate-json stats "$TMP/st.csv" || fail "stats: not valid against stats.schema.json"
fi
echo "connect failures ok"
