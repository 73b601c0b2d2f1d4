# `smcr-sim run`: every shipped scenario runs with its expectations met; runs are
# deterministic (same file and seed: byte-identical output and fingerprint; another seed:
# another fingerprint); a failed expectation exits 1 naming FILE:LINE; `report` prints
# the final netstat-style report.
set -eu
. tests/lib.sh

for f in scenarios/*.scn; do
	# too large for the runtime yet: only checked (tests/scenarios/t_scenarios_check.sh)
	grep -q '^# heavy:' "$f" && { echo "skip $f (# heavy:)"; continue; }
	set +e
	"$SMCR_SIM" run "$f" >"$BUILD/run.out" 2>&1
	rc=$?
	set -e
	[ "$rc" = 0 ] || fail "$f exited $rc: $(grep -a 'expectation failed' "$BUILD/run.out" | head -5)"
	grep -q '^fingerprint [0-9a-f]\{16\}$' "$BUILD/run.out" || fail "$f: no fingerprint line"
	echo "ok $f: $(grep -a 'expectations met' "$BUILD/run.out")"
done

# determinism: the same seed twice, byte for byte; another seed differs
"$SMCR_SIM" run -v scenarios/redundancy-failover.scn >"$BUILD/det1.out"
"$SMCR_SIM" run -v scenarios/redundancy-failover.scn >"$BUILD/det2.out"
cmp "$BUILD/det1.out" "$BUILD/det2.out" || fail "two runs with one seed differ"
"$SMCR_SIM" run --seed 12 scenarios/redundancy-failover.scn >"$BUILD/det3.out"
fp1=$(grep '^fingerprint' "$BUILD/det1.out")
fp3=$(grep '^fingerprint' "$BUILD/det3.out")
[ -n "$fp1" ] && [ "$fp1" != "$fp3" ] || fail "seed 12 gave the same fingerprint ($fp1)"
"$SMCR_SIM" run --format json scenarios/two-stacks.scn >"$BUILD/j1.json"
"$SMCR_SIM" run --format json scenarios/two-stacks.scn >"$BUILD/j2.json"
cmp "$BUILD/j1.json" "$BUILD/j2.json" || fail "JSON output differs between runs"
grep -q '"fingerprint": "[0-9a-f]\{16\}"' "$BUILD/j1.json" || fail "no fingerprint in the JSON output"
if command -v python3 >/dev/null; then
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["expectations_failed"]==0' "$BUILD/j1.json" \
		|| fail "JSON output does not parse"
fi

# a wrong expectation: exit 1, FILE:LINE and what was measured
set +e
"$SMCR_SIM" run tests/data/fail-expect.scn >"$BUILD/fail.out" 2>&1
rc=$?
set -e
[ "$rc" = 1 ] || fail "a failed expectation exited $rc"
grep -qx 'tests/data/fail-expect.scn:18: expectation failed: expect linkgroups A B == 2 (measured 1)' "$BUILD/fail.out" \
	|| fail "linkgroups message: $(cat "$BUILD/fail.out")"
grep -q '^tests/data/fail-expect.scn:19: expectation failed: expect mode bulk == TCP (1 of 1 connections differ; bulk.1 is SMCR)$' \
	"$BUILD/fail.out" || fail "mode message: $(grep failed "$BUILD/fail.out")"
grep -q 'tests/data/fail-expect.scn:17' "$BUILD/fail.out" && fail "a met expectation was reported"
grep -q '1 expectation met, 2 failed' "$BUILD/fail.out" || fail "summary: $(tail -3 "$BUILD/fail.out")"

# usage errors and bad scenarios: exit 2, nothing runs
expect_exit 2 "$SMCR_SIM" run
expect_exit 2 "$SMCR_SIM" run --format xml scenarios/two-stacks.scn
expect_exit 2 "$SMCR_SIM" run --seed x scenarios/two-stacks.scn
expect_exit 2 "$SMCR_SIM" run tests/data/bad-values.scn
expect_stderr 'bad-missing-end.scn:3:1:' "$SMCR_SIM" run tests/data/bad-missing-end.scn
"$SMCR_SIM" run --help | grep -q -- '--pcap'
"$SMCR_SIM" run --defaults | grep -q 'fixedmemory'
"$SMCR_SIM" run --dump scenarios/default.scn | grep -q '^stack ZOSA'

# --end shortens the run; --pcap writes a capture (pcapng, or classic pcap on request)
"$SMCR_SIM" run --end 50ms --pcap "$BUILD/run.pcapng" scenarios/two-stacks.scn >"$BUILD/short.out" || true
grep -q 'virtual time 0.050000000 s' "$BUILD/short.out" || fail "--end: $(tail -2 "$BUILD/short.out")"
[ "$(head -c 4 "$BUILD/run.pcapng" | od -An -tx1 | tr -d ' ')" = "0a0d0d0a" ] || fail "--pcap: not pcapng"
[ "$(wc -c <"$BUILD/run.pcapng")" -gt 10000 ] || fail "--pcap: capture too small"
"$SMCR_SIM" run --end 50ms --pcap "$BUILD/run.pcap" --pcap-format pcap scenarios/two-stacks.scn >/dev/null || true
[ "$(head -c 4 "$BUILD/run.pcap" | od -An -tx1 | tr -d ' ')" = "4d3cb2a1" ] || fail "--pcap-format pcap: not a nanosecond pcap"
expect_exit 2 "$SMCR_SIM" run --pcap "$BUILD/x" --pcap-format erf scenarios/two-stacks.scn
expect_exit 2 "$SMCR_SIM" run --pcap-snaplen 100 scenarios/two-stacks.scn
expect_stderr 'need --pcap' "$SMCR_SIM" run --pcap-snaplen 100 scenarios/two-stacks.scn

# report: the final netstat-style report, with an SMCID filter
"$SMCR_SIM" report scenarios/default.scn >"$BUILD/report.out"
grep -q '^SMC-R NETSTAT DEVLINKS SMC REPORT' "$BUILD/report.out" || fail "report: no netstat header"
grep -q 'IntfName: EZARIUT10018' "$BUILD/report.out" || fail "report: no RNIC interface"
grep -q 'LnkId: 00000102' "$BUILD/report.out" || fail "report: no link"
"$SMCR_SIM" report --smcid 00000102 scenarios/default.scn >"$BUILD/smcid.out"
grep -q 'LnkId: 00000102' "$BUILD/smcid.out" || fail "--smcid dropped the link"
grep -q 'LnkId: 00000104' "$BUILD/smcid.out" && fail "--smcid kept another link"
expect_exit 2 "$SMCR_SIM" report --smcid zz scenarios/default.scn
echo "scenarios run ok"
