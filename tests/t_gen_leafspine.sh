# tools/gen-leafspine writes scaling scenarios that the parser accepts, with the stacks,
# apps and structure asked for, the same for the same arguments, and a small one runs
# with every connection on SMC-R.
set -eu
. tests/lib.sh

gen=tools/gen-leafspine
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

expect_exit 2 "$gen"
expect_exit 2 "$gen" stacks 7
expect_exit 2 "$gen" stacks 10 5
expect_exit 2 "$gen" idle 0
expect_exit 2 "$gen" bogus 3

"$gen" stacks 90 1ms >"$tmp/s.scn"
out=$("$SMCR_SIM" check "$tmp/s.scn")
echo "$out" | grep -q '(90 stacks, 90 apps' || fail "stacks 90: $out"
[ "$(grep -c '^switch LEAF' "$tmp/s.scn")" = 3 ] || fail "90 stacks should take 3 leaves"
grep -q 'app bulk90 N90 connect N89:5000 kind=bulk bytes=1M start=44ms' "$tmp/s.scn" ||
	fail "the last sender should start 44 ms in"
"$gen" stacks 90 1ms | cmp -s - "$tmp/s.scn" || fail "same arguments, different output"

"$gen" idle 28001 >"$tmp/i.scn"
out=$("$SMCR_SIM" check "$tmp/i.scn")
echo "$out" | grep -q '(2 stacks, 4 apps' || fail "idle 28001 should open both ways: $out"

"$gen" stacks 8 >"$tmp/small.scn"
printf 'expect mode bulk2 == SMCR\nexpect mode bulk8 == SMCR\nexpect received sink7 == 1M\n' >>"$tmp/small.scn"
"$SMCR_SIM" run "$tmp/small.scn" >"$tmp/out" || fail "the small leaf-spine run failed: $(cat "$tmp/out")"
"$gen" idle 40 >"$tmp/idle.scn"
printf 'expect conns A B == 40\nexpect mode cli == SMCR\n' >>"$tmp/idle.scn"
"$SMCR_SIM" run "$tmp/idle.scn" >"$tmp/out" || fail "the small idle run failed: $(cat "$tmp/out")"
echo "gen-leafspine ok"
