/* Benchmarks: `smcr-sim bench NAME`. Each prints its figures; none is a pass/fail test. */
#ifndef SMCR_BENCH_H
#define SMCR_BENCH_H

#include <stdint.h>

/* Each is a cli_command (tools/cli.h) of tools/cmd_bench.c's table. */
/* Wall-clock helpers for benchmarks only (the simulated path never reads a clock). */
double bench_wall_seconds(void);
/* Peak resident set size of this process in bytes (getrusage). */
uint64_t bench_peak_rss(void);

int bench_scheduler(int argc, char **argv);
int bench_fabric(int argc, char **argv);
int bench_stacks(int argc, char **argv);
int bench_protocol(int argc, char **argv);
int bench_verbs(int argc, char **argv);
int bench_replay(int argc, char **argv);
int bench_core(int argc, char **argv);
int bench_realhw(int argc, char **argv);

/* perftest's ib_write_bw between two devices of this host (server on dev2, client on dev,
 * TCP rendezvous on 127.0.0.1): its average MiB/s, 0 if it gave no result. */
double bench_ib_write_bw(const char *prog, const char *dev, const char *dev2, int port, int gid_a, int gid_b,
                         int64_t size, int64_t iters, int64_t depth);

#endif
