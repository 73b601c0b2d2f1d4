/* bench protocol: the whole protocol path at speed. Two stacks, one SMC-R link group,
 * N connections streaming over the simulated fabric: applications write the seeded
 * pattern into SMC-R sockets, the cores move it with RDMA WRITEs and CDC messages through
 * simulated RNICs, wires and a switch, and the sink checks every byte. Built from a
 * scenario (sim/world/world.h), so it measures exactly what `smcr-sim run` runs. */
#ifndef SIM_BENCH_PROTOCOL_BENCH_H
#define SIM_BENCH_PROTOCOL_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct protocol_bench_config {
	unsigned conns;   /* connections in the link group */
	uint64_t bytes;   /* per connection */
	unsigned mtu;     /* RoCE MTU */
	uint64_t rmb;     /* RMB and send buffer size */
	unsigned reps;    /* repetitions; the fastest is kept */
	FILE *log;        /* scenario diagnostics and failed expectations */
} protocol_bench_config;

typedef struct protocol_bench_result {
	double wall;           /* seconds, the fastest run */
	uint64_t events, fingerprint, core_entries;
	uint64_t failed;       /* expectations that failed (one link group, one link, all bytes) */
	uint64_t virtual_ns;   /* the run's end in virtual time */
	uint64_t payload;      /* bytes * conns */
} protocol_bench_result;

/* 0 when it ran (failed tells how), 2 when the scenario does not load (diagnostics on
 * log, err empty) or the world cannot be built (err). */
int protocol_bench_run(const protocol_bench_config *c, protocol_bench_result *r, char *err, size_t errlen);

#endif
