/* bench protocol: the whole protocol path at speed. Two stacks, one SMC-R link group,
 * N connections over the simulated fabric: applications write the seeded pattern into
 * SMC-R sockets, the cores move it with RDMA WRITEs and CDC messages through simulated
 * RNICs, wires and a switch, and the receivers check every byte. Two works:
 *   bulk  each connection streams `bytes` to a sink;
 *   rr    each connection runs `count` request/response transactions of `size` bytes
 *         against a responder.
 * With smc false the same scenario runs over plain TCP (smc=no on both apps: the stacks'
 * interfaces, wires and switch carry it), the peer the rr figures are set beside. Built
 * from a scenario (sim/world/world.h), so it measures exactly what `smcr-sim run` runs. */
#ifndef SIM_BENCH_PROTOCOL_BENCH_H
#define SIM_BENCH_PROTOCOL_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum protocol_bench_mode {
	PROTOCOL_BENCH_BULK,
	PROTOCOL_BENCH_RR,
} protocol_bench_mode;

typedef struct protocol_bench_config {
	protocol_bench_mode mode;
	bool smc;       /* false: the same apps over plain TCP */
	unsigned conns; /* connections in the link group */
	uint64_t bytes; /* bulk: per connection */
	uint64_t count; /* rr: transactions per connection */
	uint64_t size;  /* rr: request and response bytes */
	unsigned mtu;   /* RoCE MTU */
	uint64_t rmb;   /* RMB and send buffer size */
	unsigned reps;  /* repetitions; the fastest is kept */
	const char *host; /* the stacks' host profile (sim/host): "none", "linux", "zos"; NULL: linux */
	FILE *log;      /* scenario diagnostics and failed expectations */
} protocol_bench_config;

typedef struct protocol_bench_result {
	double wall; /* seconds, the fastest run */
	double cpu;  /* its CPU seconds */
	uint64_t events, fingerprint, core_entries;
	uint64_t failed;       /* expectations that failed (one link group, one link, all bytes) */
	uint64_t virtual_ns;   /* the run's end in virtual time */
	uint64_t payload;      /* bulk: bytes * conns; rr: request bytes of all transactions */
	uint64_t transactions; /* rr: responses received (conns * count when expectations are met) */
} protocol_bench_result;

/* 0 when it ran (failed tells how), 2 when the scenario does not load (diagnostics on
 * log, err empty) or the world cannot be built (err). */
int protocol_bench_run(const protocol_bench_config *c, protocol_bench_result *r, char *err, size_t errlen);

#endif
