/* The adapters' side of congestion in a run's output: ECN marks received, CNPs sent and
 * received, time paused by PFC, and each QP's DCQCN rate. Printed only when a scenario
 * uses the features (or the fabric paused or marked something), so runs without them
 * print exactly what they always did. */
#include <inttypes.h>
#include <stdio.h>

#include "sim/rdma/qp.h"
#include "sim/world/world_int.h"

/* A receive stall configured (rxstall=): its lines appear only then, so other reports
 * keep their shape. */
static bool rx_stalls(const rnic *r) { return rnic_config_get(r)->rx_stall_for > 0; }

static sim_time rx_stalled_ns(const rnic *r)
{
	sim_time t = 0;
	for (uint8_t p = 1; p <= rnic_nports(r); p++)
		t += rnic_port_rx_stalled_ns(r, p);
	return t;
}

static bool adapter_in_use(const world_adapter *wa)
{
	const rnic *r = wa->r;
	const rnic_cc_config *cc = &rnic_config_get(r)->cc;
	const rnic_stats *st = rnic_stats_get(r);
	if (cc->dcqcn || cc->pcp >= 0 || cc->dscp >= 0 || st->rx_ecn_ce || st->cnp_rx || st->cnp_tx || rx_stalls(r))
		return true;
	for (uint8_t p = 1; p <= rnic_nports(r); p++)
		if (rnic_port_pause_frames(r, p))
			return true;
	return false;
}

bool world_cc_in_use(const world *w)
{
	for (size_t i = 0; i < w->scn->n_adapters; i++)
		if (w->ad[i].r && adapter_in_use(&w->ad[i]))
			return true;
	return false;
}

/* bits per second as "12.345 Gb/s" */
static void fmt_rate(char *buf, size_t len, uint64_t bps)
{
	snprintf(buf, len, "%" PRIu64 ".%03" PRIu64 " Gb/s", bps / 1000000000u, bps / 1000000u % 1000u);
}

void world_print_congestion(world *w, FILE *out)
{
	if (!world_cc_in_use(w))
		return;
	fprintf(out, "\n==== adapter congestion ====\n");
	for (size_t i = 0; i < w->scn->n_adapters; i++) {
		const world_adapter *wa = &w->ad[i];
		if (!wa->r || !adapter_in_use(wa))
			continue;
		const rnic *r = wa->r;
		const rnic_cc_config *cc = &rnic_config_get(r)->cc;
		const rnic_stats *st = rnic_stats_get(r);
		fprintf(out, "adapter %s (PFID %04X): priority %u, dcqcn %s; ECN-marked received %" PRIu64 ", CNPs sent %" PRIu64 ", received %" PRIu64 ", frames held by PAUSE %" PRIu64 "\n",
		        w->scn->adapters[i].name, rnic_pfid(r), rnic_priority(r), cc->dcqcn ? "on" : "off", st->rx_ecn_ce,
		        st->cnp_tx, st->cnp_rx, st->tx_held);
		if (rx_stalls(r)) {
			sim_time t = rx_stalled_ns(r);
			fprintf(out, "  receive side stalled %" PRIu64 ".%03" PRIu64 " us: PFC frames sent %" PRIu64 ", frames held %" PRIu64 " (peak %" PRIu64 " bytes)\n",
			        t / 1000u, t % 1000u, st->pfc_tx, st->rx_stall_held, st->rx_stall_peak);
		}
		for (uint8_t p = 1; p <= rnic_nports(r); p++) {
			sim_time paused = rnic_port_paused_ns(r, p, rnic_priority(r));
			fprintf(out, "  port %u: PAUSE/PFC frames received %" PRIu64 ", priority %u paused %" PRIu64 ".%03" PRIu64 " us\n",
			        p, rnic_port_pause_frames(r, p), rnic_priority(r), paused / 1000u, paused % 1000u);
		}
		for (size_t q = 0; q < rnic_qp_slots(r); q++) {
			const rnic_qp *qp = rnic_qp_at(r, q);
			if (!qp)
				continue;
			const rnic_qp_stats *qs = rnic_qp_stats_get(qp);
			const dcqcn_stats *ds = rnic_qp_dcqcn_stats(qp);
			char rate[32];
			fmt_rate(rate, sizeof rate, rnic_qp_rate_bps(qp));
			fprintf(out, "  QP 0x%06x -> 0x%06x: rate %s%s, ECN-marked received %" PRIu64 ", CNPs sent %" PRIu64 ", received %" PRIu64 ", rate cuts %" PRIu64 "\n",
			        rnic_qp_num(qp), rnic_qp_dest_num(qp), rate, rnic_qp_rate_limited(qp) ? " (limited)" : "",
			        qs->ecn_ce_rx, qs->cnp_tx, qs->cnp_rx, ds->cuts);
		}
	}
}

