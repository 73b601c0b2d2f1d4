/* bench realhw: the payload throughput of one SMC-R connection whose QPs are real, and,
 * when perftest is installed, ib_write_bw on the same device pair, side by side.
 *
 * Two ways to run the connection:
 *   one    the world of `smcr-sim run --real-hw`: two simulated stacks in this process,
 *          CLC over simulated TCP, the SMC-R core on libibverbs, one real-time engine in
 *          one thread (sender, receiver, CDC handling and the check share a CPU). The
 *          connection is a scenario `bulk` of the bytes to a `sink` that checks each one.
 *   split  two processes, as ib_write_bw runs (realhw_split.h).
 * Either way the time runs from the application's connect (the CLC handshake done) to its
 * close (all data written, read and checked, the peer's close seen). Runs alternate with
 * ib_write_bw (one QP, size-byte writes, tx-depth 128, as perftest does by default) and
 * the best of each is kept: on a loaded or emulated host one run is noise. */
#ifndef SIM_BENCH_REALHW_BENCH_H
#define SIM_BENCH_REALHW_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* What a run has done so far, for a progress line. */
typedef enum realhw_bench_step {
	REALHW_BENCH_RUN,   /* run k begins */
	REALHW_BENCH_ONE,   /* the one-process connection: mib, < 0 failed (the run stops) */
	REALHW_BENCH_SPLIT, /* the two-process connection: mib, < 0 failed (the run stops) */
	REALHW_BENCH_REF,   /* ib_write_bw: mib, 0 no result */
	REALHW_BENCH_DONE,  /* run k is over */
} realhw_bench_step;

typedef struct realhw_bench_config {
	const char *dev_a, *dev_b; /* the sending and the receiving stack's device */
	int port;
	uint64_t bytes, rmb, sndbuf;
	int64_t size; /* ib_write_bw: bytes per RDMA WRITE */
	int64_t repeat;
	bool one, split;   /* the ways to run the connection */
	uint16_t tcp_port; /* split: the nodes' CLC port */
	bool compare;      /* run ib_write_bw too, when installed */
	FILE *log;         /* scenario diagnostics, failed expectations, failures */
	void (*on_step)(void *ctx, realhw_bench_step step, int64_t k, double mib);
	void *ctx;
} realhw_bench_config;

typedef struct realhw_bench_result {
	double best_one, best_split, best_ref; /* MiB/s */
	bool have_ref_tool;                    /* ib_write_bw was found */
} realhw_bench_result;

typedef struct realhw_bench realhw_bench;

/* The scenario and the PFID map of the one-process run. NULL when they do not load: err
 * says why, or is empty when the scenario's diagnostics went to log. */
realhw_bench *realhw_bench_open(const realhw_bench_config *c, char *err, size_t errlen);
/* The alternating runs: 0, or 1 when a connection failed. */
int realhw_bench_run(realhw_bench *b, realhw_bench_result *r);
void realhw_bench_close(realhw_bench *b);

#endif
