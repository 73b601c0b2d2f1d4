# smc_chk's verdicts (`report --report smc_chk`, `replay --report smc_chk`, a scenario's
# `report format=smc_chk`) for every connection of a run or a capture, and smc_chk -i
# (`report --pnetid STACK.IFACE`): the lines smc_chk prints.
set -eu
. tests/lib.sh

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# a run: three SMC-R connections, the plain TCP one is no SMC socket and not tested
"$SMCR_SIM" report --report smc_chk scenarios/trace-two-stacks.scn >"$TMP/two"
[ "$(grep -c '^     Success, using SMC-R$' "$TMP/two")" = 3 ] || fail "trace-two-stacks: $(cat "$TMP/two")"
grep -q '^Test with target IP 192.168.10.2 and port 8080$' "$TMP/two" || fail "no test of port 8080: $(cat "$TMP/two")"
! grep -q 'Failed' "$TMP/two" || fail "trace-two-stacks: a failure: $(cat "$TMP/two")"

# a run whose connections all fell back: both sides' reasons, in the man page's words
"$SMCR_SIM" report --report smc_chk scenarios/fallback-subnets.scn >"$TMP/sub"
cat >"$TMP/want" <<'W'
Test with target IP 10.2.0.1 and port 8000
  Live test (SMC-D and SMC-R)
     Failed  (TCP fallback), reasons:
          Client:        0x05000000   Peer declined during handshake
          Server:        0x03070000   IP prefix / subnet mismatch
W
grep -A4 '^Test with target' "$TMP/sub" | head -5 | diff - "$TMP/want" || fail "fallback-subnets: $(cat "$TMP/sub")"

# a capture of real Linux fallbacks: every connection, from its client
"$SMCR_SIM" replay --report smc_chk tests/data/replay/linux-6.1-fallbacks.pcap >"$TMP/cap"
grep -q '^          Client:        0x03030000   No SMC devices found (R and D)$' "$TMP/cap" || fail "capture: $(cat "$TMP/cap")"
grep -q '^          Server:        0x03030000   No SMC devices found (R and D)$' "$TMP/cap" || fail "capture: $(cat "$TMP/cap")"
"$SMCR_SIM" replay --report smc_chk traces/linux-6.1-smcr-v2-rxe.pcapng | grep -q '^     Success, using SMC-R$' ||
	fail "the real SMC-R capture is not a success"

# in a scenario, at a time
sed 's/^end 10s$/end 10s\nat 5s report format=smc_chk/' scenarios/fallback-subnets.scn >"$TMP/at.scn"
"$SMCR_SIM" run "$TMP/at.scn" >"$TMP/at.out"
grep -q '^          Server:        0x03070000   IP prefix / subnet mismatch$' "$TMP/at.out" || fail "report format=smc_chk: $(cat "$TMP/at.out")"

# smc_chk -i: an interface's PNET ID
cat >"$TMP/p.scn" <<'S'
scenario "pnet ids"
end 1s
switch SW
adapter R pfid=0101 switch=SW pnetid=NETA
stack A personality=linux
  interface eth0 switch=SW ip=10.0.0.1/24 pnetid=NETA
  interface eth1 switch=SW ip=10.0.1.1/24
  smcr pfid=0101
end
S
[ "$("$SMCR_SIM" report --pnetid A.eth0 "$TMP/p.scn")" = NETA ] || fail "-i A.eth0"
[ "$("$SMCR_SIM" report -i eth1 "$TMP/p.scn")" = SIMNET ] || fail "-i eth1 (the default network)"
expect_exit 2 "$SMCR_SIM" report -i eth9 "$TMP/p.scn"
expect_stderr "no interface 'B.eth0'" "$SMCR_SIM" report -i B.eth0 "$TMP/p.scn"
expect_exit 2 "$SMCR_SIM" report --report smc_check "$TMP/p.scn"
echo "smc_chk ok"
