/* `smcr-sim bench core`: options and figures of the protocol core benchmark
 * (sim/bench/core_bench.h): protocol events and payload bytes per wall second. */
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>

#include "sim/engine/bench_measure.h"
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

/* The sizes: --bytes (or the old --mib, a bare number MiB), --buffer (a bare number KiB,
 * as before it took units), --chunk; 0 or -1. */
static int sizes(const char *bytes, const char *mib, const char *buffer, const char *chunk, core_bench_config *c)
{
	uint64_t total = 16ull << 20, buf = 64ull << 10, ch = 65536;
	if ((bytes && cli_parse_size(bytes, 1, &total)) || (!bytes && mib && cli_parse_size(mib, 1ull << 20, &total)) ||
	    (buffer && cli_parse_size(buffer, 1ull << 10, &buf)) || (chunk && cli_parse_size(chunk, 1, &ch)))
		return -1;
	/* the harness counts whole MiB per connection and KiB of buffer */
	if (total < (1ull << 20) || total % (1ull << 20) || buf < 16384 || buf % 1024 || ch < 1 || ch > (1ull << 30))
		return -1;
	c->mib = total >> 20;
	c->buffer_kib = buf >> 10;
	c->chunk = (size_t)ch;
	return 0;
}

int bench_core(int argc, char **argv)
{
	gint64 conns = 64, seed = 1;
	gchar *bytes = NULL, *mib = NULL, *buffer = NULL, *chunk = NULL;
	gboolean verify = FALSE;
	GOptionEntry entries[] = {
		{ "conns", 'c', 0, G_OPTION_ARG_INT64, &conns, "connections streaming (64)", "N" },
		{ "bytes", 0, 0, G_OPTION_ARG_STRING, &bytes, "bytes each connection sends, whole MiB (16M)", "SIZE" },
		{ "mib", 'm', G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_STRING, &mib, "the old --bytes: a bare number is MiB", "N" },
		{ "buffer", 'b', 0, G_OPTION_ARG_STRING, &buffer,
		  "RMB and send buffer size, whole KiB (64K; a bare number is KiB)", "SIZE" },
		{ "chunk", 'k', 0, G_OPTION_ARG_STRING, &chunk, "bytes per send/recv call (64K)", "SIZE" },
		{ "seed", 's', 0, G_OPTION_ARG_INT64, &seed, "random seed (1)", "N" },
		{ "verify", 0, 0, G_OPTION_ARG_NONE, &verify, "check the content (byte sums; slows the run down)", NULL },
		/* -v was --verify; -v is --verbose elsewhere, so it is kept only as a hidden alias */
		{ "verify-content", 'v', G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_NONE, &verify, "the old -v", NULL },
		{ NULL },
	};
	cli_options opts = { .params = "- SMC-R protocol core throughput", .entries = entries };
	core_bench_config c = { .conns = 0 };
	int rc = cli_parse_options(&opts, &argc, &argv);
	if (!rc && (argc > 1 || conns < 1 || conns > CORE_BENCH_MAX_CONNS || sizes(bytes, mib, buffer, chunk, &c))) {
		fprintf(stderr, "%s: need 1 <= conns <= 250, --bytes of whole MiB >= 1M, --buffer of whole KiB >= 16K, "
		                "--chunk from 1 byte to 1G\n",
		        argv[0]);
		rc = CLI_EXIT_USAGE;
	}
	g_free(bytes);
	g_free(mib);
	g_free(buffer);
	g_free(chunk);
	if (rc)
		return rc;
	c.conns = (uint32_t)conns;
	c.seed = (uint64_t)seed;
	c.verify = verify;
	c.log = stderr;
	core_bench_result r;
	char err[256];
	if (core_bench_run(&c, &r, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", argv[0], err);
		return CLI_EXIT_FAILED;
	}
	print_result(&c, &r);
	return verdict(argv[0], &c, &r);
}
