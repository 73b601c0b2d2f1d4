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

#endif
