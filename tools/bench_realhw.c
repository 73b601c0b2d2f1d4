/* `smcr-sim bench realhw`: options and figures of one SMC-R connection on real devices
 * beside ib_write_bw (sim/bench/realhw_bench.h), a line per alternating run. */
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "sim/bench/realhw_bench.h"
#include "sim/scenario/scn_values.h"
#include "tools/bench.h"
#include "tools/cli.h"

typedef struct realhw_args {
	gchar *dev, *dev2, *bytes, *rmb, *snd, *mode, *size_s;
	gint port, tcp_port;
	gint64 repeat, size;
	gboolean no_compare;
} realhw_args;

static void args_free(realhw_args *a)
{
	g_free(a->dev);
	g_free(a->dev2);
	g_free(a->bytes);
	g_free(a->rmb);
	g_free(a->snd);
	g_free(a->mode);
	g_free(a->size_s);
}

static void print_step(void *ctx, realhw_bench_step step, int64_t k, double mib)
{
	const realhw_bench_config *c = ctx;
	switch (step) {
	case REALHW_BENCH_RUN:
		printf("  run %" G_GINT64_FORMAT ":", (gint64)k);
		break;
	case REALHW_BENCH_ONE:
	case REALHW_BENCH_SPLIT:
		if (mib < 0)
			printf(" failed\n");
		else if (step == REALHW_BENCH_ONE)
			printf(" SMC-R one process %.1f MiB/s", mib);
		else
			printf("%s SMC-R two processes %.1f MiB/s", c->one ? "," : "", mib);
		break;
	case REALHW_BENCH_REF:
		if (mib > 0)
			printf(", ib_write_bw %.1f MiB/s", mib);
		else
			printf(", ib_write_bw no result");
		break;
	case REALHW_BENCH_DONE:
		printf("\n");
		fflush(stdout);
		break;
	}
}

static void print_header(const realhw_bench_config *c)
{
	char sz_b[32], sz_r[32], sz_s[32];
	printf("bench realhw: one SMC-R connection %s → %s port %d, bulk %s (every byte checked), RMB %s, send buffer %s, "
	       "%s, best of %" G_GINT64_FORMAT " alternating runs\n",
	       c->dev_a, c->dev_b, c->port, scn_format_size(c->bytes, sz_b, sizeof(sz_b)),
	       scn_format_size(c->rmb, sz_r, sizeof(sz_r)), scn_format_size(c->sndbuf, sz_s, sizeof(sz_s)),
	       c->one && c->split ? "in one process and in two" : c->one ? "both stacks in one process"
	                                                                 : "one stack per process",
	       (gint64)c->repeat);
}

static void print_best(const char *what, double best, const realhw_bench_result *r)
{
	printf("  SMC-R connection, %s%9.1f MiB/s", what, best);
	if (r->have_ref_tool && r->best_ref > 0)
		printf("  → ratio %.2f", best / r->best_ref);
	printf("\n");
}

static void print_summary(const realhw_bench_config *c, const realhw_bench_result *r)
{
	if (c->one)
		print_best("one process (payload):    ", r->best_one, r);
	if (c->split)
		print_best("two processes (payload):  ", r->best_split, r);
	if (r->have_ref_tool && r->best_ref > 0)
		printf("  ib_write_bw (perftest, two processes):      %9.1f MiB/s\n", r->best_ref);
	else if (r->have_ref_tool)
		printf("  ib_write_bw (perftest):                     no result\n");
	else if (c->compare)
		printf("  ib_write_bw (perftest):                     not installed (apt-get install perftest)\n");
}

