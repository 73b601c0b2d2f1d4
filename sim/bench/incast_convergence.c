/* Two DCQCN flows converging on one bottleneck (incast_convergence.h). */
#include "sim/bench/incast_convergence.h"

#include <math.h>
#include <string.h>

void incast_conv_default(incast_conv_config *c)
{
	memset(c, 0, sizeof(*c));
	c->rate_bps = 40000000000ULL;
	c->ms = 200;
	c->avg = 5;
	c->seed = 1;
	dcqcn_params_default(&c->dp);
}

static double mean_gbps(const uint64_t *bytes, size_t w, uint32_t avg)
{
	uint64_t sum = 0;
	for (size_t k = 0; k < avg; k++)
		sum += bytes[w - k];
	return (double)sum * 8.0 / ((double)avg * 1e6); /* windows of 1 ms */
}

double incast_conv_gbps(const incast_conv_result *r, unsigned f, size_t w, uint32_t avg)
{
	return mean_gbps(r->run.wire_bytes[f], w, avg);
}

double incast_conv_goodput(const incast_conv_result *r, unsigned f, size_t w, uint32_t avg)
{
	return mean_gbps(r->run.bytes[f], w, avg);
}

static double dev(double g, double fair) { return fabs(g - fair) / fair; }

/* The 10 % test with `avg` ms means, judged from the first mean that holds only windows
 * after the join, up to the last window before the flows stop posting. */
static void fit(const incast_conv_result *r, uint32_t ms, uint32_t avg, incast_conv_fit *out)
{
	memset(out, 0, sizeof(*out));
	out->avg = avg;
	out->first_within = out->stays_within = UINT32_MAX;
	size_t n = 0, ok = 0;
	for (size_t w = r->join_ms + avg - 1; w < ms; w++) {
		bool in = true;
		double worst = 0;
		for (unsigned f = 0; f < 2; f++) {
			double d = dev(incast_conv_gbps(r, f, w, avg), r->fair_gbps);
			in = in && d <= 0.1;
			worst = d > worst ? d : worst;
		}
		/* an averaged window is stamped with its end: (w + 1) ms */
		uint32_t at = (uint32_t)(w + 1 - r->join_ms);
		if (in && out->first_within == UINT32_MAX)
			out->first_within = at;
		if (in && out->stays_within == UINT32_MAX)
			out->stays_within = at;
		if (!in)
			out->stays_within = UINT32_MAX;
		if (out->first_within != UINT32_MAX) {
			n++;
			ok += in;
			out->worst_dev = worst > out->worst_dev ? worst : out->worst_dev;
		}
	}
	out->within_share = n ? (double)ok / (double)n : 0;
}

int incast_conv_run(const incast_conv_config *c, incast_conv_result *r, char *err, size_t errlen)
{
	memset(r, 0, sizeof(*r));
	bottleneck_params p;
	bottleneck_params_default(&p);
	p.seed = c->seed;
	p.bottleneck_bps = p.access_bps = c->rate_bps;
	p.rx_bps = c->rate_bps * 5 / 2; /* the receivers never limit */
	p.duration = (sim_time)c->ms * SIM_MS;
	p.nic.cc.dp = c->dp;
	sim_switch_qos q;
	if (!c->relay) {
		/* as tests/sim/rdma/test_dcqcn_world.c: a 12 MiB shared buffer, RED with the paper's
		 * Kmin 5 KB, Kmax 200 KB, Pmax 1 % (the switch's defaults), no PFC */
		sim_switch_qos_default(&q);
		q.buffer_bytes = 12u << 20;
		q.alpha = (sim_ratio){ 1, 1 };
		q.ecn = true;
		q.headroom_bytes = 64 * 1024;
		p.qos = &q;
		r->kmin = q.kmin_bytes;
		r->kmax = q.kmax_bytes;
	} else {
		r->kmin = p.kmin;
		r->kmax = p.kmax;
	}
	if (bottleneck_run(&p, &r->run, err, errlen))
		return -1;
	r->join_ms = (uint32_t)(p.start2 / SIM_MS);
	r->fair_gbps = (double)c->rate_bps / 2e9;
	/* window `ms` holds the tail after the flows stop posting: not judged */
	fit(r, c->ms, c->avg, &r->fit);
	static const uint32_t avgs[INCAST_CONV_FITS] = { 1, 2, 5, 10, 20, 50 };
	for (unsigned i = 0; i < INCAST_CONV_FITS; i++)
		if (avgs[i] * 2 <= c->ms)
			fit(r, c->ms, avgs[i], &r->fits[r->n_fits++]);
	uint32_t q4 = c->ms / 4;
	for (unsigned f = 0; f < 2; f++) {
		r->tail_gbps[f] = incast_conv_gbps(r, f, c->ms - 1, q4);
		r->tail_goodput[f] = incast_conv_goodput(r, f, c->ms - 1, q4);
	}
	return 0;
}
