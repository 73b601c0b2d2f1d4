# `smcr-sim check` warns, with FILE:LINE:COLUMN, about an adapter restored too soon after
# its failure for the second link to come back (sim/scenario/scn_warn.h), and the warning
# is right: run, that scenario ends with one link where the shipped one has two. No
# shipped scenario gets a warning; warnings leave the exit status alone.
set -eu
. tests/lib.sh

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
"$SMCR_SIM" check scenarios/*.scn >/dev/null 2>"$TMP/shipped" || fail "check scenarios/*.scn failed"
! grep -q 'warning' "$TMP/shipped" || fail "a shipped scenario has a warning: $(head -3 "$TMP/shipped")"

line=$(grep -n '^at 5s restore adapter RA1' scenarios/default.scn | cut -d: -f1)
[ -n "$line" ] || fail "scenarios/default.scn no longer restores RA1 at 5s"
sed 's/^at 5s restore adapter RA1/at 1s restore adapter RA1/' scenarios/default.scn >"$TMP/early.scn"
"$SMCR_SIM" check "$TMP/early.scn" >/dev/null 2>"$TMP/warn" || fail "check exited $? on a scenario with a warning"
grep -q "^$TMP/early.scn:$line:1: warning: restore adapter 'RA1' at 1s comes 700ms after its failure at 300ms" "$TMP/warn" ||
	fail "no early-restore warning: $(cat "$TMP/warn")"
grep -q 'restore at 1400ms or later' "$TMP/warn" || fail "the warning does not say when: $(cat "$TMP/warn")"
# what it warns about happens
"$SMCR_SIM" run -f json "$TMP/early.scn" >"$TMP/early.json" 2>/dev/null && fail "the early restore's run met every expectation"
grep -q '"expect": "expect links ZOSA ZOSB == 2"' "$TMP/early.json" || fail "no link expectation in the run"
# ... and from the suggested time on it does not
sed 's/^at 5s restore adapter RA1/at 1400ms restore adapter RA1/' scenarios/default.scn >"$TMP/late.scn"
"$SMCR_SIM" check "$TMP/late.scn" >/dev/null 2>"$TMP/late.warn"
[ ! -s "$TMP/late.warn" ] || fail "a warning at 1.4s: $(cat "$TMP/late.warn")"
"$SMCR_SIM" run "$TMP/late.scn" >/dev/null 2>&1 || fail "restored at 1.4s, the run failed an expectation"
echo "check warnings ok"
