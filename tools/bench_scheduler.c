/* `smcr-sim bench scheduler`: options and figures of the event engine benchmark
 * (sim/bench/scheduler_bench.h). The published ns-3 figure for its default scheduler is
 * about 1.4 M events/s; bench/peers/ns3-scheduler.cc runs the same shape in ns-3 here. */
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>

#include "sim/engine/bench_measure.h"
#include "sim/bench/scheduler_bench.h"
#include "tools/bench.h"
#include "tools/cli.h"

static void print_result(const scheduler_bench_config *c, const scheduler_bench_result *r)
{
	printf("bench scheduler: population %" PRIu64 ", %" PRIu64 " events, mean gap %" PRIu64 " ns, seed %" PRId64 "\n",
	       c->population, c->total, c->mean_ns, (int64_t)c->seed);
	printf("  events/s (best of %" PRIu64 "):  %.2f M\n", c->repeat, r->best_rate / 1e6);
	printf("  engine memory:          %.1f MiB\n", (double)r->engine_memory / (1024.0 * 1024.0));
	printf("  peak RSS (process):     %.1f MiB\n", (double)bench_peak_rss() / (1024.0 * 1024.0));
	printf("  fingerprint:            %016" PRIx64 "\n", r->fingerprint);
	printf("  reference: ns-3 default scheduler ~1.4 M events/s (published); target >= 10 M\n");
	printf("  measured beside ns-3's schedulers: make bench-peers (docs/benchmarks.md)\n");
	bench_result_line("scheduler", "smcr-sim", r->best_wall, r->best_cpu, r->best_rate, "events/s",
	                  "population=%" PRIu64 " events=%" PRIu64, c->population, r->events);
}

int bench_scheduler(int argc, char **argv)
{
	gint64 population = 100000, total = 1000000, seed = 1, repeat = 3;
	gchar *mean_s = NULL;
	GOptionEntry entries[] = {
		{ "population", 'p', 0, G_OPTION_ARG_INT64, &population, "pending events kept in the queue (100000)", "N" },
		{ "total", 't', 0, G_OPTION_ARG_INT64, &total, "events executed in total (1000000)", "N" },
		{ "mean", 'm', 0, G_OPTION_ARG_STRING, &mean_s, "mean inter-event gap (100ns; a bare number is ns)", "TIME" },
		{ "seed", 's', 0, G_OPTION_ARG_INT64, &seed, "random seed (1)", "N" },
		{ "repeat", 'r', 0, G_OPTION_ARG_INT64, &repeat, "runs; the best is reported (3)", "N" },
		{ NULL },
	};
	cli_options opts = { .params = "- event engine throughput", .entries = entries };
	unsigned long long mean = 100;
	char derr[128];
	int rc = cli_parse_options(&opts, &argc, &argv);
	bool bad_mean = mean_s && cli_parse_duration(mean_s, &mean, derr, sizeof(derr));
	g_free(mean_s);
	if (rc)
		return rc;
	if (argc > 1) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", argv[0], argv[1]);
		return 2;
	}
	if (population <= 0 || total < population || bad_mean || mean == 0 || repeat <= 0) {
		fprintf(stderr, "%s: need population > 0, total >= population, mean > 0, repeat > 0\n", argv[0]);
		return 2;
	}
	scheduler_bench_config c = { (uint64_t)population, (uint64_t)total, (uint64_t)mean, (uint64_t)seed,
		                     (uint64_t)repeat };
	scheduler_bench_result r;
	char err[256];
	if (scheduler_bench_run(&c, &r, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", argv[0], err);
		return 1;
	}
	print_result(&c, &r);
	return 0;
}
