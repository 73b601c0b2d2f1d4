/* bench verbs: RDMA WRITE throughput through smcr_transport_ops on a real device, in the
 * shape of perftest's ib_write_bw (one buffer of size bytes written iters times, up to
 * tx-depth WRs in flight, one signaled completion every cq-mod WRs), and, when perftest is
 * installed, ib_write_bw itself on the same device pair after each run.
 *
 * The two QPs live in two contexts of one device (dev) or of two devices (dev2), in this
 * process. Completions arrive through the completion channel and the real-time driver's
 * GLib loop (what --real-hw runs use), or with busy polling as ib_write_bw does. Without
 * the device it stops at once and says how to create one. */
#ifndef SIM_BENCH_VERBS_BENCH_H
#define SIM_BENCH_VERBS_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct verbs_bench_config {
	const char *dev_a, *dev_b; /* writer and target */
	int port;
	int64_t size, iters, depth, cq_mod, repeat;
	bool busy_poll;
	bool compare; /* run ib_write_bw too, when installed */
	FILE *log;    /* ib_write_bw's troubles */
	/* after each run k (from 1): its MiB/s, and ib_write_bw's when it ran (0: no result) */
	void (*on_run)(void *ctx, int64_t k, double mib, bool have_ref, double ref_mib);
	void *ctx;
} verbs_bench_config;

typedef struct verbs_bench_result {
	double best, best_ref; /* MiB/s */
	bool have_ref_tool;    /* ib_write_bw was found */
} verbs_bench_result;

typedef struct verbs_bench verbs_bench;

/* Open both devices, register the buffers, connect the QPs. NULL with the reason in err. */
verbs_bench *verbs_bench_open(const verbs_bench_config *c, char *err, size_t errlen);
/* The alternating runs. 0, or 1 with the reason in err (a failed or stuck write). */
int verbs_bench_run(verbs_bench *b, verbs_bench_result *r, char *err, size_t errlen);
void verbs_bench_close(verbs_bench *b);

#endif
