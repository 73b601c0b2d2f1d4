/* What the benchmarks measure besides their own counters: wall time (through the
 * real-time driver, the one clock reader), the process's CPU time and peak memory. */
#ifndef SIM_ENGINE_BENCH_MEASURE_H
#define SIM_ENGINE_BENCH_MEASURE_H

#include <stdint.h>

/* Wall-clock seconds from an arbitrary origin (the simulated path never reads a clock). */
double bench_wall_seconds(void);
/* CPU seconds (user + system) this process has used: on a shared machine, a figure less
 * disturbed by other processes than wall time (getrusage). */
double bench_cpu_seconds(void);
/* Peak resident set size of this process in bytes (getrusage). */
uint64_t bench_peak_rss(void);

#endif
