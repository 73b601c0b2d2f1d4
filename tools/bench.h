/* Benchmarks: `smcr-sim bench NAME`. Each prints its figures; none is a pass/fail test.
 * The harnesses (what builds, drives and measures) are in sim/bench/; each of these is
 * the options and the figures of one, a cli_command of tools/cmd_bench.c's table. */
#ifndef SMCR_BENCH_H
#define SMCR_BENCH_H

int bench_scheduler(int argc, char **argv);
int bench_fabric(int argc, char **argv);
int bench_incast(int argc, char **argv);
int bench_stacks(int argc, char **argv);
int bench_protocol(int argc, char **argv);
int bench_verbs(int argc, char **argv);
int bench_replay(int argc, char **argv);
int bench_core(int argc, char **argv);
int bench_realhw(int argc, char **argv);
int bench_scale(int argc, char **argv);
int bench_tcp(int argc, char **argv);

/* The machine-readable line of a benchmark that has a peer (docs/benchmarks.md):
 *   result: work=WORK who=WHO wall_s=SECONDS rate=RATE unit=UNIT cpu_s=SECONDS [KEY=VALUE…]
 * one line per measured work (rate is per wall second), the extra KEY=VALUE pairs from
 * extra_fmt (printf). The ns-3 programs of bench/peers/ print the same form. */
void bench_result_line(const char *work, const char *who, double wall_s, double cpu_s, double rate, const char *unit,
                       const char *extra_fmt, ...) __attribute__((format(printf, 7, 8)));

#endif
