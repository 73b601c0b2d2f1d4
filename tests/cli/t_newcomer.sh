# The small things a first hour with smcr-sim runs into (issue 33, point 9): counts read
# "1 stack", "1 event", "1 point"; a scenario with nothing to simulate is an error, not a
# silent exit 0; check --defaults says a Linux stack's RoCE MAC is generated per stack, as
# the run does; smcr-sim --help and run --help show examples and say where the sample
# scenarios are.
set -eu
. tests/lib.sh
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# plurals: one of each
cat >"$TMP/one.scn" <<'S'
end 1s
switch SW
stack A
  interface eth0 switch=SW ip=10.0.0.1/24
end
stack B
  interface eth0 switch=SW ip=10.0.0.2/24
end
app s B listen port=1 kind=sink smc=no
app c A connect B:1 kind=bulk bytes=1K smc=no
at 500ms report
expect sent c == 1K
S
"$SMCR_SIM" check "$TMP/one.scn" | grep -q ': ok (2 stacks, 2 apps, 1 event, 1 expectation)$' ||
	fail "check: $("$SMCR_SIM" check "$TMP/one.scn")"
"$SMCR_SIM" run "$TMP/one.scn" | grep -q ': 1 expectation met, 0 failed; ' || fail "run: not '1 expectation'"
"$SMCR_SIM" sweep tests/data/sweep/redundant-pair.scn --seeds 1 --set PATHS=1,2 --out "$TMP/sw.jsonl" -q >"$TMP/sw" 2>&1 || true
grep -q '^  PATHS=1 *1 point  *0 passed' "$TMP/sw" || fail "sweep: not '1 point': $(grep PATHS=1 "$TMP/sw")"
# a fabric without a stack is valid (it checks switch buffers) but says it runs no connection
printf 'switch SW\n' >"$TMP/fabric.scn"
expect_exit 0 "$SMCR_SIM" check "$TMP/fabric.scn"
expect_stderr 'fabric.scn: warning: no stack: the run simulates the fabric alone and no connection' "$SMCR_SIM" check "$TMP/fabric.scn"
expect_stderr 'fabric.scn: warning: no stack: ' "$SMCR_SIM" run "$TMP/fabric.scn"

# nothing to simulate: an error, exit 2, saying so
: >"$TMP/empty.scn"
expect_exit 2 "$SMCR_SIM" run "$TMP/empty.scn"
expect_stderr 'empty.scn: no stack: nothing to simulate; expected at least one `stack NAME` block' "$SMCR_SIM" run "$TMP/empty.scn"
expect_exit 2 "$SMCR_SIM" check "$TMP/empty.scn"

# the defaults say what the run does: a VF with its own VMAC per stack, both personalities
"$SMCR_SIM" check --defaults | grep -q '^stack  *vmac  *generated per stack and PFID  *generated per stack and PFID ' ||
	fail "check --defaults: $("$SMCR_SIM" check --defaults | grep vmac)"

# examples and the sample scenarios in both --helps
"$SMCR_SIM" --help >"$TMP/h"
grep -q '^Examples:$' "$TMP/h" || fail "smcr-sim --help: no examples"
grep -q '^  smcr-sim run -v scenarios/default.scn ' "$TMP/h" || fail "smcr-sim --help: no run example"
grep -q "^Sample scenarios: scenarios/\*.scn in the source tree, .*/smcr-sim/scenarios/\*.scn once" "$TMP/h" ||
	fail "smcr-sim --help: does not say where the sample scenarios are"
"$SMCR_SIM" run --help >"$TMP/r"
grep -q '^  smcr-sim run -v scenarios/two-stacks.scn$' "$TMP/r" || fail "run --help: no example"
grep -q '^The sample scenarios are in scenarios/ of the source tree and in .*/smcr-sim/scenarios once installed.$' "$TMP/r" ||
	fail "run --help: does not say where the sample scenarios are"
# the examples run as written
"$SMCR_SIM" run -v scenarios/two-stacks.scn >/dev/null || fail "run --help's example fails"
echo "newcomer ok"
