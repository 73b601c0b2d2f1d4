/* `smcr-sim bench incast --convergence`: two RDMA WRITE flows through one bottleneck
 * (sim/rdma/testbed_bottleneck.h), DCQCN on with its default parameters, flow 2 joining
 * 2 ms after flow 1: how fast and how tightly the two reach the fair share. The
 * bottleneck is the fabric's switch (shared buffer, RED at its egress as frames leave)
 * or the testbed's RED relay (marking as frames enter the bottleneck wire).
 *
 * Each flow's goodput is counted per 1 ms window (completed WRITEs); the 10 % test
 * judges averages over `avg` consecutive windows, since a 1 ms window holds only ~40
 * WRITEs of 64 KiB at 20 Gb/s (one WRITE more or less is 2.6 % of the fair share). */
#ifndef SIM_INCAST_CONVERGENCE_H
#define SIM_INCAST_CONVERGENCE_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/rdma/testbed_bottleneck.h"

typedef struct incast_conv_config {
	uint64_t rate_bps; /* the bottleneck's and the senders' access rate */
	uint32_t ms;       /* run length, 10..4000 ms */
	uint32_t avg;      /* windows averaged for the 10 % test, 1..100 */
	uint64_t seed;
	bool relay; /* the RED relay instead of the switch */
} incast_conv_config;

typedef struct incast_conv_result {
	bottleneck_result run; /* per-window bytes and the fabric's counters */
	uint32_t join_ms;      /* flow 2 starts here */
	double fair_gbps;
	/* ms after the join: the first averaged window with both flows within 10 % of the
	 * fair share, and the one from which every later one is (UINT32_MAX: never) */
	uint32_t first_within, stays_within;
	double within_share; /* of the averaged windows from first_within on, the share within */
	double worst_dev;    /* the largest |rate - fair| / fair of a flow from first_within on */
	double tail_gbps[2]; /* each flow's mean over the last quarter of the run */
} incast_conv_result;

void incast_conv_default(incast_conv_config *c);
/* 0, or -1 with err set (the testbed could not be built). */
int incast_conv_run(const incast_conv_config *c, incast_conv_result *r, char *err, size_t errlen);
/* Gb/s of flow f averaged over the `avg` windows ending with window w (w + 1 >= avg). */
double incast_conv_gbps(const incast_conv_result *r, unsigned f, size_t w, uint32_t avg);

#endif
