/* `smcr-sim run FILE` and `smcr-sim report FILE`: load a scenario, build its world
 * (sim/world/world.h), run it, print what it says, check its expectations. */
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sim/world/world.h"
#include "tools/capture_opts.h"
#include "tools/cli.h"

typedef struct run_args {
	gchar *seed, *end, *format, *report, *smcid, *real_hw;
	gboolean verbose, defaults, dump;
	capture_args cap;
} run_args;

static int load(const char *prog, const char *path, scn_scenario **out)
{
	scn_diag diag;
	scn_diag_init(&diag);
	*out = scn_load_file(path, &diag);
	if (!*out)
		scn_diag_print(&diag, stderr);
	scn_diag_free(&diag);
	(void)prog;
	return *out ? 0 : 2;
}

static int common_opts(const char *prog, const run_args *a, world_opts *o)
{
	if (a->seed) {
		unsigned long long v;
		if (cli_parse_u64(a->seed, &v)) {
			fprintf(stderr, "%s: bad --seed '%s'; expected an unsigned integer\n", prog, a->seed);
			return 2;
		}
		o->seed = v;
		o->has_seed = true;
	}
	if (a->end) {
		unsigned long long v;
		char err[128];
		if (cli_parse_duration(a->end, &v, err, sizeof(err)) || v == 0) {
			fprintf(stderr, "%s: bad --end '%s'; expected a duration like 10s or 250ms\n", prog, a->end);
			return 2;
		}
		o->end_ns = v;
		o->has_end = true;
	}
	if (a->format) {
		if (!strcmp(a->format, "json"))
			o->json = true;
		else if (strcmp(a->format, "text")) {
			fprintf(stderr, "%s: bad --format '%s'; expected text or json\n", prog, a->format);
			return 2;
		}
	}
	if (a->report) {
		if (!strcmp(a->report, "netstat"))
			o->style = WORLD_STYLE_NETSTAT;
		else if (!strcmp(a->report, "smc"))
			o->style = WORLD_STYLE_SMC;
		else if (strcmp(a->report, "auto")) {
			fprintf(stderr, "%s: bad --report '%s'; expected netstat, smc or auto\n", prog, a->report);
			return 2;
		}
	}
	return 0;
}

