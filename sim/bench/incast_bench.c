/* The incast benchmark (incast_bench.h): a generated incast scenario run in a world. */
#include "sim/bench/incast_bench.h"

#include <glib.h>
#include <inttypes.h>
#include <string.h>

#include "sim/engine/bench_measure.h"
#include "sim/rdma/rnic.h"
#include "sim/world/world.h"

const char *incast_mode_name(incast_mode m)
{
	switch (m) {
	case INCAST_NONE: return "none";
	case INCAST_PFC: return "pfc";
	case INCAST_ECN_DCQCN: return "ecn-dcqcn";
	}
	return "?";
}

/* The switch and adapter attributes of scenarios/incast-*.scn. */
char *incast_bench_scenario(const incast_bench_config *c)
{
	const char *sw = "buffer=256K", *ad = "";
	if (c->mode == INCAST_PFC) {
		sw = "buffer=2M pfc=08 xoff=24K xon=12K headroom=24K";
		ad = "prio=3 txwindow=2us";
	} else if (c->mode == INCAST_ECN_DCQCN) {
		sw = "buffer=2M pfc=08 xoff=24K xon=12K headroom=24K ecn=yes kmin=5K kmax=200K pmax=1%";
		ad = "prio=3 txwindow=2us dcqcn=on";
	}
	GString *s = g_string_new(NULL);
	g_string_append_printf(s, "scenario \"bench incast\"\nseed %" PRIu64 "\nend 60s\nswitch SW1 %s\n", c->seed, sw);
	g_string_append_printf(s, "adapter RX pfid=0100 switch=SW1 roce=v2 %s\n", ad);
	g_string_append(s, "stack RCV\n  interface eth0 switch=SW1 ip=10.21.0.1/16\n  smcr pfid=0100\n"
	                   "  smcr v2=yes ueid=SMCSIM.INCAST\nend\napp sink RCV listen port=5000 kind=sink\n");
	for (uint32_t k = 1; k <= c->senders; k++) {
		g_string_append_printf(s, "adapter T%02u pfid=%04X switch=SW1 roce=v2 %s\n", k, 0x100 + k, ad);
		g_string_append_printf(s,
		                       "stack S%02u\n  interface eth0 switch=SW1 ip=10.21.1.%u/16\n  smcr pfid=%04X\n"
		                       "  smcr v2=yes ueid=SMCSIM.INCAST\nend\n",
		                       k, k, 0x100 + k);
		g_string_append_printf(s, "app c%02u S%02u connect RCV:5000 kind=bulk bytes=%" PRIu64 "\n", k, k, c->bytes);
		g_string_append_printf(s, "expect mode c%02u == SMCR\nexpect delivered c%02u == %" PRIu64 "\n", k, k, c->bytes);
	}
	return g_string_free(s, FALSE);
}

static void switch_figures(const world *w, incast_bench_result *r)
{
	const sim_switch *sw = world_switch(w, 0);
	uint64_t best = 0;
	for (uint32_t p = 0; p < sim_switch_nports(sw); p++) {
		sim_switch_port_qos_stats st;
		if (!sim_switch_port_qos_stats_get(sw, p, &st))
			continue;
		r->pauses += st.pause_tx;
		r->pause_rx += st.pause_rx;
		r->drops += st.drops;
		r->headroom_drops += st.headroom_drops;
		r->ecn_marks += st.ecn_marks;
		r->frames += st.dequeued;
		if (st.max_depth_bytes >= best) { /* the bottleneck: the deepest queue */
			best = st.max_depth_bytes;
			r->depth_p50 = sim_depth_percentile(st.depth_hist, 50);
			r->depth_p99 = sim_depth_percentile(st.depth_hist, 99);
			r->depth_max = st.max_depth_bytes;
		}
	}
}

static void flow_figures(const world *w, const incast_bench_config *c, incast_bench_result *r)
{
	uint64_t first = UINT64_MAX, last = 0;
	double sum = 0, sum2 = 0;
	r->min_gbps = 1e300;
	for (uint32_t k = 1; k <= c->senders; k++) {
		char name[8];
		snprintf(name, sizeof(name), "c%02u", k);
		uint64_t a, b;
		if (!world_app_span(w, name, &a, &b) || b <= a)
			continue;
		double g = (double)c->bytes * 8.0 / (double)(b - a);
		sum += g;
		sum2 += g * g;
		r->min_gbps = g < r->min_gbps ? g : r->min_gbps;
		r->max_gbps = g > r->max_gbps ? g : r->max_gbps;
		first = a < first ? a : first;
		last = b > last ? b : last;
	}
	r->jain = sum2 > 0 ? sum * sum / ((double)c->senders * sum2) : 0;
	r->virtual_ns = last > first ? last - first : 0;
	r->goodput_gbps = r->virtual_ns ? (double)c->bytes * c->senders * 8.0 / (double)r->virtual_ns : 0;
	for (uint32_t i = 0; i <= c->senders; i++) {
		const rnic_stats *st = rnic_stats_get(world_rnic(w, i));
		r->cnp_tx += st->cnp_tx;
		r->tx_held += st->tx_held;
	}
}

int incast_bench_run(const incast_bench_config *c, incast_bench_result *r, char *err, size_t errlen)
{
	memset(r, 0, sizeof(*r));
	char *text = incast_bench_scenario(c);
	scn_diag diag;
	scn_diag_init(&diag);
	scn_scenario *scn = scn_load_string("bench-incast", text, strlen(text), &diag);
	g_free(text);
	if (!scn) {
		scn_diag_print(&diag, c->log);
		scn_diag_free(&diag);
		snprintf(err, errlen, "the generated scenario does not load");
		return 2;
	}
	scn_diag_free(&diag);
	world_opts o;
	world_opts_default(&o);
	o.quiet = true;
	o.out = c->log;
	world *w = world_new(scn, &o, err, errlen);
	if (!w) {
		scn_free(scn);
		return 2;
	}
	double t0 = bench_wall_seconds();
	r->failed = world_run(w);
	r->wall = bench_wall_seconds() - t0;
	r->events = world_events(w);
	r->fingerprint = world_fingerprint(w);
	switch_figures(w, r);
	flow_figures(w, c, r);
	world_free(w);
	scn_free(scn);
	return 0;
}
