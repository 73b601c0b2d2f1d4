# `smcr-sim check`: every shipped scenario is valid; broken files exit 2 with every error
# located as FILE:LINE:COLUMN; loops and parameters (--set, --dump); the limits; input
# that used to crash or never end (each under a timeout, so a hang fails); check time in
# proportion to the scenario's size.
set -eu
. tests/lib.sh

# within SECS CMD...: run CMD (a program) with a time limit, so that a hang is a failure
# and not a stuck suite; CMD's exit status
within() {
	secs=$1; shift
	rc=0
	timeout "$secs" "$@" || rc=$?
	[ "$rc" != 124 ] || fail "'$*' took more than ${secs}s"
	return "$rc"
}

out=$("$SMCR_SIM" check scenarios/*.scn)
n=$(ls scenarios/*.scn | wc -l)
[ "$(echo "$out" | grep -c ': ok (')" = "$n" ] || fail "not every scenario is ok: $out"
echo "$out" | grep -q '^scenarios/default.scn: ok (2 stacks, 2 apps, [0-9]* events, [0-9]* expectations)$' \
	|| fail "default.scn summary: $out"

"$SMCR_SIM" check --help | grep -q -- '--dump'
expect_exit 2 "$SMCR_SIM" check
expect_exit 2 "$SMCR_SIM" check --no-such-option
expect_exit 2 "$SMCR_SIM" check /nonexistent.scn
expect_stderr '/nonexistent.scn: cannot read the file' "$SMCR_SIM" check /nonexistent.scn

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
# ... the hosts, TCP buffers and where an app runs included: a dump runs as the original
cat >"$BUILD/hosts.scn" <<'SCN'
end 50ms
switch SW
adapter RA pfid=0010 switch=SW
adapter RB pfid=0020 switch=SW
stack A host=zos
  interface e0 switch=SW ip=10.0.0.1/24
  smcr pfid=0010
  tcp sndbuf=1M rcvbuf=512K
  host cpus=4 speed=150 copy=20Gbps
end
stack B
  interface e0 switch=SW ip=10.0.0.2/24
  smcr pfid=0020
end
app sink B listen port=5000 kind=sink cpu=1
app bulk A connect B:5000 kind=bulk bytes=1M write=4K
SCN
"$SMCR_SIM" check --dump "$BUILD/hosts.scn" >"$BUILD/hosts1.scn" 2>/dev/null || fail "hosts.scn does not dump"
grep -q '^stack A personality=linux kernel=.* host=zos ' "$BUILD/hosts1.scn" || fail "dump: no host= on the stack"
grep -q '^  tcp sndbuf=1M rcvbuf=512K$' "$BUILD/hosts1.scn" || fail "dump: no tcp statement"
grep -q '^  host cpus=4 speed=150 .* copy=20Gbps ' "$BUILD/hosts1.scn" || fail "dump: $(grep '^  host' "$BUILD/hosts1.scn" | head -1)"
grep -q ' cpu=1$' "$BUILD/hosts1.scn" && grep -q ' write=4K$' "$BUILD/hosts1.scn" || fail "dump: no cpu= or write= on the apps"
"$SMCR_SIM" run "$BUILD/hosts.scn" | grep -v '^fingerprint\|expectations met' >"$BUILD/hosts.out"
"$SMCR_SIM" run "$BUILD/hosts1.scn" | grep -v '^fingerprint\|expectations met' | sed "s|$BUILD/hosts1.scn|$BUILD/hosts.scn|g" |
	diff "$BUILD/hosts.out" - >/dev/null || fail "the dump of hosts.scn does not run as hosts.scn"
"$SMCR_SIM" check --defaults | grep -q '^smcr        fixedmemory  256M'

# ---- loops and parameters ----------------------------------------------------------
# the heavy scenarios check quickly (they are too large to run yet)
for f in scenarios/scale-10k.scn scenarios/scale-1m-conns.scn; do
	grep -q '^# heavy:' "$f" || fail "$f is not marked '# heavy:'"
	within 60 "$SMCR_SIM" check "$f" >"$BUILD/heavy.out" || fail "$f: $(cat "$BUILD/heavy.out")"
done
"$SMCR_SIM" check scenarios/scale-10k.scn | grep -qx 'scenarios/scale-10k.scn: ok (10000 stacks, 10000 apps, 0 events, 15001 expectations)'
"$SMCR_SIM" check scenarios/scale-1m-conns.scn | grep -qx 'scenarios/scale-1m-conns.scn: ok (200 stacks, 1100 apps, 0 events, 4001 expectations)'
# 1,000,000 connections: the conns= of the dumped apps add up
"$SMCR_SIM" check --dump scenarios/scale-1m-conns.scn 2>/dev/null >"$BUILD/1m.scn"
[ "$(sed -n 's/^app .* connect .* conns=\([0-9]*\) .*/\1/p' "$BUILD/1m.scn" | awk '{ t += $1 } END { print t }')" = 1000000 ] \
	|| fail "scale-1m-conns does not open 1000000 connections"
# scale-smoke is scale-10k at 200 stacks: with the same parameters, the same scenario
"$SMCR_SIM" check --dump --set LEAVES=4 --set PER_LEAF=50 scenarios/scale-10k.scn 2>/dev/null |
	grep -v '^scenario \|^seed ' >"$BUILD/10k-small.scn"
"$SMCR_SIM" check --dump scenarios/scale-smoke.scn 2>/dev/null | grep -v '^scenario \|^seed ' >"$BUILD/smoke.scn"
cmp -s "$BUILD/10k-small.scn" "$BUILD/smoke.scn" || fail "scale-smoke.scn is not scale-10k.scn at LEAVES=4 PER_LEAF=50"
# --dump shows the resolved parameters and the expanded statements
grep -qx 'param LEAVES=4 type=int' "$BUILD/smoke.scn" || fail "no resolved LEAVES in the dump"
grep -qx 'param DATA=64K type=size' "$BUILD/smoke.scn" || fail "no resolved DATA in the dump"
grep -q '^stack H00199 ' "$BUILD/smoke.scn" || fail "the dump does not hold the expanded stacks"
! grep -q '[{}]' "$BUILD/smoke.scn" || fail "the dump still holds {…}"
"$SMCR_SIM" check --dump "$BUILD/smoke.scn" >"$BUILD/smoke2.scn" 2>/dev/null
cmp -s "$BUILD/smoke.scn" "$BUILD/smoke2.scn" || fail "the dump of a looped scenario does not load to itself"
"$SMCR_SIM" check --set LEAVES=2 --set DATA=1M --dump scenarios/scale-smoke.scn 2>/dev/null >"$BUILD/set.scn"
grep -qx 'param DATA=1M type=size' "$BUILD/set.scn" || fail "--set DATA=1M not in the dump"
[ "$(grep -c '^stack ' "$BUILD/set.scn")" = 100 ] || fail "--set LEAVES=2 did not give 100 stacks"
grep -q 'kind=bulk bytes=1M ' "$BUILD/set.scn" || fail "--set DATA=1M did not reach the apps"
# --set errors: FILE:LINE and the parameter
set +e
err=$("$SMCR_SIM" check --set LEAVES=four scenarios/scale-smoke.scn 2>&1 >/dev/null); rc=$?
set -e
[ "$rc" = 2 ] || fail "a wrong-kind --set exited $rc"
[ "$err" = "scenarios/scale-smoke.scn:10:14: --set LEAVES=four is not an integer, the kind of parameter 'LEAVES' (default 4); expected a decimal or 0x-prefixed hex integer" ] \
	|| fail "wrong-kind --set said: $err"
expect_stderr "^scenarios/scale-smoke.scn: --set NOSUCH=1: no parameter 'NOSUCH' in this scenario; expected one of its parameters: LEAVES (10:7), PER_LEAF (11:7), DATA (12:7)$" \
	"$SMCR_SIM" check --set NOSUCH=1 scenarios/scale-smoke.scn
expect_stderr ": bad --set 'LEAVES'; expected NAME=VALUE" "$SMCR_SIM" check --set LEAVES scenarios/scale-smoke.scn
expect_stderr "scale-n.scn:3:9: --set N=x is not an integer" "$SMCR_SIM" run --set N=x tests/data/scale-n.scn
expect_stderr "no parameter 'Q'" "$SMCR_SIM" report --set Q=1 tests/data/scale-n.scn
# mistakes in loops: every message names its iteration
set +e
err=$("$SMCR_SIM" check tests/data/bad-loops.scn 2>&1 >/dev/null); rc=$?
set -e
[ "$rc" = 2 ] || fail "bad-loops exited $rc"
expected="tests/data/bad-loops.scn:5:21: in iteration i=4: duplicate PFID 0101 (adapter 'R1' at 5:3 in iteration i=1 has it); expected a PFID unique in the fabric
tests/data/bad-loops.scn:11:14: in iteration i=2: '/' by zero; expected a divisor other than 0
tests/data/bad-loops.scn:13:10: parameter 'M' is used before its definition at 14:7; expected its 'param' line above its first use"
[ "$err" = "$expected" ] || fail "bad-loops said:
$err"

# ---- limits: refused at the loop's line with its size, before it is expanded ----------
set +e
err=$(within 5 "$SMCR_SIM" check tests/data/bad-limits.scn 2>&1 >/dev/null); rc=$?
set -e
[ "$rc" = 2 ] || fail "bad-limits exited $rc"
[ "$err" = "tests/data/bad-limits.scn:4:1: this loop makes 100000000 statements (1000000 iterations), 100000001 with those before it; expected at most 1000000 statements in a scenario" ] \
	|| fail "bad-limits said: $err"
expect_exit 2 within 5 "$SMCR_SIM" run tests/data/bad-limits.scn
expect_stderr "^tests/data/scale-n.scn:5:1: this loop makes 70000 adapters (70000 iterations); expected at most 65536 adapters in a scenario$" \
	"$SMCR_SIM" check --set N=70000 tests/data/scale-n.scn
# the run's memory estimate: 2.5 M connections of scale-1m-conns.scn, at the app that crosses it
expect_stderr "^scenarios/scale-1m-conns.scn:51:5: in iteration c=83, f=7: this takes the run's memory estimate over the limit: 200 stacks and 2500000 connections need about 39125 MiB (320 KiB a stack, 16 KiB a connection); expected at most 32768 MiB$" \
	"$SMCR_SIM" check --set CONNS=2500 scenarios/scale-1m-conns.scn

# ---- bad input: an error, never a crash or a hang ----------------------------------------
expect_exit 2 within 20 "$SMCR_SIM" check tests/data/bad-iface-further-down.scn
expect_stderr "^tests/data/bad-iface-further-down.scn:1:17: stack 'B' has no interface 'nosuch'; expected one of its interfaces (it has none)$" \
	"$SMCR_SIM" check tests/data/bad-iface-further-down.scn
for cmd in check run; do
	set +e
	err=$(within 20 "$SMCR_SIM" $cmd /dev/zero 2>&1 >/dev/null); rc=$?
	set -e
	[ "$rc" = 2 ] || fail "$cmd /dev/zero exited $rc"
	[ "$err" = "/dev/zero: the file is larger than 64 MiB; expected a scenario file of at most 67108864 bytes" ] \
		|| fail "$cmd /dev/zero said: $err"
done
# a 10 MB line, and a 10 MB word on lines of its own: short messages
awk 'BEGIN { printf "switch "; for (i = 0; i < 1000000; i++) printf "AAAAAAAAAA"; print "" }' >"$BUILD/longline.scn"
set +e
err=$(within 20 "$SMCR_SIM" check "$BUILD/longline.scn" 2>&1 >/dev/null); rc=$?
set -e
[ "$rc" = 2 ] && [ "$err" = "$BUILD/longline.scn:1:65537: line 1 is 10000007 bytes long; expected at most 65536 bytes per line" ] \
	|| fail "a 10 MB line: exit $rc, said: $(echo "$err" | head -c 300)"
awk 'BEGIN { printf "switch S vlans="; for (i = 0; i < 1000; i++) printf "xxxxxxxx"; print "" }' >"$BUILD/longword.scn"
expect_stderr "longword.scn:1:10: a word of more than 4096 bytes; expected shorter words" "$SMCR_SIM" check "$BUILD/longword.scn"
awk 'BEGIN { printf "switch S vlans="; for (i = 0; i < 300; i++) printf "x"; print "" }' >"$BUILD/echo.scn"
set +e
err=$("$SMCR_SIM" check "$BUILD/echo.scn" 2>&1 >/dev/null)
set -e
[ "${#err}" -lt 250 ] || fail "a 300-byte value was echoed whole: $err"
echo "$err" | grep -q "… (300 bytes)' for vlans" || fail "no cut echo: $err"
printf 'switch SW
stack A
  interface e switch=SW ip=10.0.0.1/24
  smcr rmbsize=18446744073709551616
end
' >"$BUILD/ovf.scn"
expect_stderr "ovf.scn:4:16: rmbsize=18446744073709551616 is out of range (max 512M); expected 16K..512M" "$SMCR_SIM" check "$BUILD/ovf.scn"
# --end and --seed follow the scenario's rules for `end` and `seed`
expect_exit 2 "$SMCR_SIM" run --end=5 scenarios/two-stacks.scn
expect_stderr "bad --end: bad duration '5' for end; expected a unit after the number: ns, us, ms, s, m or h" \
	"$SMCR_SIM" run --end=5 scenarios/two-stacks.scn
expect_stderr "bad --end: end=100h is out of range; expected 1ns..24h" "$SMCR_SIM" run --end=100h scenarios/two-stacks.scn
expect_stderr "bad --end: end=0 is out of range; expected 1ns..24h" "$SMCR_SIM" report --end=0 scenarios/two-stacks.scn
expect_stderr "bad --seed: seed=18446744073709551616 is out of range (max 18446744073709551615)" \
	"$SMCR_SIM" run --seed 18446744073709551616 scenarios/two-stacks.scn

# ---- check takes time in proportion to the size -----------------------------------------
# 8 times the stacks in at most 24 times the CPU time (quadratic would be 64 times); the
# small size is measured three times, its fastest counts
if [ -x /usr/bin/time ]; then
	cpu() { /usr/bin/time -f '%U %S' timeout 60 "$SMCR_SIM" check --set N="$1" tests/data/scale-n.scn 2>&1 >/dev/null |
		tail -1 | awk '{ printf "%d\n", ($1 + $2) * 1000 }'; }
	small=$(for i in 1 2 3; do cpu 2500; done | sort -n | head -1)
	large=$(cpu 20000)
	[ "$small" -gt 0 ] || small=10
	[ "$large" -le $((small * 24)) ] || fail "check of 20000 stacks took ${large} ms CPU, 2500 took ${small} ms: not linear"
	echo "check: 2500 stacks ${small} ms, 20000 stacks ${large} ms CPU"
fi
echo "scenarios check ok"
