/* `smcr-sim bench verbs`: options and figures of the verbs transport benchmark on a real
 * device, beside ib_write_bw (sim/bench/verbs_bench.h). */
#include <glib.h>
#include <stdio.h>

#include "sim/bench/verbs_bench.h"
#include "tools/bench.h"
#include "tools/cli.h"

typedef struct verbs_args {
	gchar *dev, *dev2, *size_s;
	gint port;
	gint64 size, iters, depth, cq_mod, repeat;
	gboolean busy, no_compare;
} verbs_args;

static void print_run(void *ctx, int64_t k, double mib, bool have_ref, double ref_mib)
{
	(void)ctx;
	printf("  run %" G_GINT64_FORMAT ": %.1f MiB/s%s", (gint64)k, mib, have_ref ? "" : "\n");
	if (have_ref)
		printf(", ib_write_bw %.1f MiB/s\n", ref_mib);
}

static void print_header(const verbs_bench_config *c)
{
	printf("bench verbs: %s → %s port %d, RDMA WRITE %" G_GINT64_FORMAT " B × %" G_GINT64_FORMAT
	       ", tx-depth %" G_GINT64_FORMAT ", cq-mod %" G_GINT64_FORMAT ", %s, best of %" G_GINT64_FORMAT
	       " alternating runs\n",
	       c->dev_a, c->dev_b, c->port, (gint64)c->size, (gint64)c->iters, (gint64)c->depth,
	       (gint64)c->cq_mod, c->busy_poll ? "busy polling" : "completion channel + GLib loop", (gint64)c->repeat);
}

static void print_summary(const verbs_bench_config *c, const verbs_bench_result *r)
{
	printf("  smcr-sim verbs transport:  %9.1f MiB/s\n", r->best);
	if (r->have_ref_tool && r->best_ref > 0)
		printf("  ib_write_bw (perftest):    %9.1f MiB/s  → ratio %.2f\n", r->best_ref, r->best / r->best_ref);
	else if (r->have_ref_tool)
		printf("  ib_write_bw (perftest):    no result\n");
	else if (c->compare)
		printf("  ib_write_bw (perftest):    not installed (apt-get install perftest)\n");
}

static int run(const char *prog, verbs_args *a)
{
	uint64_t size = (uint64_t)a->size;
	if (a->size_s && cli_parse_size(a->size_s, 1, &size))
		size = 0;
	a->size = (gint64)(size > (1u << 30) ? 0 : size);
	if (a->size <= 0 || a->size > (1 << 30) || a->iters <= 0 || a->depth <= 0 || a->depth > 4096 || a->cq_mod <= 0 ||
	    a->cq_mod > a->depth || a->port < 1 || a->port > 255 || a->repeat <= 0) {
		fprintf(stderr, "%s: need 0 < size <= 1 GiB, iters > 0, 0 < cq-mod <= tx-depth <= 4096, port 1..255, repeat > 0\n",
		        prog);
		return 2;
	}
	const char *name_a = a->dev ? a->dev : "rxe0";
	verbs_bench_config c = { .dev_a = name_a, .dev_b = a->dev2 ? a->dev2 : name_a, .port = a->port, .size = a->size, .iters = a->iters, .depth = a->depth, .cq_mod = a->cq_mod, .repeat = a->repeat, .busy_poll = a->busy, .compare = !a->no_compare, .log = stderr, .on_run = print_run };
	char err[1024];
	verbs_bench *b = verbs_bench_open(&c, err, sizeof(err));
	if (!b) { /* no such device: it cannot run here */
		fprintf(stderr, "bench verbs: %s\n", err);
		return CLI_EXIT_USAGE;
	}
	print_header(&c);
	verbs_bench_result r;
	int rc = verbs_bench_run(b, &r, err, sizeof(err));
	if (rc)
		fprintf(stderr, "bench verbs: %s\n", err);
	else
		print_summary(&c, &r);
	verbs_bench_close(b);
	return rc;
}

int bench_verbs(int argc, char **argv)
{
	verbs_args a = { .port = 1, .size = 65536, .iters = 2000, .depth = 128, .cq_mod = 32, .repeat = 3 };
	GOptionEntry entries[] = {
		{ "dev", 'd', 0, G_OPTION_ARG_STRING, &a.dev, "RDMA device of the writer (rxe0)", "NAME" },
		{ "dev2", 0, 0, G_OPTION_ARG_STRING, &a.dev2, "device of the target (default: --dev)", "NAME" },
		{ "port", 'i', 0, G_OPTION_ARG_INT, &a.port, "port on both devices (1)", "N" },
		{ "size", 's', 0, G_OPTION_ARG_STRING, &a.size_s, "bytes per RDMA WRITE (64K, as ib_write_bw)", "SIZE" },
		{ "iters", 'n', 0, G_OPTION_ARG_INT64, &a.iters, "RDMA WRITEs (2000)", "N" },
		{ "tx-depth", 't', 0, G_OPTION_ARG_INT64, &a.depth, "WRs in flight (128, as ib_write_bw)", "N" },
		{ "cq-mod", 'Q', 0, G_OPTION_ARG_INT64, &a.cq_mod, "one signaled completion every N WRs (32)", "N" },
		{ "repeat", 'r', 0, G_OPTION_ARG_INT64, &a.repeat, "alternating runs of each; the best is reported (3)", "N" },
		{ "busy-poll", 0, 0, G_OPTION_ARG_NONE, &a.busy, "poll the CQ instead of waiting on the channel", NULL },
		{ "no-compare", 0, 0, G_OPTION_ARG_NONE, &a.no_compare, "do not run ib_write_bw", NULL },
		{ NULL },
	};
	cli_options opts = { .params = "- RDMA WRITE throughput through the verbs transport", .entries = entries };
	if (cli_parse_options(&opts, &argc, &argv))
		return 2;
	int rc = 2;
	if (argc > 1)
		fprintf(stderr, "%s: unexpected argument '%s'\n", argv[0], argv[1]);
	else
		rc = run(argv[0], &a);
	g_free(a.dev);
	g_free(a.dev2);
	g_free(a.size_s);
	return rc;
}