void world_json_congestion(world *w, json_writer *j)
{
	if (!world_cc_in_use(w))
		return;
	json_key(j, "adapter_congestion");
	json_begin_array(j);
	for (size_t i = 0; i < w->scn->n_adapters; i++) {
		const world_adapter *wa = &w->ad[i];
		if (!wa->r || !adapter_in_use(wa))
			continue;
		const rnic *r = wa->r;
		const rnic_stats *st = rnic_stats_get(r);
		json_begin_object(j);
		json_kv_str(j, "adapter", w->scn->adapters[i].name);
		json_kv_hex(j, "pfid", rnic_pfid(r), 4);
		json_kv_uint(j, "priority", rnic_priority(r));
		json_kv_bool(j, "dcqcn", rnic_config_get(r)->cc.dcqcn);
		json_kv_uint(j, "ecn_marked_rx", st->rx_ecn_ce);
		json_kv_uint(j, "cnp_tx", st->cnp_tx);
		json_kv_uint(j, "cnp_rx", st->cnp_rx);
		json_kv_uint(j, "frames_held", st->tx_held);
		if (rx_stalls(r)) {
			json_kv_uint(j, "rx_stalled_ns", rx_stalled_ns(r));
			json_kv_uint(j, "pfc_tx", st->pfc_tx);
			json_kv_uint(j, "rx_stall_held", st->rx_stall_held);
			json_kv_uint(j, "rx_stall_peak_bytes", st->rx_stall_peak);
		}
		json_key(j, "ports");
		json_begin_array(j);
		for (uint8_t p = 1; p <= rnic_nports(r); p++) {
			json_begin_object(j);
			json_kv_uint(j, "port", p);
			json_kv_uint(j, "pause_frames_rx", rnic_port_pause_frames(r, p));
			json_kv_uint(j, "paused_ns", rnic_port_paused_ns(r, p, rnic_priority(r)));
			json_end_object(j);
		}
		json_end_array(j);
		json_key(j, "qps");
		json_begin_array(j);
		for (size_t q = 0; q < rnic_qp_slots(r); q++) {
			const rnic_qp *qp = rnic_qp_at(r, q);
			if (!qp)
				continue;
			const rnic_qp_stats *qs = rnic_qp_stats_get(qp);
			json_begin_object(j);
			json_kv_hex(j, "qpn", rnic_qp_num(qp), 6);
			json_kv_hex(j, "dest_qpn", rnic_qp_dest_num(qp), 6);
			json_kv_uint(j, "rate_bps", rnic_qp_rate_bps(qp));
			json_kv_bool(j, "rate_limited", rnic_qp_rate_limited(qp));
			json_kv_uint(j, "ecn_marked_rx", qs->ecn_ce_rx);
			json_kv_uint(j, "cnp_tx", qs->cnp_tx);
			json_kv_uint(j, "cnp_rx", qs->cnp_rx);
			json_kv_uint(j, "rate_cuts", rnic_qp_dcqcn_stats(qp)->cuts);
			json_end_object(j);
		}
		json_end_array(j);
		json_end_object(j);
	}
	json_end_array(j);
}
