/* bench scheduler: the ns-3 bench-scheduler shape. A population of pending events is
 * kept constant: every executed event schedules one new event after an exponentially
 * distributed gap, until the total is reached. Each run has the same fingerprint (a run
 * that differs is a determinism bug). */
#ifndef SIM_BENCH_SCHEDULER_BENCH_H
#define SIM_BENCH_SCHEDULER_BENCH_H

#include <stddef.h>
#include <stdint.h>

typedef struct scheduler_bench_config {
	uint64_t population; /* pending events kept in the queue */
	uint64_t total;      /* events executed in total (>= population) */
	uint64_t mean_ns;    /* mean inter-event gap */
	uint64_t seed;
	uint64_t repeat; /* runs; the best rate is kept */
} scheduler_bench_config;

typedef struct scheduler_bench_result {
	double best_rate;       /* events per wall second, best run */
	double best_wall;       /* that run's wall seconds (insertion of the population and the run) */
	double best_cpu;        /* its CPU seconds */
	uint64_t events;        /* events a run executes (= total) */
	uint64_t fingerprint;   /* the engine's, the same for every run */
	uint64_t engine_memory; /* bytes, first run */
} scheduler_bench_result;

/* 0, or 1 with the reason in err. */
int scheduler_bench_run(const scheduler_bench_config *c, scheduler_bench_result *r, char *err, size_t errlen);

#endif
