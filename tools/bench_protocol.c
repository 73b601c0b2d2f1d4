/* `smcr-sim bench protocol`: options and figures of the end-to-end SMC-R benchmark
 * (sim/bench/protocol_bench.h): wall time, engine events per wall second, payload bytes
 * per wall second and the fingerprint (the same on every repetition). */
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>

#include "sim/bench/bench_measure.h"
#include "sim/bench/protocol_bench.h"
#include "sim/engine/engine.h"
#include "tools/bench.h"
#include "tools/cli.h"

/* The options as a config; 0, or 2 after printing what is wrong. */
static int config_of(const char *prog, gint conns, gint reps, gint mtu, const char *bytes_s, const char *rmb_s,
                     protocol_bench_config *c)
{
	uint64_t bytes = 16ull << 20, rmb = 256ull << 10;
	if ((bytes_s && cli_parse_size(bytes_s, 1, &bytes)) || (rmb_s && cli_parse_size(rmb_s, 1, &rmb)) ||
	    !bytes || rmb < 16384 || conns < 1 || conns > 255 || reps < 1 || (mtu != 1024 && mtu != 2048 && mtu != 4096)) {
		fprintf(stderr, "%s: bad option value (sizes like 16M, RMB at least 16K; 1..255 connections; MTU 1024, 2048 or 4096)\n",
		        prog);
		return 2;
	}
	*c = (protocol_bench_config){ .conns = (unsigned)conns, .bytes = bytes, .mtu = (unsigned)mtu, .rmb = rmb,
	                              .reps = (unsigned)reps, .log = stderr };
	return 0;
}

static void print_result(const protocol_bench_config *c, const protocol_bench_result *r)
{
	printf("bench protocol: 2 stacks, 1 link group, %u connections x %" PRIu64 " bytes, RoCE MTU %u, RMB %" PRIu64 "\n",
	       c->conns, c->bytes, c->mtu, c->rmb);
	printf("  wall time          %.3f s (best of %u)\n", r->wall, c->reps);
	printf("  virtual run        %" PRIu64 ".%06" PRIu64 " s\n", (uint64_t)(r->virtual_ns / SIM_S),
	       (uint64_t)(r->virtual_ns % SIM_S / 1000));
	printf("  engine events      %" PRIu64 "  (%.2f M/s wall)\n", r->events, (double)r->events / r->wall / 1e6);
	printf("  core entries       %" PRIu64 "  (%.2f M/s wall)\n", r->core_entries,
	       (double)r->core_entries / r->wall / 1e6);
	printf("  payload            %" PRIu64 " bytes  (%.2f GB/s wall)\n", r->payload, (double)r->payload / r->wall / 1e9);
	printf("  peak RSS           %.1f MiB\n", (double)bench_peak_rss() / (1024.0 * 1024.0));
	printf("  expectations       %s\n", r->failed ? "FAILED" : "met (one link group, one link, all bytes intact)");
	printf("  fingerprint        %016" PRIx64 "\n", r->fingerprint);
}

int bench_protocol(int argc, char **argv)
{
	gint conns = 64, reps = 1, mtu = 4096;
	gchar *bytes_s = NULL, *rmb_s = NULL;
	GOptionEntry entries[] = {
		{ "conns", 0, 0, G_OPTION_ARG_INT, &conns, "connections in the link group (default 64)", "N" },
		{ "bytes", 0, 0, G_OPTION_ARG_STRING, &bytes_s, "bytes per connection (default 16M)", "SIZE" },
		{ "mtu", 0, 0, G_OPTION_ARG_INT, &mtu, "RoCE MTU 1024, 2048 or 4096 (default 4096)", "MTU" },
		{ "buffer", 'b', 0, G_OPTION_ARG_STRING, &rmb_s, "RMB and send buffer size (default 256K)", "SIZE" },
		{ "rmb", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_STRING, &rmb_s, "the old name of --buffer", "SIZE" },
		{ "repeat", 'r', 0, G_OPTION_ARG_INT, &reps, "runs; the best is reported (1)", "N" },
		{ "reps", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_INT, &reps, "the old name of --repeat", "N" },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	cli_options opts = { .params = "- SMC-R streams between two stacks over the simulated fabric", .entries = entries };
	if (cli_parse_options(&opts, &argc, &argv))
		return 2;
	protocol_bench_config c;
	int rc = config_of(argv[0], conns, reps, mtu, bytes_s, rmb_s, &c);
	g_free(bytes_s);
	g_free(rmb_s);
	if (rc)
		return rc;
	protocol_bench_result r;
	char err[256];
	rc = protocol_bench_run(&c, &r, err, sizeof(err));
	if (rc) {
		if (err[0])
			fprintf(stderr, "%s: %s\n", argv[0], err);
		return rc;
	}
	print_result(&c, &r);
	return r.failed ? 1 : 0;
}
