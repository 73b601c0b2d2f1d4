/* bench stacks: many pairs of virtual TCP/IP stacks in one run. Each pair is joined by a
 * point-to-point cable (bench_cable.h); the client runs request/response transactions
 * against an echo server, every byte checked, then closes. Optionally one extra pair
 * moves a bulk transfer. Each run has the same fingerprint. */
#ifndef SIM_BENCH_STACKS_BENCH_H
#define SIM_BENCH_STACKS_BENCH_H

#include <stddef.h>
#include <stdint.h>

typedef struct stacks_bench_config {
	uint64_t pairs;
	uint64_t requests; /* transactions per pair */
	uint32_t size;     /* request and response bytes */
	uint64_t bulk_mib; /* 0: no bulk pair */
	uint64_t seed;
	uint64_t repeat; /* runs; the fastest is kept */
} stacks_bench_config;

typedef struct stacks_bench_result {
	double wall; /* seconds, the fastest run */
	uint64_t events, frames, fingerprint;
	uint64_t verified;   /* pairs whose transactions all completed intact */
	uint64_t bulk_bytes; /* the bulk pair's bytes, when complete and intact */
	uint64_t rss;        /* peak RSS after the run */
	uint64_t stacks;     /* stacks per run */
} stacks_bench_result;

/* 0, or 1 with the reason in err. The caller judges verified and bulk_bytes. */
int stacks_bench_run(const stacks_bench_config *c, stacks_bench_result *r, char *err, size_t errlen);

#endif
