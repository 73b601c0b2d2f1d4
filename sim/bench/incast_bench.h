/* `smcr-sim bench incast`: N Linux stacks each move DATA over SMC-Rv2 to one receiver
 * through one switch (the shape of scenarios/incast-*.scn), with the fabric lossy (a
 * buffer, no PFC, no ECN), PFC only, or ECN with DCQCN (and PFC as the backstop). It
 * measures what planners ask of an incast: per-flow goodput and its fairness (Jain's
 * index), the bottleneck queue's depth percentiles, pauses and drops, and the
 * simulator's speed in switch frames per wall second. */
#ifndef SIM_INCAST_BENCH_H
#define SIM_INCAST_BENCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef enum incast_mode {
	INCAST_NONE = 0,
	INCAST_PFC = 1,
	INCAST_ECN_DCQCN = 2,
} incast_mode;

typedef struct incast_bench_config {
	uint32_t senders; /* 1..64 */
	uint64_t bytes;   /* per sender */
	incast_mode mode;
	uint64_t seed;
	FILE *log; /* failed expectations, scenario errors */
} incast_bench_config;

typedef struct incast_bench_result {
	uint64_t failed;                          /* expectations that failed */
	double wall;                              /* seconds */
	uint64_t virtual_ns;                      /* first connect to last close */
	double goodput_gbps;                      /* all flows' bytes over the span */
	double min_gbps, max_gbps, jain;          /* per flow: bytes over its own span */
	uint64_t depth_p50, depth_p99, depth_max; /* the bottleneck egress queue, bytes */
	uint64_t pauses, pause_rx, drops, headroom_drops, ecn_marks;
	uint64_t cnp_tx, tx_held; /* from the adapters */
	uint64_t frames;          /* frames the switch forwarded */
	uint64_t events;
	uint64_t fingerprint;
} incast_bench_result;

/* The scenario text of a configuration (g_free it). */
char *incast_bench_scenario(const incast_bench_config *c);
/* 0, or 2 with err set when the scenario cannot be built. */
int incast_bench_run(const incast_bench_config *c, incast_bench_result *r, char *err, size_t errlen);
const char *incast_mode_name(incast_mode m);

#endif