/* The options as a config; 0, or 2 after printing what is wrong. */
static int config_of(const char *prog, const realhw_args *a, int argc, realhw_bench_config *c)
{
	uint64_t bytes = 128ull << 20, rmb = 1u << 20, snd = 1u << 20;
	uint64_t size = (uint64_t)a->size;
	if ((a->bytes && cli_parse_size(a->bytes, 1, &bytes)) || (a->rmb && cli_parse_size(a->rmb, 1, &rmb)) ||
	    (a->snd && cli_parse_size(a->snd, 1, &snd)) || (a->size_s && cli_parse_size(a->size_s, 1, &size)) ||
	    bytes == 0 || argc > 1 || a->repeat <= 0 || size == 0 || size > (1u << 30) ||
	    a->port < 1 || a->port > 255 || a->tcp_port < 1 || a->tcp_port > 65535) {
		fprintf(stderr, "%s: bad options (sizes like 128M, repeat > 0, port 1..255; see --help)\n", prog);
		return 2;
	}
	bool one = true, split = false;
	if (a->mode && !strcmp(a->mode, "split")) {
		one = false;
		split = true;
	} else if (a->mode && !strcmp(a->mode, "both")) {
		split = true;
	} else if (a->mode && strcmp(a->mode, "one")) {
		fprintf(stderr, "%s: bad --mode '%s'; expected one, split or both\n", prog, a->mode);
		return 2;
	}
	const char *name_a = a->dev ? a->dev : "rxe0";
	*c = (realhw_bench_config){ .dev_a = name_a, .dev_b = a->dev2 ? a->dev2 : name_a, .port = a->port, .bytes = bytes, .rmb = rmb, .sndbuf = snd, .size = (int64_t)size, .repeat = a->repeat, .one = one, .split = split, .tcp_port = (uint16_t)a->tcp_port, .compare = !a->no_compare, .log = stderr, .on_step = print_step };
	return 0;
}

static int run(const char *prog, const realhw_args *a, int argc)
{
	realhw_bench_config c;
	if (config_of(prog, a, argc, &c))
		return 2;
	c.ctx = &c;
	char err[1024];
	realhw_bench *b = realhw_bench_open(&c, err, sizeof(err));
	if (!b) {
		if (err[0])
			fprintf(stderr, "%s: %s\n", prog, err);
		return 2;
	}
	print_header(&c);
	realhw_bench_result r;
	int rc = realhw_bench_run(b, &r);
	if (!rc)
		print_summary(&c, &r);
	realhw_bench_close(b);
	return rc;
}

int bench_realhw(int argc, char **argv)
{
	realhw_args a = { .port = 1, .tcp_port = 18520, .repeat = 3, .size = 65536 };
	GOptionEntry entries[] = {
		{ "dev", 'd', 0, G_OPTION_ARG_STRING, &a.dev, "RDMA device of the sending stack (rxe0)", "NAME" },
		{ "dev2", 0, 0, G_OPTION_ARG_STRING, &a.dev2, "device of the receiving stack (default: --dev)", "NAME" },
		{ "port", 'i', 0, G_OPTION_ARG_INT, &a.port, "port on both devices (1)", "N" },
		{ "bytes", 'b', 0, G_OPTION_ARG_STRING, &a.bytes, "payload of the connection (128M)", "SIZE" },
		{ "rmbsize", 0, 0, G_OPTION_ARG_STRING, &a.rmb, "receive buffer (1M; Linux default 64K)", "SIZE" },
		{ "sndbufsize", 0, 0, G_OPTION_ARG_STRING, &a.snd, "send buffer (1M)", "SIZE" },
		{ "size", 's', 0, G_OPTION_ARG_STRING, &a.size_s, "ib_write_bw: bytes per RDMA WRITE (64K, its default)", "SIZE" },
		{ "repeat", 'r', 0, G_OPTION_ARG_INT64, &a.repeat, "alternating runs of each; the best is reported (3)", "N" },
		{ "mode", 'm', 0, G_OPTION_ARG_STRING, &a.mode,
		  "one (both stacks in this process, as run --real-hw), split (a node per process, as ib_write_bw) "
		  "or both (default one)",
		  "MODE" },
		{ "tcp-port", 0, 0, G_OPTION_ARG_INT, &a.tcp_port, "split: the nodes' CLC port on 127.0.0.1 (18520)", "PORT" },
		{ "no-compare", 0, 0, G_OPTION_ARG_NONE, &a.no_compare, "do not run ib_write_bw", NULL },
		{ NULL },
	};
	cli_options opts = { .params = "- one SMC-R connection on real devices beside ib_write_bw", .entries = entries };
	int rc = cli_parse_options(&opts, &argc, &argv);
	if (!rc)
		rc = run(argv[0], &a, argc);
	args_free(&a);
	return rc;
}
