# bench scale at smoke size: the growth series at 100 and 200 stacks and 2,000
# connections idle for 10 s, every expectation met; its stack world is scale-10k.scn's
# (the same fingerprint as running the file at that size); bad sizes are refused.
set -eu
. tests/lib.sh

expect_exit 2 "$SMCR_SIM" bench scale --stacks 101
expect_exit 2 "$SMCR_SIM" bench scale --stacks 1000,x
expect_exit 2 "$SMCR_SIM" bench scale --conns 1500
expect_exit 2 "$SMCR_SIM" bench scale --idle 10parsecs
expect_exit 2 "$SMCR_SIM" bench scale extra-argument
out=$("$SMCR_SIM" bench scale --stacks 100,200 --conns 2000 --idle 10s) || fail "bench scale failed: $out"
echo "$out" | grep -q '^ *100 .* 151 of 151 met' || fail "100 stacks not all met: $out"
echo "$out" | grep -q '^ *200 .* 301 of 301 met' || fail "200 stacks not all met: $out"
echo "$out" | grep -q 'growth: wall ~ stacks^' || fail "no growth exponent: $out"
echo "$out" | grep -q 'establish .* 2000 of 2000 on SMC-R' || fail "connections not all on SMC-R: $out"
echo "$out" | grep -q 'expectations *all met' || fail "connection world's expectations failed: $out"
# the idle connection's bytes by owner: TCP's and SMC-R's counted from their objects, each
# present, and together not more than the heap grew (other is what is left, never below 0)
tcp=$(echo "$out" | sed -n 's/^ *TCP state *\([0-9]*\) .*/\1/p')
smcr=$(echo "$out" | sed -n 's/^ *SMC-R *\([0-9]*\) .*/\1/p')
# (a sanitizer's allocator hides the heap from mallinfo2: other is then unknown, '?')
other=$(echo "$out" | sed -n 's/^ *other *\(-*[0-9]*\) .*/\1/p')
[ -n "$tcp" ] && [ "$tcp" -gt 1000 ] || fail "no TCP part of the idle connection: $out"
[ -n "$smcr" ] && [ "$smcr" -gt 1000 ] || fail "no SMC-R part of the idle connection: $out"
if echo "$out" | grep -q '^ *other *? '; then :; else
	[ -n "$other" ] && [ "$other" -ge 0 ] || fail "the parts count more than the heap grew: $out"
fi
echo "$out" | grep -q 'target: <= 4 KiB per idle connection beyond TCP state: [a-z]* (SMC-R [0-9]* bytes' ||
	fail "4 KiB target not judged on the SMC-R part: $out"
fp=$(echo "$out" | sed -n 's/^ *200 .*fingerprint \([0-9a-f]*\).*/\1/p')
want=$("$SMCR_SIM" run scenarios/scale-10k.scn --set LEAVES=1 --set PER_LEAF=200 | sed -n 's/^fingerprint //p')
[ -n "$fp" ] && [ "$fp" = "$want" ] || fail "bench world fingerprint '$fp', scale-10k.scn at 200 stacks '$want'"
echo "bench scale ok"
