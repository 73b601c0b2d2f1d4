#!/bin/bash
# compare-reports.sh SIM.json REAL.json: do two `smcr-sim run --format json` documents of
# the same scenario — one simulated, one on real devices (--real-hw) — agree on
# everything that is neither a timing nor a hardware identity? Prints the difference of
# what is left and exits 1 if there is one, 0 if they agree, 2 on bad input.
#
# Stripped, because they are timings or depend on them:
#   time_ns, end_ns, engine_events,        when things happened, how many engine events,
#   events, fingerprint                    the reports' link events (when each happened)
#   ops_in, ops_out                        work requests: how writes coalesce and how many
#   rx_requests, tx_requests               CDC updates there are depends on timing
#   rx_payload, tx_payload,                the size of each receive and send call, and
#   rmb_rx/rmb_tx full, full_peer,         whether it found a buffer full or asked more
#   size_small, size_small_peer            than was there, depend on timing
# Stripped, because they name the hardware (simulated VF vs real device):
#   rnics[].name, vmac, gids; local/remote_vmac, local/remote_gid, peer_gid,
#   local/remote_qpn; the MAC part of system_id and peer_system_id (its first two
#   bytes are random and must agree); the scenario's path (file, scenario)
# Everything else must be equal: stacks, link groups (ids, roles, types, versions,
# VLANs, PNet ids, link and connection counts, buffer storage, limits), links (link
# numbers, link ids, states, MTU, payload bytes in and out, connections), connections,
# fallbacks and their reasons, payload byte counters, buffer histograms, expectations.
set -u
SIM=${1:?usage: compare-reports.sh SIM.json REAL.json}
REAL=${2:?usage: compare-reports.sh SIM.json REAL.json}
command -v jq >/dev/null || { echo "compare-reports: jq is missing (tools/install-deps --hw)" >&2; exit 2; }
norm() {
	jq -S '
	  def ident: if type == "string" then .[0:4] else . end;
	  walk(if type == "object" then
	         del(.time_ns, .end_ns, .engine_events, .events, .fingerprint, .scenario, .file,
	             .ops_in, .ops_out, .rx_requests, .tx_requests,
	             .vmac, .gids, .local_vmac, .remote_vmac, .local_gid, .remote_gid, .peer_gid,
	             .local_qpn, .remote_qpn, .rx_payload, .tx_payload)
	         | (if has("rmb_rx") then .rmb_rx |= del(.full, .size_small) else . end)
	         | (if has("rmb_tx") then .rmb_tx |= del(.full, .full_peer, .size_small, .size_small_peer) else . end)
	         | (if has("system_id") then .system_id |= ident else . end)
	         | (if has("peer_system_id") then .peer_system_id |= ident else . end)
	         | (if has("rnics") then .rnics |= map(del(.name)) else . end)
	       else . end)' "$1"
}
a=$(norm "$SIM") || { echo "compare-reports: $SIM is not a smcr-sim JSON report" >&2; exit 2; }
b=$(norm "$REAL") || { echo "compare-reports: $REAL is not a smcr-sim JSON report" >&2; exit 2; }
[ "$(jq -r .format <<<"$a")" = smcr-run ] && [ "$(jq -r .format <<<"$b")" = smcr-run ] ||
	{ echo "compare-reports: expected two 'smcr-sim run --format json' documents" >&2; exit 2; }
if d=$(diff <(echo "$a") <(echo "$b")); then
	echo "compare-reports: $(basename "$SIM") and $(basename "$REAL") agree ($(jq '[.. | objects | select(has("link_num"))] | length' <<<"$a") links, $(jq '[.reports[].stacks[].stats.tx_bytes] | add' <<<"$a") payload bytes sent)"
	exit 0
fi
echo "compare-reports: $(basename "$SIM") and $(basename "$REAL") differ (< simulation, > real devices):"
echo "$d"
exit 1
