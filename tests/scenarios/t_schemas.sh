# Every machine-readable output validates against its JSON Schema (docs/schema/, checked by
# tools/validate-json): the run result, the final report, the event stream and the
# statistics (CSV and JSON Lines) of every shipped scenario, replay's JSON and its
# --messages JSON of every trace. The schemas document every field once: each property
# has a description. And the validator is not a no-op: a document with an unknown key,
# a misspelt value or a wrong type fails.
# slow test: about 12 s
set -eu
. tests/lib.sh
python3 -c 'import jsonschema' 2>/dev/null || { echo "python3-jsonschema is not installed (tools/install-deps)"; exit 77; }
V=tools/validate-json
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# every property described, every schema valid and loaded
python3 - docs/schema <<'PY' || fail "a schema property without a description"
import json, os, sys
d = sys.argv[1]
bad = []
def walk(node, path):
    if isinstance(node, dict):
        for k, v in node.get("properties", {}).items():
            if isinstance(v, dict) and "description" not in v and "$ref" not in v:
                bad.append("%s/%s" % (path, k))
        for k, v in node.items():
            if k != "if":  # a condition names properties, it does not define them
                walk(v, path + "/" + k)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            walk(v, "%s/%d" % (path, i))
for f in sorted(os.listdir(d)):
    s = json.load(open(os.path.join(d, f)))
    assert s.get("$schema", "").startswith("https://json-schema.org/draft/2020-12"), f
    walk(s, f)
for b in bad:
    print("no description:", b)
sys.exit(1 if bad else 0)
PY

# what is validated: SCHEMA FILE lines, checked at the end in one validator process
L=$TMP/list
n=0
for f in scenarios/*.scn; do
	case "$f" in scenarios/realhw-*) continue ;; esac
	grep -q '^# heavy:' "$f" && continue
	b=$(basename "$f" .scn)
	# CDC sampled and statistics every second keep the check short; every kind of line stays
	"$SMCR_SIM" run --format json --events "$TMP/$b.ev.jsonl" --events-cdc every=100 --stats "$TMP/$b.st.csv" \
		--stats-interval 1s "$f" >"$TMP/$b.run.json" 2>/dev/null || true
	"$SMCR_SIM" report --format json "$f" >"$TMP/$b.report.json" 2>/dev/null || true
	{ echo "run $TMP/$b.run.json"; echo "report $TMP/$b.report.json"
	  echo "events $TMP/$b.ev.jsonl"; echo "stats $TMP/$b.st.csv"; } >>"$L"
	head -1 "$TMP/$b.ev.jsonl" | grep -q '"kind":"start"' || fail "$f: the event stream does not start with its start line"
	tail -1 "$TMP/$b.ev.jsonl" | grep -q '"kind":"end"' || fail "$f: the event stream does not end with its end line"
	n=$((n + 1))
done
[ "$n" -ge 15 ] || fail "only $n scenarios checked"

# the default scenario in full: every CDC message, statistics as JSON Lines every 100 ms
"$SMCR_SIM" run --events "$TMP/all.jsonl" --stats "$TMP/st.jsonl" scenarios/default.scn >/dev/null
{ echo "events $TMP/all.jsonl"; echo "stats $TMP/st.jsonl"; } >>"$L"
for k in start clc llc cdc link lgr conn timeline expect end; do
	grep -q "\"kind\":\"$k\"" "$TMP/all.jsonl" || fail "default.scn: no $k event"
done

t=0
for tr in traces/*.pcap*; do
	b=$(basename "$tr")
	"$SMCR_SIM" replay --format json "$tr" >"$TMP/$b.json" 2>/dev/null || true
	"$SMCR_SIM" replay --messages --format json "$tr" >"$TMP/$b.msgs.json" 2>/dev/null || true
	{ echo "replay $TMP/$b.json"; echo "replay-messages $TMP/$b.msgs.json"; } >>"$L"
	t=$((t + 1))
done
[ "$t" -ge 4 ] || fail "only $t traces checked"
$V --list "$L" || fail "outputs that do not validate (files above: SCENARIO.run.json is run --format json, .report.json report --format json, .ev.jsonl the event stream, .st.csv the statistics; TRACE.json replay --format json, .msgs.json replay --messages --format json)"

# the validator catches what is wrong
sed 's/"dir":"out"/"dir":"sideways"/' "$TMP/default.ev.jsonl" >"$TMP/bad.jsonl"
expect_exit 1 $V events "$TMP/bad.jsonl"
# a line like many valid ones before it but for a value out of bounds (the validator
# remembers the shapes of valid lines, never a line's values)
sed '20s/"time_ns":[0-9]*/"time_ns":-1/' "$TMP/all.jsonl" >"$TMP/bad.jsonl"
expect_exit 1 $V events "$TMP/all.jsonl" "$TMP/bad.jsonl"
sed 's/"engine_events"/"events"/' "$TMP/default.run.json" >"$TMP/bad.json"
expect_exit 1 $V run "$TMP/bad.json"
sed '2s/,ZOSA,ZOSA,/,ZOSA,ZOSA,x,/' "$TMP/default.st.csv" >"$TMP/bad.csv"
expect_exit 1 $V stats "$TMP/bad.csv"
sed 's/"state": "LINK_ACTIVE"/"state": "UP"/' "$TMP/default.report.json" >"$TMP/bad.json"
expect_exit 1 $V report "$TMP/bad.json"
expect_exit 2 $V nosuchschema "$TMP/bad.json"
echo "schemas ok: $n scenarios, $t traces"
