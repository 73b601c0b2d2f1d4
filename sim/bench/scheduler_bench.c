/* The event engine's throughput in the ns-3 bench-scheduler shape (see scheduler_bench.h). */
#include "sim/bench/scheduler_bench.h"

#include <stdio.h>

#include "sim/engine/bench_measure.h"
#include "sim/engine/engine.h"

typedef struct sched_run {
	sim_rng rng;
	uint64_t mean;
	uint64_t to_schedule;
	uint32_t kind;
} sched_run;

static void on_event(sim_engine *eng, sim_event *ev)
{
	sched_run *b = ev->ctx;
	if (b->to_schedule == 0)
		return;
	b->to_schedule--;
	/* ev->at: the time it runs, i.e. now */
	sim_post(eng, ev->at + sim_rng_exp(&b->rng, b->mean), b->kind, ev->entity, on_event, b, 0);
}

/* One run on a new engine, returned for its figures; *wall and *cpu in seconds. */
static sim_engine *one_run(const scheduler_bench_config *c, double *wall, double *cpu)
{
	sim_engine *eng = sim_engine_new(c->seed);
	sched_run b = { .mean = c->mean_ns, .to_schedule = c->total - c->population, .kind = sim_kind("bench.event") };
	sim_engine_rng(eng, "bench.scheduler", 0, &b.rng);
	double t0 = bench_wall_seconds(), c0 = bench_cpu_seconds();
	for (uint64_t i = 0; i < c->population; i++)
		sim_post(eng, sim_rng_exp(&b.rng, b.mean), b.kind, i, on_event, &b, 0);
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
	*wall = bench_wall_seconds() - t0;
	*cpu = bench_cpu_seconds() - c0;
	return eng;
}

int scheduler_bench_run(const scheduler_bench_config *c, scheduler_bench_result *r, char *err, size_t errlen)
{
	*r = (scheduler_bench_result){ 0 };
	for (uint64_t k = 0; k < c->repeat; k++) {
		double wall, cpu;
		sim_engine *eng = one_run(c, &wall, &cpu);
		double rate = (double)sim_engine_events_run(eng) / wall;
		if (rate > r->best_rate) {
			r->best_rate = rate;
			r->best_wall = wall;
			r->best_cpu = cpu;
			r->events = sim_engine_events_run(eng);
		}
		bool differs = k && r->fingerprint != sim_engine_fingerprint(eng);
		if (k == 0) {
			r->fingerprint = sim_engine_fingerprint(eng);
			r->engine_memory = sim_engine_memory(eng);
		}
		sim_engine_free(eng);
		if (differs) {
			snprintf(err, errlen, "fingerprint differs between runs (determinism bug)");
			return 1;
		}
	}
	return 0;
}
