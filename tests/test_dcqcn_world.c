/* DCQCN end to end: two RoCE v2 flows through one 40 Gb/s bottleneck whose egress marks
 * with RED (sim/rdma/testbed_bottleneck.h). With DCQCN the flows share the link fairly
 * and the queue stays short; without it nothing slows down. */
#include <criterion/criterion.h>
#include <stdio.h>

#include "sim/rdma/testbed_bottleneck.h"

static bottleneck_result res;

/* Gb/s of one window */
static double gbps(const bottleneck_params *p, uint64_t bytes) { return (double)bytes * 8.0 / (double)p->window; }

/* The first window from which every later full window has both flows within 10 % of
 * half the bottleneck; n_windows when never. */
static size_t converged_from(const bottleneck_params *p, const bottleneck_result *r, size_t first, size_t last)
{
	double fair = (double)p->bottleneck_bps / 2e9;
	size_t from = last;
	for (size_t w = last; w-- > first;) {
		bool ok = true;
		for (int f = 0; f < 2; f++) {
			double g = gbps(p, r->bytes[f][w]);
			ok = ok && g >= 0.9 * fair && g <= 1.1 * fair;
		}
		if (!ok)
			break;
		from = w;
	}
	return from;
}

Test(dcqcn_world, two_flows_converge_to_fair_share)
{
	bottleneck_params p;
	bottleneck_params_default(&p);
	p.duration = 60 * SIM_MS;
	char err[128];
	cr_assert_eq(bottleneck_run(&p, &res, err, sizeof err), 0, "%s", err);
	cr_assert(!res.failed);
	size_t start2 = (size_t)(p.start2 / p.window), last = (size_t)(p.duration / p.window) - 1;
	if (getenv("DCQCN_TRACE"))
		for (size_t w = 0; w < res.n_windows; w++)
			fprintf(stderr, "%3zu ms  %6.2f  %6.2f Gb/s\n", w, gbps(&p, res.bytes[0][w]), gbps(&p, res.bytes[1][w]));
	size_t conv = converged_from(&p, &res, start2, last);
	fprintf(stderr, "dcqcn: marked %lu, CNPs %lu sent %lu received; flow 2 from %zu ms, both within 10%% of fair from %zu ms\n",
	        (unsigned long)res.marked, (unsigned long)res.cnp_tx, (unsigned long)res.cnp_rx, start2, conv);
	cr_assert_gt(res.marked, 0);
	cr_assert_gt(res.cnp_tx, 0);
	cr_assert_eq(res.cnp_rx, res.cnp_tx, "every CNP reaches its sender (no loss here)");
	cr_assert_lt(conv, last - 10, "converged and stayed for the last 10 ms (from %zu ms)", conv);
	/* the link stays used: the two flows together above 90 % of 40 Gb/s */
	for (size_t w = conv; w < last; w++)
		cr_assert_gt(gbps(&p, res.bytes[0][w] + res.bytes[1][w]), 36.0, "window %zu", w);
}
