/* bench core: two SMC-R cores (model/) alone, over the in-memory RC loopback on the event
 * engine (sim/rdma/loopback_transport.h, 1 us per message, no serialisation time), CLC
 * over an in-memory pipe: one link group, N connections streaming from one core to the
 * other, the handshakes first (one after the other), then the data phase, timed. Counts
 * protocol events (completions, timer expiries and socket calls that enter a core) and
 * payload bytes; with verify, byte sums of what was sent and what arrived. */
#ifndef SIM_BENCH_CORE_BENCH_H
#define SIM_BENCH_CORE_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CORE_BENCH_MAX_CONNS 250

typedef struct core_bench_config {
	uint32_t conns;      /* 1..CORE_BENCH_MAX_CONNS */
	uint64_t mib;        /* MiB each connection sends */
	uint64_t buffer_kib; /* RMB and send buffer size in KiB */
	size_t chunk;        /* bytes per send/recv call */
	uint64_t seed;
	bool verify;
	FILE *log; /* a connection that falls back is said here */
} core_bench_config;

typedef struct core_bench_result {
	uint64_t delivered, total;   /* payload bytes */
	double wall;                 /* seconds of the data phase */
	uint64_t simulated_ns;       /* virtual time of the data phase */
	uint64_t core_calls, events; /* in the data phase */
	uint32_t n_bad;              /* verify: connections whose byte sums differ */
	uint16_t bad[CORE_BENCH_MAX_CONNS];
} core_bench_result;

/* 0 when the data phase ran (delivered < total: it stopped short), 1 with the reason in
 * err when a core cannot be created or a handshake failed. */
int core_bench_run(const core_bench_config *c, core_bench_result *r, char *err, size_t errlen);

#endif
