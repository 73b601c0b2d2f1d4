/* `smcr-sim bench incast --convergence`: two RDMA WRITE flows through one bottleneck
 * (sim/testbed/testbed_bottleneck.h), DCQCN on with its default parameters, flow 2 joining
 * 2 ms after flow 1: how fast and how tightly the two reach the fair share. The
 * bottleneck is the fabric's switch (shared buffer, RED at its egress as frames leave)
 * or the testbed's RED relay (marking as frames enter the bottleneck wire).
 *
 * What is measured: each flow's share of the bottleneck link, the bytes of its data
 * frames (with preamble, FCS and gap) as the bottleneck's egress sends them, per 1 ms
 * window; the fair share is exactly half the link's rate. "Within 10 % of fair" means
 * both flows' rates averaged over `avg` consecutive windows are within 10 % of that
 * half. The DCQCN paper's averaging interval could not be found (docs/dcqcn.md), so the
 * figures are given for several intervals: 1, 2, 5, 10, 20 and 50 ms. The flows'
 * goodput (completed WRITEs) is reported too: its fair half is about 2 % below the
 * link's, the headers' share. */
#ifndef SIM_INCAST_CONVERGENCE_H
#define SIM_INCAST_CONVERGENCE_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/rdma/dcqcn.h"
#include "sim/testbed/testbed_bottleneck.h"

typedef struct incast_conv_config {
	uint64_t rate_bps; /* the bottleneck's and the senders' access rate */
	uint32_t ms;       /* run length, 10..4000 ms */
	uint32_t avg;      /* windows averaged for the 10 % test, 1..100 */
	uint64_t seed;
	bool relay;      /* the RED relay instead of the switch */
	dcqcn_params dp; /* the adapters' DCQCN parameters (default: the paper's) */
} incast_conv_config;

/* The 10 % test over one averaging interval. */
typedef struct incast_conv_fit {
	uint32_t avg; /* ms averaged */
	/* ms after the join: the first averaged window with both flows within 10 % of the
	 * fair share, and the one from which every later one is (UINT32_MAX: never) */
	uint32_t first_within, stays_within;
	double within_share; /* of the averaged windows from first_within on, the share within */
	double worst_dev;    /* the largest |rate - fair| / fair of a flow from first_within on */
} incast_conv_fit;

#define INCAST_CONV_FITS 6 /* 1, 2, 5, 10, 20, 50 ms */

typedef struct incast_conv_result {
	bottleneck_result run;                  /* per-window bytes and the fabric's counters */
	uint32_t join_ms;                       /* flow 2 starts here */
	double fair_gbps;                       /* half the link */
	uint64_t kmin, kmax;                    /* the RED thresholds the bottleneck used, bytes (Pmax 1 %) */
	incast_conv_fit fit;                    /* with the configured avg */
	incast_conv_fit fits[INCAST_CONV_FITS]; /* those intervals that fit in half the run */
	unsigned n_fits;
	double tail_gbps[2];    /* each flow's link share over the last quarter of the run */
	double tail_goodput[2]; /* and its goodput */
} incast_conv_result;

void incast_conv_default(incast_conv_config *c);
/* 0, or -1 with err set (the testbed could not be built). */
int incast_conv_run(const incast_conv_config *c, incast_conv_result *r, char *err, size_t errlen);
/* Gb/s of flow f's link share averaged over the `avg` windows ending with window w
 * (w + 1 >= avg). */
double incast_conv_gbps(const incast_conv_result *r, unsigned f, size_t w, uint32_t avg);
/* The same for its goodput (completed WRITE bytes). */
double incast_conv_goodput(const incast_conv_result *r, unsigned f, size_t w, uint32_t avg);

#endif
