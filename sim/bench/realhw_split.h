/* The two-process way of bench realhw, as ib_write_bw runs: a `smcr-sim node` server
 * (sim/node/node.h) on the receiving device that reads and checks every byte, and a node
 * client on the sending device that writes them, each in a child process, CLC over kernel
 * TCP on 127.0.0.1. Timed by the client: from its connect to its close (after the
 * server's close, which follows the server's check of the last byte). */
#ifndef SIM_BENCH_REALHW_SPLIT_H
#define SIM_BENCH_REALHW_SPLIT_H

#include <stdint.h>
#include <stdio.h>

typedef struct realhw_split_params {
	const char *dev_a, *dev_b; /* the client's (sending) and the server's device */
	int port;
	uint64_t bytes, rmb, sndbuf;
	uint16_t tcp_port;
	uint64_t seed; /* the server's; the client's is seed + 1 */
} realhw_split_params;

/* MiB/s of payload, or < 0 on failure (why on log; a child says its own there). */
double realhw_split_run(const realhw_split_params *p, FILE *log);

#endif
