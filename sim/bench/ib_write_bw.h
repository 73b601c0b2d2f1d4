/* perftest's ib_write_bw between two devices of this host, the reference the real-device
 * benchmarks print beside their own figures: the server on dev2 in the background, the
 * client on dev in front, their TCP rendezvous on 127.0.0.1. */
#ifndef SIM_BENCH_IB_WRITE_BW_H
#define SIM_BENCH_IB_WRITE_BW_H

#include <stdint.h>
#include <stdio.h>

typedef struct ib_write_bw_params {
	const char *prog; /* the ib_write_bw executable */
	const char *dev, *dev2;
	int port;
	int gid_a, gid_b; /* GID indexes (-x) on dev and dev2 */
	int64_t size, iters, depth;
} ib_write_bw_params;

/* Its average MiB/s (perftest's MB is 2^20 bytes), 0 if it gave no result (why on log). */
double ib_write_bw_run(const ib_write_bw_params *p, FILE *log);

/* The GID index of a device port's first IPv4-mapped RoCE v2 GID, or -1. */
int ib_write_bw_gid_index(const char *dev, int port);

#endif
