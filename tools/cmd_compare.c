/* `smcr-sim compare FILE`: the scenario as written beside the same scenario on TCP (every
 * application smc=no, the same seed): per workload latency, rate or throughput and CPU per
 * transaction or MiB, with SMC-R's change against TCP (sim/compare/compare.h). */
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "sim/compare/compare.h"
#include "tools/cli.h"

typedef struct compare_args {
	gchar *seed, *end, *format, *svg;
	gchar **set;
} compare_args;

static void free_args(compare_args *a)
{
	g_free(a->seed);
	g_free(a->end);
	g_free(a->format);
	g_free(a->svg);
	g_strfreev(a->set);
}

static int parse(int *argc, char ***argv, compare_args *a)
{
	GOptionEntry entries[] = {
		{ "seed", 0, 0, G_OPTION_ARG_STRING, &a->seed, "run seed of both runs (overrides the scenario's)", "N" },
		{ "end", 0, 0, G_OPTION_ARG_STRING, &a->end, "virtual end time of both runs (overrides the scenario's)", "TIME" },
		{ "set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a->set, "give parameter NAME the value VALUE (repeatable)", "NAME=VALUE" },
		{ "format", 'f', 0, G_OPTION_ARG_STRING, &a->format, "output: text (default) or json", "text|json" },
		{ "svg", 0, 0, G_OPTION_ARG_STRING, &a->svg, "also draw latency distributions and CPU side by side", "FILE" },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	cli_options opts = {
		.params = "FILE - what SMC-R does for a scenario's workloads beside TCP",
		.entries = entries,
		.description =
		        "Runs the scenario as written and again with every application on TCP (smc=no), with\n"
		        "the same seed, and prints per workload (connecting app) its transaction latency (mean,\n"
		        "p50, p99) and rate, or its throughput, and the CPU per transaction (per MiB for\n"
		        "streaming) of its client's and server's stacks, each with SMC-R's change against TCP.\n"
		        "Expectations are not judged (the TCP run fails those that expect SMC-R); their counts\n"
		        "are shown. Exit 0, 2 for a bad scenario or option, 3 if memory ran out.",
	};
	return cli_parse_options(&opts, argc, argv);
}

static int options(const char *prog, const compare_args *a, compare_opts *o, bool *json)
{
	char err[256];
	memset(o, 0, sizeof(*o));
	if (a->seed) {
		if (!scn_parse_seed(a->seed, &o->seed, err, sizeof(err))) {
			fprintf(stderr, "%s: bad --seed: %s\n", prog, err);
			return 2;
		}
		o->has_seed = true;
	}
	if (a->end) {
		if (!scn_parse_end_time(a->end, &o->end_ns, err, sizeof(err))) {
			fprintf(stderr, "%s: bad --end: %s\n", prog, err);
			return 2;
		}
		o->has_end = true;
	}
	*json = a->format && !strcmp(a->format, "json");
	if (a->format && !*json && strcmp(a->format, "text")) {
		fprintf(stderr, "%s: bad --format '%s'; expected text or json\n", prog, a->format);
		return 2;
	}
	return 0;
}

static int write_svg(const char *prog, const char *path, const compare_result *r)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "%s: cannot write %s\n", prog, path);
		return 2;
	}
	compare_svg(r, f);
	if (fclose(f)) {
		fprintf(stderr, "%s: cannot write %s\n", prog, path);
		return 2;
	}
	return 0;
}

static int run(const char *prog, const char *path, const compare_args *a, const compare_opts *o, bool json)
{
	scn_diag diag;
	scn_diag_init(&diag);
	scn_load_opts lo = { (const char *const *)a->set, a->set ? g_strv_length(a->set) : 0 };
	scn_scenario *scn = cli_load_scenario(path, &lo, &diag);
	if (!scn) {
		scn_diag_print(&diag, stderr);
		scn_diag_free(&diag);
		return 2;
	}
	scn_diag_free(&diag);
	compare_result r;
	char err[1024];
	int rc = compare_run(scn, o, &r, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "%s: %s\n", prog, err);
	} else {
		if (json)
			compare_print_json(&r, stdout);
		else
			compare_print_text(&r, stdout);
		if (a->svg)
			rc = write_svg(prog, a->svg, &r);
	}
	compare_result_free(&r);
	scn_free(scn);
	return rc;
}

int cmd_compare(int argc, char **argv)
{
	compare_args a;
	memset(&a, 0, sizeof(a));
	int rc = parse(&argc, &argv, &a);
	compare_opts o;
	bool json = false;
	if (!rc)
		rc = options(argv[0], &a, &o, &json);
	if (!rc && argc != 2) {
		fprintf(stderr, "%s: %s (try --help)\n", argv[0], argc < 2 ? "no scenario file given" : "one scenario file only");
		rc = 2;
	}
	if (!rc)
		rc = run(argv[0], argv[1], &a, &o, json);
	free_args(&a);
	return rc;
}
