/* bench fabric: RDMA WRITEs between two simulated adapters over one switch (the testbed,
 * sim/testbed/testbed.h), every frame really built (headers, payload copy, ICRC), carried
 * over two wires and a switch, parsed, ICRC-checked and placed into the target region.
 * Measures simulated packets and payload bytes per wall second; each run has the same
 * fingerprint. */
#ifndef SIM_BENCH_FABRIC_BENCH_H
#define SIM_BENCH_FABRIC_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "model/smcr_transport.h"
#include "sim/fabric/roce.h"

typedef struct fabric_bench_config {
	roce_version version;
	smcr_mtu path_mtu;
	uint32_t msg;         /* bytes per RDMA WRITE */
	uint64_t total_mib;   /* MiB written per run */
	uint32_t outstanding; /* writes in flight */
	uint64_t gbps;        /* simulated link speed */
	uint64_t seed;
	uint64_t repeat; /* runs; the best is kept */
} fabric_bench_config;

typedef struct fabric_bench_result {
	uint64_t writes;          /* per run */
	double best_payload_rate; /* bytes per wall second, best run */
	double best_packet_rate;  /* packets per wall second in that run */
	uint64_t packets, acks, payload, events, frame_buffers;
	double sim_gbps; /* payload over virtual time */
	uint64_t fingerprint;
} fabric_bench_result;

/* 0, or 1 with the reason in err (the testbed, a failed transfer, a fingerprint that
 * differs between runs). */
int fabric_bench_run(const fabric_bench_config *c, fabric_bench_result *r, char *err, size_t errlen);

#endif
