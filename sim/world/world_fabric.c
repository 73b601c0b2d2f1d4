/* The fabric's congestion counters in reports: one line (or JSON object) per port of
 * every switch that has a buffer. Switches without one print nothing, so the reports of
 * scenarios without congestion features are unchanged. */
#include <inttypes.h>
#include <stdio.h>

#include "sim/scenario/scn_values.h"
#include "sim/world/world_int.h"

static bool any_qos(const world *w)
{
	for (size_t i = 0; i < w->scn->n_switches; i++)
		if (sim_switch_has_qos(w->sw[i]))
			return true;
	return false;
}

static const char *attached(const sim_switch *sw, uint32_t port)
{
	const sim_plug *p = sim_switch_port((sim_switch *)sw, port);
	return p && p->peer ? p->peer->name : "-";
}

/* Ports that never carried anything are left out: a 64-port switch in a small scenario. */
static bool port_used(const sim_switch_port_qos_stats *st)
{
	return st->enqueued || st->drops || st->headroom_drops || st->pause_tx || st->pause_rx;
}

void world_print_fabric(world *w, FILE *out)
{
	if (!any_qos(w))
		return;
	fprintf(out, "switch ports: pauses sent/received (XOFF+XON), time paused, drops (tail/headroom), ECN marks, "
	             "egress depth p50/p99/max\n");
	for (size_t i = 0; i < w->scn->n_switches; i++) {
		const sim_switch *sw = w->sw[i];
		if (!sim_switch_has_qos(sw))
			continue;
		char peak[24];
		fprintf(out, "  %s: buffer peak %s\n", w->scn->switches[i].name,
		        scn_format_size(sim_switch_buffer_peak(sw), peak, sizeof(peak)));
		for (uint32_t p = 0; p < sim_switch_nports(sw); p++) {
			sim_switch_port_qos_stats st;
			if (!sim_switch_port_qos_stats_get(sw, p, &st) || !port_used(&st))
				continue;
			char a[24], b[24], c[24];
			fprintf(out,
			        "    p%-2u %-20s pause %" PRIu64 "+%" PRIu64 "/%" PRIu64 "+%" PRIu64 " paused %" PRIu64
			        ".%03" PRIu64 " us drops %" PRIu64 "/%" PRIu64 " marks %" PRIu64 " depth %s/%s/%s\n",
			        p, attached(sw, p), st.pause_tx, st.resume_tx, st.pause_rx, st.resume_rx, st.paused_ns / 1000,
			        st.paused_ns % 1000, st.drops, st.headroom_drops, st.ecn_marks,
			        scn_format_size(sim_depth_percentile(st.depth_hist, 50), a, sizeof(a)),
			        scn_format_size(sim_depth_percentile(st.depth_hist, 99), b, sizeof(b)),
			        scn_format_size(st.max_depth_bytes, c, sizeof(c)));
		}
	}
}

void world_write_fabric_json(world *w, json_writer *j)
{
	if (!any_qos(w))
		return;
	json_key(j, "switches");
	json_begin_array(j);
	for (size_t i = 0; i < w->scn->n_switches; i++) {
		const sim_switch *sw = w->sw[i];
		if (!sim_switch_has_qos(sw))
			continue;
		json_begin_object(j);
		json_kv_str(j, "name", w->scn->switches[i].name);
		json_kv_uint(j, "buffer_peak", sim_switch_buffer_peak(sw));
		json_key(j, "ports");
		json_begin_array(j);
		for (uint32_t p = 0; p < sim_switch_nports(sw); p++) {
			sim_switch_port_qos_stats st;
			if (!sim_switch_port_qos_stats_get(sw, p, &st) || !port_used(&st))
				continue;
			json_begin_object(j);
			json_kv_uint(j, "port", p);
			json_kv_str(j, "attached", attached(sw, p));
			json_kv_uint(j, "pause_tx", st.pause_tx);
			json_kv_uint(j, "resume_tx", st.resume_tx);
			json_kv_uint(j, "pause_rx", st.pause_rx);
			json_kv_uint(j, "resume_rx", st.resume_rx);
			json_kv_uint(j, "paused_ns", st.paused_ns);
			json_kv_uint(j, "drops", st.drops);
			json_kv_uint(j, "headroom_drops", st.headroom_drops);
			json_kv_uint(j, "ecn_marks", st.ecn_marks);
			json_kv_uint(j, "frames", st.dequeued);
			json_kv_uint(j, "depth_p50", sim_depth_percentile(st.depth_hist, 50));
			json_kv_uint(j, "depth_p99", sim_depth_percentile(st.depth_hist, 99));
			json_kv_uint(j, "depth_max", st.max_depth_bytes);
			json_end_object(j);
		}
		json_end_array(j);
		json_end_object(j);
	}
	json_end_array(j);
}

sim_switch *world_switch(const world *w, uint32_t index) { return index < w->scn->n_switches ? w->sw[index] : NULL; }