static int parse(int *argc, char ***argv, run_args *a, bool report_cmd)
{
	GOptionEntry run_entries[] = {
		{ "seed", 0, 0, G_OPTION_ARG_STRING, &a->seed, "run seed (overrides the scenario's)", "N" },
		{ "end", 0, 0, G_OPTION_ARG_STRING, &a->end, "virtual end time (overrides the scenario's)", "TIME" },
		{ "format", 0, 0, G_OPTION_ARG_STRING, &a->format, "output: text (default) or json", "text|json" },
		{ "report", 0, 0, G_OPTION_ARG_STRING, &a->report,
		  "style of text reports: netstat, smc, or auto (as the scenario says)", "STYLE" },
		{ "verbose", 'v', 0, G_OPTION_ARG_NONE, &a->verbose,
		  "event log: timeline, link groups, links, IST2406I link failures, expectations", NULL },
		{ "defaults", 0, 0, G_OPTION_ARG_NONE, &a->defaults, "print the scenario attribute defaults and exit", NULL },
		{ "dump", 0, 0, G_OPTION_ARG_NONE, &a->dump, "print the resolved scenario and exit", NULL },
		{ "real-hw", 0, 0, G_OPTION_ARG_STRING, &a->real_hw,
		  "run the adapters' QPs on real RDMA devices, in real time (docs/real-hw.md)", "PFID=DEV[:PORT][@IP],…" },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	GOptionEntry report_entries[] = {
		{ "seed", 0, 0, G_OPTION_ARG_STRING, &a->seed, "run seed (overrides the scenario's)", "N" },
		{ "end", 0, 0, G_OPTION_ARG_STRING, &a->end, "virtual end time (overrides the scenario's)", "TIME" },
		{ "format", 0, 0, G_OPTION_ARG_STRING, &a->format, "report as text (default) or json", "text|json" },
		{ "report", 0, 0, G_OPTION_ARG_STRING, &a->report, "text style: netstat (default), smc or auto", "STYLE" },
		{ "smcid", 0, 0, G_OPTION_ARG_STRING, &a->smcid, "only the link group or link with this id (hex)", "HEX" },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	cli_options opts = {
		.params = report_cmd ? "FILE - run a scenario and print the final report" : "FILE - run a scenario",
		.entries = report_cmd ? report_entries : run_entries,
		.capture = &a->cap,
		.description =
		     report_cmd ? "Runs the scenario silently and prints the NETSTAT DEVLINKS SMC-style report of its end.\n"
		                  "Exit 0, 1 if an expectation failed, 2 for a bad scenario or option, 3 if memory ran out."
		                : "Prints timeline reports, failed expectations (FILE:LINE and what was measured), the\n"
		                  "final reports and the run's fingerprint. Same file and seed: the same output, byte for\n"
		                  "byte. A progress line goes to stderr when it is a terminal and the run takes a while.\n"
		                  "Exit 0 if every expectation is met, 1 if one failed, 2 for a bad scenario or option,\n"
		                  "3 if memory (or a fixed pool) ran out: one line says what, when and what to change.",
	};
	return cli_parse_options(&opts, argc, argv);
}

static void free_args(run_args *a)
{
	g_free(a->seed);
	g_free(a->end);
	g_free(a->format);
	g_free(a->report);
	capture_args_free(&a->cap);
	g_free(a->smcid);
	g_free(a->real_hw);
}

int cmd_run(int argc, char **argv)
{
	run_args a;
	memset(&a, 0, sizeof(a));
	int rc = parse(&argc, &argv, &a, false);
	world_opts o;
	world_opts_default(&o);
	if (!rc)
		rc = common_opts(argv[0], &a, &o);
	if (!rc && a.defaults) {
		scn_print_defaults(stdout);
		free_args(&a);
		return 0;
	}
	if (!rc && argc != 2) {
		fprintf(stderr, "%s: %s (try --help)\n", argv[0], argc < 2 ? "no scenario file given" : "one scenario file only");
		rc = 2;
	}
	scn_scenario *scn = NULL;
	if (!rc)
		rc = load(argv[0], argv[1], &scn);
	if (!rc && a.dump) {
		scn_dump(scn, stdout);
		scn_free(scn);
		free_args(&a);
		return 0;
	}
	if (rc) {
		scn_free(scn);
		free_args(&a);
		return rc;
	}
	o.verbose = a.verbose;
	if (capture_args_apply(argv[0], &a.cap, &o)) {
		scn_free(scn);
		free_args(&a);
		return 2;
	}
	o.progress = isatty(STDERR_FILENO) ? stderr : NULL;
	char err[1024];
	realhw_map real;
	if (a.real_hw) {
		if (realhw_map_parse(a.real_hw, &real, err, sizeof(err))) {
			fprintf(stderr, "%s: %s\n", argv[0], err);
			scn_free(scn);
			free_args(&a);
			return 2;
		}
		o.real_hw = &real;
		o.progress = NULL;
	}
	world *w = world_new(scn, &o, err, sizeof(err));
	if (!w) {
		fprintf(stderr, "%s: %s\n", argv[0], err);
		scn_free(scn);
		free_args(&a);
		return 2;
	}
	if (!o.json) {
		printf("scenario %s: %s\nseed %" PRIu64 ", %d stack%s, %zu app%s\n", scn->file, scn->title[0] ? scn->title : "(untitled)",
		       o.has_seed ? o.seed : scn->seed, (int)scn->n_stacks, scn->n_stacks == 1 ? "" : "s", scn->n_apps,
		       scn->n_apps == 1 ? "" : "s");
		if (o.real_hw)
			printf("real hardware: %s (QPs on RDMA devices, engine in real time)\n", a.real_hw);
	}
	uint64_t failed = world_run(w);
	world_free(w);
	scn_free(scn);
	free_args(&a);
	return failed ? 1 : 0;
}

int cmd_report(int argc, char **argv)
{
	run_args a;
	memset(&a, 0, sizeof(a));
	int rc = parse(&argc, &argv, &a, true);
	world_opts o;
	world_opts_default(&o);
	if (!rc)
		rc = common_opts(argv[0], &a, &o);
	unsigned long long smcid = 0;
	if (!rc && a.smcid) {
		gchar *end = NULL;
		smcid = g_ascii_strtoull(a.smcid, &end, 16);
		if (!end || *end || !a.smcid[0] || smcid > 0xffffffffull) {
			fprintf(stderr, "%s: bad --smcid '%s'; expected a hex id like 00000101\n", argv[0], a.smcid);
			rc = 2;
		}
	}
	if (!rc && argc != 2) {
		fprintf(stderr, "%s: %s (try --help)\n", argv[0], argc < 2 ? "no scenario file given" : "one scenario file only");
		rc = 2;
	}
	scn_scenario *scn = NULL;
	if (!rc)
		rc = load(argv[0], argv[1], &scn);
	if (!rc)
		rc = capture_args_apply(argv[0], &a.cap, &o);
	if (rc) {
		scn_free(scn);
		free_args(&a);
		return rc;
	}
	bool json = o.json;
	o.json = false;
	o.quiet = true;
	o.out = stderr; /* only failed expectations would print */
	o.progress = isatty(STDERR_FILENO) ? stderr : NULL;
	char err[512];
	world *w = world_new(scn, &o, err, sizeof(err));
	if (!w) {
		fprintf(stderr, "%s: %s\n", argv[0], err);
		scn_free(scn);
		free_args(&a);
		return 2;
	}
	uint64_t failed = world_run(w);
	scn_report_format f = json ? SCN_REPORT_JSON
	                      : o.style == WORLD_STYLE_SMC ? SCN_REPORT_SMC
	                      : a.report && !strcmp(a.report, "auto") ? SCN_REPORT_AUTO
	                                                              : SCN_REPORT_NETSTAT;
	world_print_report(w, stdout, f, SCN_NONE, a.smcid != NULL, (uint32_t)smcid);
	world_free(w);
	scn_free(scn);
	free_args(&a);
	return failed ? 1 : 0;
}
