# Event-free switch hops (sim/fabric/hop_int.h) against every hop an event (run
# --event-hops), in one build: the same visible outputs (event log, reports, JSON, event
# stream, statistics, every capture) for shipped scenarios of every kind, the PFC and ECN
# incasts and a few swarm worlds (tools/outputs-compare; `make compare-outputs REF=...`
# runs all of it against another binary), with fewer events where adapters stream through
# a switch; and the fingerprint of the event-free run is the same twice.
set -eu
. tests/lib.sh

scns="scenarios/two-stacks.scn scenarios/redundancy-failover.scn scenarios/v2-routed.scn scenarios/shared-adapters.scn
      scenarios/vlan-separation.scn scenarios/incast-pfc.scn scenarios/incast-ecn-dcqcn.scn"
tools/outputs-compare --no-digest --no-incast -n 6 --from 101 --scenarios "$scns" --b-flags --event-hops \
	"$SMCR_SIM" "$SMCR_SIM" || fail "event-free hops changed an output"

events() { "$SMCR_SIM" run "$@" scenarios/two-stacks.scn | sed -n 's/.*, \([0-9]*\) events$/\1/p'; }
fast=$(events) slow=$(events --event-hops)
echo "two-stacks.scn: $fast events, $slow with every hop an event"
[ -n "$fast" ] && [ -n "$slow" ] && [ "$fast" -lt "$slow" ] || fail "no fewer events ($fast against $slow)"
fp1=$("$SMCR_SIM" run scenarios/two-stacks.scn | grep '^fingerprint')
fp2=$("$SMCR_SIM" run scenarios/two-stacks.scn | grep '^fingerprint')
[ "$fp1" = "$fp2" ] || fail "two runs, two fingerprints: $fp1 / $fp2"
echo "hops ok"
