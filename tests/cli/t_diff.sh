# `smcr-sim diff A B`: two runs' JSON results or two JSON reports, compared by identity.
# Equal documents exit 0 and print nothing; a run whose second link does not come back
# (the restore moved too early) differs where it must, by stack, link group and link id;
# one extra connection is "only in"; bad or unlike input exits 2.
set -eu
. tests/lib.sh

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
"$SMCR_SIM" run --format json scenarios/two-stacks.scn >"$TMP/a.json"
"$SMCR_SIM" run --format json scenarios/two-stacks.scn >"$TMP/a2.json"
out=$("$SMCR_SIM" diff "$TMP/a.json" "$TMP/a2.json") || fail "the same run twice differs: $out"
[ -z "$out" ] || fail "equal runs printed '$out'"
# '-' is standard input, for either side
"$SMCR_SIM" diff - "$TMP/a.json" <"$TMP/a2.json" || fail "diff - A: not equal"
"$SMCR_SIM" run --format json scenarios/two-stacks.scn | "$SMCR_SIM" diff "$TMP/a.json" - || fail "diff A -: not equal"

# another seed: the system ids and the fingerprint differ, and nothing is matched by position
"$SMCR_SIM" run --format json --seed 2 scenarios/two-stacks.scn >"$TMP/b.json"
set +e; "$SMCR_SIM" diff "$TMP/a.json" "$TMP/b.json" >"$TMP/ab"; rc=$?; set -e
[ "$rc" = 1 ] || fail "different runs exited $rc, expected 1"
grep -qx 'seed: 1 -> 2 (+1)' "$TMP/ab" || fail "no seed line: $(cat "$TMP/ab")"
grep -q '^fingerprint: [0-9a-f]* -> [0-9a-f]*$' "$TMP/ab" || fail "no fingerprint line"
grep -q '^report timeline at 1s / stack LNXA / link group 0x00000100 / peer_system_id: ' "$TMP/ab" ||
	fail "the link group's peer system id is not named by stack and link group id"
grep -Eq '^[0-9]+ differences between ' "$TMP/ab" || fail "no count line"
# --ignore takes members out, -q prints nothing
"$SMCR_SIM" diff -q --ignore system_id --ignore peer_system_id --ignore fingerprint --ignore seed \
	"$TMP/a.json" "$TMP/b.json" || fail "--ignore left differences"
out=$("$SMCR_SIM" diff -q "$TMP/a.json" "$TMP/b.json" || true)
[ -z "$out" ] || fail "-q printed '$out'"

# the restore of default.scn at 1 s instead of 5 s: the second link never comes back
sed 's/^at 5s restore adapter RA1/at 1s restore adapter RA1/' scenarios/default.scn >"$TMP/early.scn"
cp scenarios/default.scn "$TMP/default.scn"
"$SMCR_SIM" run --format json "$TMP/default.scn" >"$TMP/d0.json"
"$SMCR_SIM" run --format json "$TMP/early.scn" >"$TMP/d1.json" 2>/dev/null || true
set +e; "$SMCR_SIM" diff "$TMP/d0.json" "$TMP/d1.json" >"$TMP/d"; rc=$?; set -e
[ "$rc" = 1 ] || fail "default vs early restore exited $rc"
for want in \
	"'expect links ZOSA ZOSB == 2' at 10s / ok: true -> false" \
	"report end at 20s / stack ZOSA / link group 0x00000100 / type: SYM -> SINGLE" \
	"report end at 20s / stack ZOSA / link group 0x00000100 / link_count: 2 -> 1 (-1)" \
	"report end at 20s / stack ZOSB / link group 0x00000100 / link 0x00000104: only in $TMP/d0.json" \
	"expectations_failed: 0 -> 1 (+1)"; do
	grep -qxF "$want" "$TMP/d" || fail "missing '$want' in: $(cat "$TMP/d")"
done
# the two files' names differ: "file" members would only repeat the "scenario" line
grep -q '/ file: ' "$TMP/d" && fail "file members compared although the scenarios differ"

