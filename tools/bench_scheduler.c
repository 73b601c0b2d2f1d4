/* bench scheduler: the ns-3 bench-scheduler shape. A population of pending events is
 * kept constant: every executed event schedules one new event after an exponentially
 * distributed gap (mean 100 ns by default), until the total is reached. The published
 * ns-3 figure for its default scheduler is about 1.4 M events/s. */
#include <glib.h>
#include <stdio.h>

#include "sim/engine/engine.h"
#include "tools/bench.h"
#include "tools/cli.h"

typedef struct sched_bench {
	sim_rng rng;
	uint64_t mean;
	uint64_t to_schedule;
	uint32_t kind;
} sched_bench;

static void on_event(sim_engine *eng, sim_event *ev)
{
	sched_bench *b = ev->ctx;
	if (b->to_schedule == 0)
		return;
	b->to_schedule--;
	sim_post(eng, sim_now(eng) + sim_rng_exp(&b->rng, b->mean), b->kind, ev->entity, on_event, b, 0);
}

int bench_scheduler(int argc, char **argv)
{
	gint64 population = 100000, total = 1000000, mean = 100, seed = 1, repeat = 3;
	GOptionEntry entries[] = {
		{ "population", 'p', 0, G_OPTION_ARG_INT64, &population, "pending events kept in the queue (100000)", "N" },
		{ "total", 't', 0, G_OPTION_ARG_INT64, &total, "events executed in total (1000000)", "N" },
		{ "mean", 'm', 0, G_OPTION_ARG_INT64, &mean, "mean inter-event gap in ns (100)", "NS" },
		{ "seed", 's', 0, G_OPTION_ARG_INT64, &seed, "random seed (1)", "N" },
		{ "repeat", 'r', 0, G_OPTION_ARG_INT64, &repeat, "runs; the best is reported (3)", "N" },
		{ NULL },
	};
	cli_options opts = { .params = "- event engine throughput", .entries = entries };
	if (cli_parse_options(&opts, &argc, &argv))
		return 2;
	if (argc > 1) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", argv[0], argv[1]);
		return 2;
	}
	if (population <= 0 || total < population || mean <= 0 || repeat <= 0) {
		fprintf(stderr, "%s: need population > 0, total >= population, mean > 0, repeat > 0\n", argv[0]);
		return 2;
	}

	double best = 0;
	uint64_t fp = 0, mem = 0;
	for (gint64 r = 0; r < repeat; r++) {
		sim_engine *eng = sim_engine_new((uint64_t)seed);
		sched_bench b = { .mean = (uint64_t)mean, .to_schedule = (uint64_t)(total - population),
		                  .kind = sim_kind("bench.event") };
		sim_engine_rng(eng, "bench.scheduler", 0, &b.rng);
		double t0 = bench_wall_seconds();
		for (gint64 i = 0; i < population; i++)
			sim_post(eng, sim_rng_exp(&b.rng, b.mean), b.kind, (uint64_t)i, on_event, &b, 0);
		sim_engine_run(eng, SIM_TIME_NEVER, 0);
		double dt = bench_wall_seconds() - t0;
		double rate = (double)sim_engine_events_run(eng) / dt;
		if (rate > best)
			best = rate;
		if (r == 0) {
			fp = sim_engine_fingerprint(eng);
			mem = sim_engine_memory(eng);
		} else if (fp != sim_engine_fingerprint(eng)) {
			fprintf(stderr, "%s: fingerprint differs between runs (determinism bug)\n", argv[0]);
			sim_engine_free(eng);
			return 1;
		}
		sim_engine_free(eng);
	}
	printf("bench scheduler: population %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT " events, mean gap %" G_GINT64_FORMAT " ns, seed %" G_GINT64_FORMAT "\n",
	       population, total, mean, seed);
	printf("  events/s (best of %" G_GINT64_FORMAT "):  %.2f M\n", repeat, best / 1e6);
	printf("  engine memory:          %.1f MiB\n", (double)mem / (1024.0 * 1024.0));
	printf("  peak RSS (process):     %.1f MiB\n", (double)bench_peak_rss() / (1024.0 * 1024.0));
	printf("  fingerprint:            %016" G_GINT64_MODIFIER "x\n", fp);
	printf("  reference: ns-3 default scheduler ~1.4 M events/s (published); target >= 10 M\n");
	return 0;
}
