/* `smcr-sim bench stacks`: options and figures of the many-stacks benchmark
 * (sim/bench/stacks_bench.h): wall time, events/s, frames, memory per stack and the
 * fingerprint (which must be the same on every repetition). */
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>

#include "sim/bench/stacks_bench.h"
#include "tools/bench.h"
#include "tools/cli.h"

static void print_result(const stacks_bench_config *c, const stacks_bench_result *r)
{
	printf("bench stacks: %" PRIu64 " pairs, %" PRIu64 " transactions of %" PRIu32 " B each per pair, bulk %" PRIu64
	       " MiB, seed %" PRId64 "\n",
	       c->pairs, c->requests, c->size, c->bulk_mib, (int64_t)c->seed);
	printf("  wall (best of %" PRIu64 "):     %.3f s\n", c->repeat, r->wall);
	printf("  events:               %" PRIu64 " (%.2f M events/s)\n", r->events, (double)r->events / r->wall / 1e6);
	printf("  frames:               %" PRIu64 " (%.2f M frames/s)\n", r->frames, (double)r->frames / r->wall / 1e6);
	printf("  pairs verified:       %" PRIu64 " of %" PRIu64 "\n", r->verified, c->pairs);
	if (c->bulk_mib)
		printf("  bulk verified:        %" PRIu64 " bytes\n", r->bulk_bytes);
	printf("  peak RSS (process):   %.1f MiB (%.1f KiB per stack)\n", (double)r->rss / (1024.0 * 1024.0),
	       (double)r->rss / 1024.0 / (double)r->stacks);
	printf("  fingerprint:          %016" PRIx64 "\n", r->fingerprint);
}

int bench_stacks(int argc, char **argv)
{
	gint64 pairs = 1000, requests = 10, seed = 1, repeat = 2;
	gchar *size_s = NULL, *bulk_s = NULL;
	GOptionEntry entries[] = {
		{ "pairs", 'p', 0, G_OPTION_ARG_INT64, &pairs, "pairs of stacks (1000)", "N" },
		{ "requests", 'n', 0, G_OPTION_ARG_INT64, &requests, "transactions per pair (10)", "N" },
		{ "size", 'z', 0, G_OPTION_ARG_STRING, &size_s, "request and response size (1000)", "SIZE" },
		{ "bulk", 'b', 0, G_OPTION_ARG_STRING, &bulk_s,
		  "also one bulk transfer of this size, whole MiB (0; a bare number is MiB)", "SIZE" },
		{ "seed", 's', 0, G_OPTION_ARG_INT64, &seed, "random seed (1)", "N" },
		{ "repeat", 'r', 0, G_OPTION_ARG_INT64, &repeat, "runs; the best is reported (2)", "N" },
		{ NULL },
	};
	cli_options opts = { .params = "- many virtual TCP/IP stacks in one run", .entries = entries };
	int rc = cli_parse_options(&opts, &argc, &argv);
	uint64_t size = 1000, bulk = 0;
	bool bad_size = (size_s && cli_parse_size(size_s, 1, &size)) || (bulk_s && cli_parse_size(bulk_s, 1ull << 20, &bulk));
	g_free(size_s);
	g_free(bulk_s);
	if (rc)
		return rc;
	if (argc > 1) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", argv[0], argv[1]);
		return 2;
	}
	if (pairs <= 0 || requests < 0 || bad_size || size == 0 || size > 1 << 24 || bulk % (1ull << 20) || repeat <= 0) {
		fprintf(stderr, "%s: need pairs > 0, requests >= 0, 0 < size <= 16M, bulk of whole MiB, repeat > 0\n", argv[0]);
		return 2;
	}
	stacks_bench_config c = { (uint64_t)pairs, (uint64_t)requests, (uint32_t)size, bulk >> 20, (uint64_t)seed,
		                  (uint64_t)repeat };
	stacks_bench_result r;
	char err[256];
	if (stacks_bench_run(&c, &r, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", argv[0], err);
		return 1;
	}
	print_result(&c, &r);
	return r.verified == c.pairs && (!c.bulk_mib || r.bulk_bytes == c.bulk_mib << 20) ? 0 : 1;
}