# connections by 4-tuple: a report in the middle of a transfer has them, one at the end not
"$SMCR_SIM" report --format json --end 400ms scenarios/default.scn >"$TMP/mid.json" 2>/dev/null || true
"$SMCR_SIM" report --format json scenarios/default.scn >"$TMP/end.json"
set +e; "$SMCR_SIM" diff "$TMP/mid.json" "$TMP/end.json" >"$TMP/me"; set -e
grep -Eq "^stack ZOSA / connection 10.1.1.1:[0-9]+ -> 10.1.1.2:5000: only in $TMP/mid.json\$" "$TMP/me" ||
	fail "no connection named by its 4-tuple: $(head -5 "$TMP/me")"
# JSON output
"$SMCR_SIM" diff --format json "$TMP/a.json" "$TMP/b.json" >"$TMP/ab.json" || true
grep -q '"format": "smcr-diff"' "$TMP/ab.json" || fail "--format json: no smcr-diff document"
grep -q '"path": "seed"' "$TMP/ab.json" || fail "--format json: no seed difference"

# bad input
echo '{"a": [1, 2' >"$TMP/bad.json"
expect_exit 2 "$SMCR_SIM" diff "$TMP/bad.json" "$TMP/a.json"
expect_stderr "bad.json:2:1: unexpected end" "$SMCR_SIM" diff "$TMP/bad.json" "$TMP/a.json"
expect_exit 2 "$SMCR_SIM" diff "$TMP/a.json" "$TMP/end.json"
expect_stderr 'is smcr-run, .* is smcr-report; expected two of a kind' "$SMCR_SIM" diff "$TMP/a.json" "$TMP/end.json"
expect_exit 2 "$SMCR_SIM" diff "$TMP/a.json"
expect_exit 2 "$SMCR_SIM" diff - -
expect_exit 2 "$SMCR_SIM" diff "$TMP/a.json" "$TMP/nonexistent.json"
expect_exit 2 "$SMCR_SIM" diff --format xml "$TMP/a.json" "$TMP/a.json"

