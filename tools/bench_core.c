/* `smcr-sim bench core`: options and figures of the protocol core benchmark
 * (sim/bench/core_bench.h): protocol events and payload bytes per wall second. */
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>

#include "sim/bench/bench_measure.h"
#include "sim/bench/core_bench.h"
#include "tools/bench.h"
#include "tools/cli.h"

static void print_result(const core_bench_config *c, const core_bench_result *r)
{
	printf("bench core: %" PRIu32 " connections x %" PRIu64 " MiB, buffers %" PRIu64 " KiB, 1 link group\n", c->conns,
	       c->mib, c->buffer_kib);
	printf("  payload delivered:      %.1f MiB of %.1f MiB in %.3f s wall (%.3f ms simulated)\n",
	       (double)r->delivered / 1048576.0, (double)r->total / 1048576.0, r->wall, (double)r->simulated_ns / 1e6);
	printf("  payload bytes/s:        %.2f GB/s\n", (double)r->delivered / r->wall / 1e9);
	printf("  protocol events/s:      %.2f M (core entries: completions, timers, socket calls)\n",
	       (double)r->core_calls / r->wall / 1e6);
	printf("  engine events/s:        %.2f M\n", (double)r->events / r->wall / 1e6);
	printf("  link groups:            %d\n", 1);
	printf("  peak RSS (process):     %.1f MiB\n", (double)bench_peak_rss() / (1024.0 * 1024.0));
	printf("  targets: >= 2 M protocol events/s, >= 2 GB/s\n");
}

/* The run's verdict, its failures on stderr: 0, or 1 when something did not arrive. */
static int verdict(const char *prog, const core_bench_config *c, const core_bench_result *r)
{
	int rc = r->delivered >= r->total ? 0 : 1;
	if (rc)
		fprintf(stderr, "%s: transfer did not complete\n", prog);
	for (uint32_t i = 0; i < r->n_bad; i++)
		fprintf(stderr, "%s: connection %u: byte sums differ\n", prog, (unsigned)r->bad[i]);
	if (r->n_bad)
		rc = 1;
	if (c->verify)
		printf("  content check:          %s\n", rc ? "FAILED" : "byte sums match on every connection");
	return rc;
}

int bench_core(int argc, char **argv)
{
	gint64 conns = 64, mib = 16, bufkib = 64, chunk = 65536, seed = 1;
	gboolean verify = FALSE;
	GOptionEntry entries[] = {
		{ "conns", 'c', 0, G_OPTION_ARG_INT64, &conns, "connections streaming (64)", "N" },
		{ "mib", 'm', 0, G_OPTION_ARG_INT64, &mib, "MiB each connection sends (16)", "N" },
		{ "buffer", 'b', 0, G_OPTION_ARG_INT64, &bufkib, "RMB and send buffer size in KiB (64)", "KIB" },
		{ "chunk", 'k', 0, G_OPTION_ARG_INT64, &chunk, "bytes per send/recv call (65536)", "N" },
		{ "seed", 's', 0, G_OPTION_ARG_INT64, &seed, "random seed (1)", "N" },
		{ "verify", 'v', 0, G_OPTION_ARG_NONE, &verify, "check the content (byte sums; slows the run down)", NULL },
		{ NULL },
	};
	cli_options opts = { .params = "- SMC-R protocol core throughput", .entries = entries };
	if (cli_parse_options(&opts, &argc, &argv))
		return 2;
	if (argc > 1 || conns < 1 || conns > CORE_BENCH_MAX_CONNS || mib < 1 || bufkib < 16 || chunk < 1) {
		fprintf(stderr, "%s: need 1 <= conns <= 250, mib >= 1, buffer >= 16, chunk >= 1\n", argv[0]);
		return 2;
	}
	core_bench_config c = { .conns = (uint32_t)conns, .mib = (uint64_t)mib, .buffer_kib = (uint64_t)bufkib,
	                        .chunk = (size_t)chunk, .seed = (uint64_t)seed, .verify = verify, .log = stderr };
	core_bench_result r;
	char err[256];
	if (core_bench_run(&c, &r, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", argv[0], err);
		return 1;
	}
	print_result(&c, &r);
	return verdict(argv[0], &c, &r);
}
