/* `smcr-sim bench incast`: options and figures of the incast benchmark
 * (sim/bench/incast_bench.h). */
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "sim/bench/incast_bench.h"
#include "tools/bench.h"
#include "tools/cli.h"

static void print_result(const incast_bench_config *c, const incast_bench_result *r)
{
	printf("bench incast: %" PRIu32 " senders -> 1 over SMC-Rv2, %" PRIu64 " bytes each, 25 Gb/s, fabric %s, seed %" PRIu64
	       "\n",
	       c->senders, c->bytes, incast_mode_name(c->mode), c->seed);
	printf("  goodput:              %.2f Gb/s over %.3f ms of virtual time\n", r->goodput_gbps, (double)r->virtual_ns / 1e6);
	printf("  per flow:             %.2f .. %.2f Gb/s, Jain's fairness %.3f\n", r->min_gbps, r->max_gbps, r->jain);
	printf("  bottleneck queue:     p50 %" PRIu64 " B, p99 %" PRIu64 " B, max %" PRIu64 " B\n", r->depth_p50, r->depth_p99,
	       r->depth_max);
	printf("  pauses sent:          %" PRIu64 " (switch egress paused %" PRIu64 " times), adapter frames held %" PRIu64 "\n",
	       r->pauses, r->pause_rx, r->tx_held);
	printf("  drops:                %" PRIu64 " tail, %" PRIu64 " headroom\n", r->drops, r->headroom_drops);
	printf("  ECN marks:            %" PRIu64 ", CNPs sent %" PRIu64 "\n", r->ecn_marks, r->cnp_tx);
	printf("  simulated frames/s:   %.2f M (%" PRIu64 " switch frames in %.3f s wall, %" PRIu64 " events)\n",
	       r->wall > 0 ? (double)r->frames / r->wall / 1e6 : 0.0, r->frames, r->wall, r->events);
	printf("  expectations failed:  %" PRIu64 ", fingerprint %016" PRIx64 "\n", r->failed, r->fingerprint);
}

int bench_incast(int argc, char **argv)
{
	gint64 senders = 16, seed = 1;
	gchar *mode = NULL, *bytes = NULL;
	GOptionEntry entries[] = {
		{ "senders", 'n', 0, G_OPTION_ARG_INT64, &senders, "stacks sending to one (16, 1..64)", "N" },
		{ "fabric", 'f', 0, G_OPTION_ARG_STRING, &mode, "none, pfc, ecn-dcqcn or all (all)", "MODE" },
		{ "bytes", 'b', 0, G_OPTION_ARG_STRING, &bytes, "bytes per sender (1M)", "SIZE" },
		{ "seed", 's', 0, G_OPTION_ARG_INT64, &seed, "random seed (1)", "N" },
		{ NULL },
	};
	cli_options opts = { .params = "- N-to-1 incast over SMC-R through one switch", .entries = entries };
	if (cli_parse_options(&opts, &argc, &argv))
		return 2;
	int rc = 0;
	uint64_t b = 1u << 20;
	bool all = !mode || !strcmp(mode, "all");
	incast_mode only = INCAST_NONE;
	if (mode && !all) {
		if (!strcmp(mode, "pfc"))
			only = INCAST_PFC;
		else if (!strcmp(mode, "ecn-dcqcn"))
			only = INCAST_ECN_DCQCN;
		else if (strcmp(mode, "none"))
			rc = 2;
	}
	if (argc > 1 || senders < 1 || senders > 64 || (bytes && cli_parse_size(bytes, 1, &b)) || b == 0 || rc) {
		fprintf(stderr, "%s: need 1 <= --senders <= 64, --fabric none|pfc|ecn-dcqcn|all, --bytes SIZE > 0\n", argv[0]);
		rc = 2;
	}
	for (int m = INCAST_NONE; m <= INCAST_ECN_DCQCN && !rc; m++) {
		if (!all && m != (int)only)
			continue;
		incast_bench_config c = { (uint32_t)senders, b, (incast_mode)m, (uint64_t)seed, stderr };
		incast_bench_result r;
		char err[256];
		if (incast_bench_run(&c, &r, err, sizeof(err))) {
			fprintf(stderr, "%s: %s\n", argv[0], err);
			rc = 1;
			break;
		}
		print_result(&c, &r);
		if (r.failed)
			rc = 1;
	}
	g_free(mode);
	g_free(bytes);
	return rc;
}
