# Application results in every output (docs/outputs.md): a real run of
# tests/data/app-results.scn meets its result expectations and fails one made too tight,
# with what it measured; the JSON result, the event stream and the statistics carry the
# results and validate; the figures agree between the outputs and with each other (SMC-R's
# connect time holds the CLC handshake, TCP's does not); the text shows them, -v per
# connection; broken kinds and expectations are refused at FILE:LINE:COLUMN.
set -eu
. tests/lib.sh
S=tests/data/app-results.scn
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

"$SMCR_SIM" run "$S" >"$TMP/text" || fail "app-results.scn: $(grep 'expectation failed' "$TMP/text")"
grep -q '^tests/data/app-results.scn: 16 expectations met, 0 failed' "$TMP/text" || fail "not 16 met: $(tail -3 "$TMP/text")"
grep -q '^==== application results (host times; percentiles within 1/128) ====$' "$TMP/text" || fail "no results section"
grep -q '^rr: rr A -> B:5000, 1 of 1 connection completed, 0 failed$' "$TMP/text" || fail "no rr heading"
grep -q '^crr: crr A -> B:5000, 100 of 100 connections completed, 0 failed$' "$TMP/text" || fail "no crr heading"
grep -Eq '^  latency  min [0-9.]+us mean [0-9.]+us p50 [0-9.]+us p90 [0-9.]+us p99 [0-9.]+us p99.9 [0-9.]+us max [0-9.]+us \(1000\)$' \
	"$TMP/text" || fail "no latency line of 1000 transactions"
grep -q '^==== hosts (CPU time) ====$' "$TMP/text" || fail "no hosts section"
grep -q '^A: profile none, 1 CPU, ' "$TMP/text" || fail "no host line for A"
"$SMCR_SIM" run -v "$S" | grep -Eq '^  crr\.4: 1 op, connect [0-9.]+us, fct [0-9.]+us, ' || fail "-v: no line per connection"

# too tight: fails with the measured statistic, exit 1
set +e
out=$("$SMCR_SIM" run --set P99=1us "$S" 2>&1)
rc=$?
set -e
[ "$rc" = 1 ] || fail "a failed latency expectation exited $rc"
echo "$out" | grep -Eq '^tests/data/app-results.scn:28: expectation failed: expect latency rr p99 < 1us \(measured p99 [0-9.]+us of 1000\)$' \
	|| fail "no failure with the measured p99: $(echo "$out" | grep failed)"

# JSON, events and statistics: valid, and the same figures
"$SMCR_SIM" run --format json --events "$TMP/ev.jsonl" --stats "$TMP/st.csv" --stats-interval 1ms "$S" >"$TMP/run.json"
if python3 -c 'import jsonschema' 2>/dev/null; then
	tools/validate-json run "$TMP/run.json" || fail "run JSON does not validate"
	tools/validate-json events "$TMP/ev.jsonl" || fail "events do not validate"
	tools/validate-json stats "$TMP/st.csv" || fail "stats do not validate"
fi
python3 - "$TMP/run.json" "$TMP/ev.jsonl" "$TMP/st.csv" <<'PY' || fail "the results disagree"
import csv, json, sys
run = json.load(open(sys.argv[1]))
ev = [json.loads(l) for l in open(sys.argv[2])]
st = list(csv.DictReader(open(sys.argv[3])))
apps = {a["name"]: a for a in run["applications"]}
rr, tcp, crr, bulk = apps["rr"], apps["tcp"], apps["crr"], apps["bulk"]
assert rr["ops"] == 1000 and rr["latency"]["count"] == 1000, rr
c = rr["connections"][0]
# one connection: its transactions fill it from usable to done
assert c["fct_ns"] >= c["connect_ns"] + 1000 * rr["latency"]["min_ns"], c
assert c["fct_ns"] <= c["connect_ns"] + 1000 * rr["latency"]["max_ns"], c
assert rr["latency"]["min_ns"] <= rr["latency"]["p50_ns"] <= rr["latency"]["p99_ns"] <= rr["latency"]["max_ns"]
# SMC-R's connect holds the CLC handshake: longer than TCP's alone
assert rr["connect"]["min_ns"] > tcp["connect"]["max_ns"], (rr["connect"], tcp["connect"])
assert crr["ops"] == 100 and len(crr["connections"]) == 100 and crr["conns"] == 100
for k in crr["connections"]:
    assert k["ops"] == 1 and k["latency"]["max_ns"] == k["fct_ns"] > k["connect_ns"], k
