/* `smcr-sim bench replay [FILE]`: options and figures of the replay decode benchmark
 * (sim/replay/replay_bench.h): the decoder's frames per second beside tshark's. */
#include <glib.h>
#include <stdio.h>

#include "sim/engine/bench_measure.h"
#include "sim/replay/replay_bench.h"
#include "tools/bench.h"
#include "tools/cli.h"

static void print_tshark(const replay_bench_result *r, double rate)
{
	switch (r->tshark) {
	case REPLAY_BENCH_TSHARK_SKIPPED:
		break;
	case REPLAY_BENCH_TSHARK_NOT_RUN:
		printf("  tshark -n -r              not run: %s\n", r->tshark_why);
		break;
	case REPLAY_BENCH_TSHARK_FAILED:
		printf("  tshark -n -r              failed (status %d)\n", r->tshark_status);
		break;
	case REPLAY_BENCH_TSHARK_TIMED: {
		double trate = (double)r->frames / r->tshark_s;
		printf("  tshark -n -r              %8.3f s  %12.0f frames/s  (best of %lld)\n", r->tshark_s, trate,
		       (long long)r->tshark_runs);
		printf("  speed-up                  %8.1f x\n", rate / trate);
		break;
	}
	}
}

static void print_result(const replay_bench_config *c, const replay_bench_result *r)
{
	printf("replay decode benchmark: %s%s\n", r->file, r->made ? " (made from the base trace)" : "");
	printf("  frames %llu, bytes %llu; decoded %zu link groups, %zu links, %zu connection ends, %llu errors\n",
	       (unsigned long long)r->frames, (unsigned long long)r->bytes, r->lgrs, r->links, r->conns,
	       (unsigned long long)r->errors);
	double rate = (double)r->frames / r->decode_s;
	printf("  smcr-sim replay (decode)  %8.3f s  %12.0f frames/s  %8.1f MB/s  (best of %lld)\n", r->decode_s, rate,
	       (double)r->bytes / r->decode_s / 1e6, (long long)c->repeat);
	print_tshark(r, rate);
	printf("  peak RSS %.1f MiB\n", (double)bench_peak_rss() / (1024.0 * 1024.0));
	if (r->made && r->keep)
		printf("  trace kept: %s\n", r->file);
}

static int run(const char *prog, const replay_bench_config *c)
{
	replay_bench_result r;
	char err[512];
	int rc = replay_bench_run(c, &r, err, sizeof(err));
	if (rc)
		fprintf(stderr, "%s: %s\n", prog, err);
	else
		print_result(c, &r);
	replay_bench_result_free(&r);
	return rc;
}

int bench_replay(int argc, char **argv)
{
	gint64 copies = 300, repeat = 3;
	gchar *base = NULL;
	gboolean no_tshark = FALSE, keep = FALSE;
	GOptionEntry entries[] = {
		{ "copies", 'n', 0, G_OPTION_ARG_INT64, &copies, "copies of the base trace in the made trace (300)", "N" },
		{ "base", 'b', 0, G_OPTION_ARG_FILENAME, &base, "base trace to copy (" REPLAY_BENCH_DEFAULT_BASE ")", "FILE" },
		{ "repeat", 'r', 0, G_OPTION_ARG_INT64, &repeat, "decoder runs; the best is reported (3)", "N" },
		{ "no-tshark", 0, 0, G_OPTION_ARG_NONE, &no_tshark, "do not time tshark", NULL },
		{ "keep", 0, 0, G_OPTION_ARG_NONE, &keep, "keep the made trace and print its path", NULL },
		{ NULL },
	};
	cli_options opts = { .params = "[FILE] - replay decode rate, next to tshark -r", .entries = entries };
	int rc = 2;
	if (cli_parse_options(&opts, &argc, &argv))
		goto out;
	if (argc > 2 || copies <= 0 || copies > 1000000 || repeat <= 0) {
		fprintf(stderr, "%s: usage: [FILE] with copies in 1..1000000 and repeat > 0\n", argv[0]);
		goto out;
	}
	replay_bench_config c = { .file = argc == 2 ? argv[1] : NULL, .base = base, .copies = (unsigned)copies, .repeat = (uint64_t)repeat, .tshark = !no_tshark, .keep = keep };
	rc = run(argv[0], &c);
out:
	g_free(base);
	return rc;
}
