# `smcr-sim compare FILE` (sim/compare): the scenario as written beside every app on TCP.
# Each column is what `run` of that scenario measures (the TCP one: the file with smc=no
# on every app, run on its own), the deltas follow from them, the JSON validates, the
# picture has a curve per run and workload, a shipped scenario compares, bad input exits 2.
set -eu
. tests/lib.sh
S=tests/data/app-results.scn
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

"$SMCR_SIM" compare -f json --svg "$TMP/c.svg" "$S" >"$TMP/c.json" || fail "compare exited $?"
"$SMCR_SIM" run --format json "$S" >"$TMP/smcr.json" || fail "run as written failed"
sed -e 's/ smc=no//' -e '/^app /s/$/ smc=no/' "$S" >"$TMP/tcp.scn"
"$SMCR_SIM" run --format json "$TMP/tcp.scn" >"$TMP/tcp.json" 2>/dev/null || true
if python3 -c 'import jsonschema' 2>/dev/null; then
	tools/validate-json compare "$TMP/c.json" || fail "compare JSON does not validate"
fi
python3 - "$TMP/c.json" "$TMP/smcr.json" "$TMP/tcp.json" <<'PY' || fail "compare disagrees with run"
import json, sys
c = json.load(open(sys.argv[1]))
runs = {"smcr": json.load(open(sys.argv[2])), "tcp": json.load(open(sys.argv[3]))}
assert [r["name"] for r in c["runs"]] == ["smcr", "tcp"]
for r in c["runs"]:
    assert r["fingerprint"] == runs[r["name"]]["fingerprint"], (r, runs[r["name"]]["fingerprint"])
    assert r["expectations_failed"] == runs[r["name"]]["expectations_failed"]
assert c["runs"][1]["expectations_failed"] >= 1  # crr's p50 > 20us holds only with the CLC handshake
names = [w["app"] for w in c["workloads"]]
assert names == ["rr", "tcp", "crr", "slow", "timed", "bulk", "tbulk"], names
def delta(s, t):
    return None if not t else (s - t) * 10**6 // t if s >= t else -((t - s) * 10**6 // t)
for w in c["workloads"]:
    for side in ("smcr", "tcp"):
        a = {x["name"]: x for x in runs[side]["applications"]}[w["app"]]
        v = w[side]
        assert v["ops"] == a["ops"] and v["conns"] == a["conns"] and v["completed"] == a["completed"], (w["app"], side)
        assert v["throughput_bps"] == a["throughput_bps"] and v["ops_per_s_milli"] == a["ops_per_s_milli"]
        assert v["latency"] == a["latency"], (w["app"], side, v["latency"], a["latency"])
        assert v["cpu_client_ns"] is None and v["cpu_server_ns"] is None  # hosts without costs
    assert w["tcp"]["smcr_conns"] == 0
    s, t = w["smcr"], w["tcp"]
    if w["kind"] in ("rr", "crr"):
        assert w["cpu_per"] == "txn"
        for k, key in (("latency_mean", "mean_ns"), ("latency_p50", "p50_ns"), ("latency_p99", "p99_ns")):
            assert w["delta_ppm"][k] == delta(s["latency"][key], t["latency"][key]), (w["app"], k)
        assert w["delta_ppm"]["ops_per_s"] == delta(s["ops_per_s_milli"], t["ops_per_s_milli"])
    else:
        assert w["cpu_per"] == "MiB" and w["delta_ppm"]["latency_mean"] is None
    assert w["delta_ppm"]["throughput"] == delta(s["throughput_bps"], t["throughput_bps"]), w["app"]
    assert w["delta_ppm"]["cpu_client"] is None
rr = c["workloads"][0]
assert rr["smcr"]["smcr_conns"] == 1 and c["workloads"][1]["smcr"]["smcr_conns"] == 0
assert c["workloads"][2]["smcr"]["smcr_conns"] == 100
# every workload of app-results.scn runs on stacks A and B: each counts them all
n = len(c["workloads"])
assert all(w["client_workloads"] == n and w["server_workloads"] == n for w in c["workloads"]), n
PY