assert bulk["bytes_sent"] == 8 << 20 and bulk["bytes_received"] == 0
span = bulk["connections"][0]["fct_ns"] - bulk["connections"][0]["connect_ns"]
assert abs(bulk["throughput_bps"] - (8 << 20) * 8 * 10**9 // span) <= 1, (bulk["throughput_bps"], span)
assert apps["sink"]["bytes_received"] == (8 << 20) + apps["tbulk"]["bytes_sent"]
hosts = {h["stack"]: h for h in run["hosts"]}
assert hosts["A"]["transactions"] == sum(apps[n]["ops"] for n in ("rr", "tcp", "crr", "slow", "timed")), hosts["A"]
assert hosts["B"]["transactions"] == apps["resp"]["ops"] + apps["tresp"]["ops"]
assert hosts["A"]["profile"] == "none" and hosts["A"]["busy_total_ns"] == 0
# the event stream: a result per connection when it ends, one per app at the end
res = [e for e in ev if e["kind"] == "result"]
conn = [e for e in res if e["what"] == "conn"]
assert len(conn) == sum(a["conns"] for a in run["applications"] if a["role"] == "connect"), len(conn)
byapp = {e["app"]: e for e in res if e["what"] == "app"}
assert list(byapp) == [a["name"] for a in run["applications"]]
for n, a in apps.items():
    for k in ("ops", "bytes_sent", "bytes_received", "throughput_bps", "latency", "connect", "fct"):
        assert byapp[n][k] == a[k], (n, k, byapp[n][k], a[k])
rrc = [e for e in conn if e["conn"] == "rr"][0]
assert rrc["latency"] == rr["latency"] and rrc["time_ns"] >= c["fct_ns"]
assert ev[-1]["kind"] == "end"
# the statistics: CPU columns on stack rows, operations and latency on connection rows
assert {"cpu_app_ns", "cpu_tcpip_ns", "cpu_smcr_ns", "cpu_irq_ns", "cpu_queued", "cpu_wait_ns", "app_ops",
        "latency_p50_ns", "latency_p99_ns"} <= set(st[0])
assert all(r["cpu_tcpip_ns"] == "0" for r in st if r["object"] == "stack")
rows = [r for r in st if r["object"] == "conn" and r["app"] == "rr" and r["stack"] == "A"]
# a sample taken while the connect is still under way has no application figures yet
assert all(r["state"] != "ESTABLISHED" for r in rows if r["app_ops"] == ""), rows[:2]
rows = [r for r in rows if r["app_ops"] != ""]
ops = [int(r["app_ops"]) for r in rows]
assert len(ops) >= 5 and ops == sorted(ops) and 0 < ops[-1] < 1000, ops
assert all(rr["latency"]["min_ns"] <= int(r["latency_p50_ns"]) <= rr["latency"]["max_ns"] for r in rows if r["app_ops"] != "0")
PY

# broken kinds and expectations: every error located
set +e
err=$("$SMCR_SIM" check tests/data/bad-results.scn 2>&1 >/dev/null)
rc=$?
set -e
[ "$rc" = 2 ] || fail "bad-results exited $rc"
B=tests/data/bad-results.scn
for want in \
	"$B:12:40: duration= replaces count= (given at 12:31); expected one of them" \
	"$B:13:33: kind=crr closes each connection after its transaction; expected close=after" \
	"$B:14:35: attribute 'think' does not apply to kind=bulk; expected it only with kind=rr or kind=crr" \
	"$B:16:19: unknown statistic 'p95'; expected min, mean, p50, p90, p99, p99.9 or max" \
	"$B:17:16: app 'sink' (kind=sink) has no transactions; expected an app of kind rr, crr or responder" \
	"$B:18:14: unknown CPU category 'disk'; expected app, tcpip, smcr or irq" \
	"$B:19:18: bad value 'fast' for per; expected txn, MiB, util or busiest" \
	"$B:22:15: too few words before '<'; expected expect fct APP min|mean|p50|p90|p99|p99.9|max OP DURATION" \
	"$B:23:29: unexpected word 'extra'; expected expect connect APP min|mean|p50|p90|p99|p99.9|max OP DURATION"; do
	echo "$err" | grep -qxF "$want" || fail "missing: $want (got: $err)"
done
echo "$err" | grep -q "^$B:20:25: bad ratio '1ms' for the expected ratio; " || fail "util with a duration: $err"
echo "$err" | grep -q "^$B:21:24: bad rate 'fast' for the expected rate; " || fail "a bad rate: $err"
[ "$(echo "$err" | wc -l)" = 11 ] || fail "expected 11 errors: $err"

# --dump writes the new attributes back the way they parse
"$SMCR_SIM" check --dump "$S" >"$TMP/dump.scn"
grep -q '^app crr A connect B:5000 kind=crr request=64 response=1K count=25 conns=4 ' "$TMP/dump.scn" || fail "dump: crr"
grep -q ' kind=rr request=64 response=64 count=10 think=1ms ' "$TMP/dump.scn" || fail "dump: think"
grep -q ' kind=bulk duration=1ms ' "$TMP/dump.scn" || fail "dump: duration"
"$SMCR_SIM" check "$TMP/dump.scn" >/dev/null || fail "the dump does not check"
echo "app results ok"