# --events: where two event streams part
"$SMCR_SIM" run -q --events "$TMP/e1.jsonl" scenarios/default.scn >/dev/null
"$SMCR_SIM" run -q --events "$TMP/e2.jsonl" scenarios/default.scn >/dev/null
"$SMCR_SIM" run -q --events "$TMP/e7.jsonl" --seed 7 scenarios/default.scn >/dev/null
expect_exit 0 "$SMCR_SIM" diff --events "$TMP/e1.jsonl" "$TMP/e2.jsonl"
[ -z "$("$SMCR_SIM" diff --events "$TMP/e1.jsonl" "$TMP/e2.jsonl")" ] || fail "diff --events of equal streams prints something"
expect_exit 1 "$SMCR_SIM" diff --events "$TMP/e1.jsonl" "$TMP/e7.jsonl"
out=$("$SMCR_SIM" diff --events "$TMP/e1.jsonl" "$TMP/e7.jsonl" || true)
echo "$out" | grep -qx 'the streams part at line 1' || fail "diff --events: another seed does not part at the start line: $out"
echo "$out" | grep -qx '  seed: 42 -> 7' || fail "diff --events: the seed is not named"
# past the seed, the first difference is the first CLC Proposal's random peer id
out=$("$SMCR_SIM" diff --events --ignore seed "$TMP/e1.jsonl" "$TMP/e7.jsonl" || true)
echo "$out" | grep -qx 'the streams part at line 2' || fail "diff --events --ignore seed: $out"
echo "$out" | grep -q '^  fields / peer_id: ' || fail "diff --events --ignore seed: the peer id is not the difference: $out"
echo "$out" | grep -q '^after 1 equal line, the last: start' || fail "diff --events: the last shared line is not said"
# a stream cut short parts where it ends
head -100 "$TMP/e1.jsonl" >"$TMP/cut.jsonl"
out=$("$SMCR_SIM" diff --events "$TMP/e1.jsonl" "$TMP/cut.jsonl" || true)
echo "$out" | grep -qx 'the streams part at line 101' || fail "diff --events of a cut stream: $out"
echo "$out" | grep -q 'cut.jsonl: (the stream has ended)' || fail "diff --events: the end of the shorter stream is not said"
# the same one line changed in the middle: found there, and only there
sed '150s/"dir":"out"/"dir":"in"/' "$TMP/e1.jsonl" >"$TMP/e150.jsonl"
cmp -s "$TMP/e1.jsonl" "$TMP/e150.jsonl" && fail "line 150 of the stream is not a message"
out=$("$SMCR_SIM" diff --events "$TMP/e1.jsonl" "$TMP/e150.jsonl" || true)
echo "$out" | grep -qx 'the streams part at line 150' || fail "diff --events: a change at line 150 not found there: $out"
echo "$out" | grep -qx '  dir: out -> in' || fail "diff --events: the changed field is not named"
"$SMCR_SIM" diff --events -f json "$TMP/e1.jsonl" "$TMP/e150.jsonl" >"$TMP/ev.json" || true
grep -q '"format": "smcr-diff-events"' "$TMP/ev.json" || fail "diff --events -f json: no smcr-diff-events document"
grep -q '"equal_lines": 149' "$TMP/ev.json" || fail "diff --events -f json: not 149 equal lines"
expect_exit 1 "$SMCR_SIM" diff --events -q "$TMP/e1.jsonl" "$TMP/e150.jsonl"
[ -z "$("$SMCR_SIM" diff --events -q "$TMP/e1.jsonl" "$TMP/e150.jsonl" || true)" ] || fail "diff --events -q prints"
echo 'not json' >"$TMP/junk.jsonl"
expect_exit 2 "$SMCR_SIM" diff --events "$TMP/e1.jsonl" "$TMP/junk.jsonl"
expect_stderr 'junk.jsonl:1: ' "$SMCR_SIM" diff --events "$TMP/e1.jsonl" "$TMP/junk.jsonl"
# two variants of one scenario: another file name, three lines removed. What the runs did
# is compared; where they came from (scenario, file, line) only with --sources.
grep -v '^# The first TCP\|^# first one creates\|^# adapter carrying' scenarios/default.scn >"$TMP/variant.scn"
[ "$(($(wc -l <scenarios/default.scn) - $(wc -l <"$TMP/variant.scn")))" = 3 ] || fail "the variant does not lack 3 lines"
"$SMCR_SIM" run -f json scenarios/default.scn >"$TMP/v1.json"
"$SMCR_SIM" run -f json "$TMP/variant.scn" >"$TMP/v2.json"
expect_exit 0 "$SMCR_SIM" diff "$TMP/v1.json" "$TMP/v2.json"
[ -z "$("$SMCR_SIM" diff "$TMP/v1.json" "$TMP/v2.json")" ] || fail "diff of two variants: $("$SMCR_SIM" diff "$TMP/v1.json" "$TMP/v2.json")"
out=$("$SMCR_SIM" diff --sources "$TMP/v1.json" "$TMP/v2.json" || true)
echo "$out" | grep -q '^scenario: scenarios/default.scn -> ' || fail "diff --sources: the file name is not compared: $out"
echo "$out" | grep -q "^'expect links ZOSA ZOSB == 2' at 250ms / line: 42 -> 39 (-3)$" || fail "diff --sources: the lines are not compared: $out"
# a variant that changes what happens: the difference, and a line that says what was not compared
sed 's/^at 250ms expect conns ZOSA ZOSB == 5.*$//' scenarios/default.scn >"$TMP/variant2.scn"
"$SMCR_SIM" run -f json "$TMP/variant2.scn" >"$TMP/v3.json"
out=$("$SMCR_SIM" diff "$TMP/v1.json" "$TMP/v3.json" || true)
echo "$out" | grep -qx "'expect conns ZOSA ZOSB == 5' at 250ms: only in $TMP/v1.json" || fail "diff of variants: $out"
echo "$out" | grep -q ' / line: ' && fail "diff of variants compares lines: $out"
echo "$out" | tail -1 | grep -qx '(not compared: scenario, file, line, where the runs came from; --sources compares them)' ||
	fail "diff: does not say what it did not compare: $out"
"$SMCR_SIM" diff -f json "$TMP/v1.json" "$TMP/v3.json" | grep -q '"not_compared"' || fail "diff -f json: no not_compared"
"$SMCR_SIM" run -q --events "$TMP/ev1.jsonl" scenarios/default.scn >/dev/null
"$SMCR_SIM" run -q --events "$TMP/ev2.jsonl" "$TMP/variant.scn" >/dev/null
expect_exit 0 "$SMCR_SIM" diff --events "$TMP/ev1.jsonl" "$TMP/ev2.jsonl"
out=$("$SMCR_SIM" diff --events --sources "$TMP/ev1.jsonl" "$TMP/ev2.jsonl" || true)
echo "$out" | grep -qx 'the streams part at line 1' || fail "diff --events --sources: $out"
echo "diff ok"