# the table: a header, the rows of each workload, values as run prints them
"$SMCR_SIM" compare "$S" >"$TMP/c.txt"
head -3 "$TMP/c.txt" | grep -q '^TCP:   every app smc=no (fingerprint [0-9a-f]\{16\}, [0-9]* expectations\? failed)$' || fail "no TCP line"
grep -Eq '^workload +SMC-R +TCP +SMC-R/TCP$' "$TMP/c.txt" || fail "no column heads"
mean=$("$SMCR_SIM" run "$S" | sed -n '/^rr: /,/^[a-z]/s/^  latency  min [^ ]* mean \([^ ]*\) .*/\1/p' | head -1)
grep -Eq "^rr +latency mean +$mean +[0-9.]+us +[-+]?[0-9]+\.[0-9]%$" "$TMP/c.txt" || fail "rr latency mean is not $mean: $(grep -m1 'latency mean' "$TMP/c.txt")"
grep -Eq '^bulk +throughput +[0-9.]+ Gbps +[0-9.]+ Gbps +[-+]?[0-9]+\.[0-9]%$' "$TMP/c.txt" || fail "no bulk throughput row"
grep -Eq '^bulk +CPU/MiB server B \* +- +- +-$' "$TMP/c.txt" || fail "no CPU per MiB row (its stack shared: *)"
grep -q '^CPU \*: the stack also runs other workloads of the scenario' "$TMP/c.txt" || fail "no note on shared stacks"
grep -q '(0 of 1 connection on SMC-R as written)' "$TMP/c.txt" || fail "the smc=no app is not marked"
grep -q '^CPU "-": the stack.s host counts no CPU time (profile none).$' "$TMP/c.txt" || fail "no CPU note"

# the picture: one curve per run of every transactional workload, bars for the others
n_tx=5
[ "$(grep -c '<polyline[^>]*class="smcr"' "$TMP/c.svg")" = "$n_tx" ] || fail "SMC-R curves: $(grep -c 'class="smcr"' "$TMP/c.svg")"
[ "$(grep -c '<polyline[^>]*class="tcp"' "$TMP/c.svg")" = "$n_tx" ] || fail "TCP curves"
[ "$(grep -c '<rect[^>]*class="bar-smcr"' "$TMP/c.svg")" -ge 3 ] || fail "no throughput bars (legend and two workloads)"
grep -q '<title>SMC-R beside TCP: tests/data/app-results.scn (seed 1)</title>' "$TMP/c.svg" || fail "no title"
"$SMCR_SIM" compare --svg "$TMP/d.svg" "$S" >/dev/null
cmp -s "$TMP/c.svg" "$TMP/d.svg" || fail "the picture differs between two runs"

# a shipped scenario
"$SMCR_SIM" compare -f json scenarios/two-stacks.scn >"$TMP/two.json" || fail "two-stacks.scn"
python3 -c "
import json,sys; c=json.load(open('$TMP/two.json'))
assert [w['app'] for w in c['workloads']] == ['bulk', 'ping', 'rr', 'plain'], c['workloads']
assert all(w['tcp']['completed'] == w['tcp']['conns'] == 1 for w in c['workloads'])
assert c['workloads'][2]['smcr']['latency']['count'] == 1000" || fail "two-stacks.scn compare"

# bad input
expect_exit 2 "$SMCR_SIM" compare
expect_exit 2 "$SMCR_SIM" compare -f yaml "$S"
expect_exit 2 "$SMCR_SIM" compare "$S" "$S"
expect_stderr 'tests/data/bad-results.scn:12:40: duration= replaces count=' "$SMCR_SIM" compare tests/data/bad-results.scn
expect_exit 2 "$SMCR_SIM" compare --svg /nonexistent/dir/x.svg "$S"
echo "compare ok"

# with the hosts' costs (docs/hosts.md): CPU per transaction on both sides, SMC-R's latency lower
"$SMCR_SIM" compare -f json --set N=50 bench/hosts/qperf-lat.scn >"$TMP/q.json" || fail "compare of qperf-lat exited $?"
python3 - "$TMP/q.json" <<'PY' || fail "compare with host costs: no CPU figures, or SMC-R's not lower"
import json, sys
w = json.load(open(sys.argv[1]))["workloads"][0]
s, t = w["smcr"], w["tcp"]
for side in (s, t):
    assert side["cpu_client_ns"] and side["cpu_server_ns"], side
assert s["latency"]["mean_ns"] < t["latency"]["mean_ns"] and w["delta_ppm"]["latency_mean"] < 0
assert w["delta_ppm"]["cpu_client"] is not None
PY
