# `smcr-sim check`: every shipped scenario is valid; broken files exit 2 with every error
# located as FILE:LINE:COLUMN.
set -eu
. tests/lib.sh

out=$("$SMCR_SIM" check scenarios/*.scn)
n=$(ls scenarios/*.scn | wc -l)
[ "$(echo "$out" | grep -c ': ok (')" = "$n" ] || fail "not every scenario is ok: $out"
echo "$out" | grep -q '^scenarios/default.scn: ok (2 stacks, 2 apps, [0-9]* events, [0-9]* expectations)$' \
	|| fail "default.scn summary: $out"

"$SMCR_SIM" check --help | grep -q -- '--dump'
expect_exit 2 "$SMCR_SIM" check
expect_exit 2 "$SMCR_SIM" check --no-such-option
expect_exit 2 "$SMCR_SIM" check /nonexistent.scn
expect_stderr '/nonexistent.scn:0:0: cannot read the file' "$SMCR_SIM" check /nonexistent.scn

# one bad file among good ones: exit 2, the good ones still say ok
set +e
"$SMCR_SIM" check scenarios/two-stacks.scn tests/data/bad-missing-end.scn >"$BUILD/check.out" 2>"$BUILD/check.err"
rc=$?
set -e
[ "$rc" = 2 ] || fail "a bad file exited $rc"
grep -q 'two-stacks.scn: ok' "$BUILD/check.out" || fail "good file not reported ok"
grep -qx "tests/data/bad-missing-end.scn:3:1: the block of stack 'A' is not closed; expected 'end' before the end of the file" \
	"$BUILD/check.err" || fail "missing-end message: $(cat "$BUILD/check.err")"

# every error of a file, in file order
set +e
err=$("$SMCR_SIM" check tests/data/bad-references.scn 2>&1 >/dev/null)
set -e
expected="tests/data/bad-references.scn:8:3: no adapter has PFID 0019 (0018 (RA)); expected the pfid= of an adapter
tests/data/bad-references.scn:11:25: 'RA' is an adapter, not a switch; expected the name of a switch (defined: SW1)
tests/data/bad-references.scn:14:19: unknown stack 'C'; expected the name of a stack (defined: A, B)
tests/data/bad-references.scn:15:1: time 6s is not before the run's end (end 5s at 3:1); expected an earlier time"
[ "$err" = "$expected" ] || fail "bad-references said:
$err"

set +e
err=$("$SMCR_SIM" check tests/data/bad-values.scn 2>&1 >/dev/null)
rc=$?
set -e
[ "$rc" = 2 ] || fail "bad-values exited $rc"
[ "$(echo "$err" | wc -l)" = 4 ] || fail "bad-values: expected 4 errors, got: $err"
echo "$err" | grep -qx "tests/data/bad-values.scn:2:18: bad VLAN list '10,5000' for vlans; expected VLAN ids 1..4094"
echo "$err" | grep -q "^tests/data/bad-values.scn:3:43: bad rate 'fast' for bandwidth; "
echo "$err" | grep -q "^tests/data/bad-values.scn:5:48: bad MAC address '02:00:00:00:00' for mac; "
echo "$err" | grep -qx "tests/data/bad-values.scn:6:17: maxconns=8 is out of range; expected 16..255"

# --dump prints a canonical scenario that checks again to the same text
"$SMCR_SIM" check --dump scenarios/default.scn >"$BUILD/dump1.scn" 2>/dev/null
"$SMCR_SIM" check --dump "$BUILD/dump1.scn" >"$BUILD/dump2.scn" 2>/dev/null
cmp "$BUILD/dump1.scn" "$BUILD/dump2.scn" || fail "dump is not stable"
"$SMCR_SIM" check --defaults | grep -q '^smcr        fixedmemory  256M'
echo "scenarios check ok"
