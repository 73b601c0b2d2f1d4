/* `smcr-sim run FILE` and `smcr-sim report FILE`: load a scenario, build its world
 * (sim/world/world.h), run it, print what it says, check its expectations. */
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sim/scenario/scn_warn.h"
#include "sim/world/world.h"
#include "tools/capture_opts.h"
#include "tools/cli.h"
#include "tools/observe_opts.h"

typedef struct run_args {
	gchar *seed, *end, *format, *report, *smcid, *real_hw, *pnetid;
	gchar **set; /* --set NAME=VALUE, the scenario's parameters */
	gboolean verbose, defaults, dump, quiet, event_hops;
	capture_args cap;
	observe_args obs;
} run_args;

static int load(const char *prog, const char *path, const run_args *a, scn_scenario **out)
{
	scn_diag diag;
	scn_diag_init(&diag);
	scn_load_opts lo = { (const char *const *)a->set, a->set ? g_strv_length(a->set) : 0 };
	*out = cli_load_scenario(path, &lo, &diag);
	if (!*out)
		scn_diag_print(&diag, stderr);
	else
		scn_warn_no_stack(*out, stderr); /* a fabric alone runs, but says it has no connection */
	scn_diag_free(&diag);
	(void)prog;
	return *out ? 0 : 2;
}

static int common_opts(const char *prog, const run_args *a, world_opts *o)
{
	/* the scenario's rules for `seed` and `end` (sim/scenario/scn_model.h) */
	char err[256];
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
		else if (!strcmp(a->report, "smc_chk"))
			o->style = WORLD_STYLE_SMC_CHK;
		else if (strcmp(a->report, "auto")) {
			fprintf(stderr, "%s: bad --report '%s'; expected netstat, smc, smc_chk or auto\n", prog, a->report);
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
		{ "set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a->set, "give parameter NAME the value VALUE (repeatable)", "NAME=VALUE" },
		{ "format", 'f', 0, G_OPTION_ARG_STRING, &a->format, "output: text (default) or json", "text|json" },
		{ "report", 0, 0, G_OPTION_ARG_STRING, &a->report,
		  "style of text reports: netstat, smc, smc_chk (its verdict per connection), or auto (as the "
		  "scenario says)",
		  "STYLE" },
		{ "verbose", 'v', 0, G_OPTION_ARG_NONE, &a->verbose,
		  "event log: timeline, link groups, links, IST2406I link failures, expectations", NULL },
		{ "quiet", 'q', 0, G_OPTION_ARG_NONE, &a->quiet, "no progress line on stderr", NULL },
		{ "defaults", 0, 0, G_OPTION_ARG_NONE, &a->defaults, "print the scenario attribute defaults and exit", NULL },
		{ "dump", 0, 0, G_OPTION_ARG_NONE, &a->dump, "print the resolved scenario and exit", NULL },
		{ "real-hw", 0, 0, G_OPTION_ARG_STRING, &a->real_hw,
		  "run the adapters' QPs on real RDMA devices, in real time (docs/real-hw.md)", "PFID=DEV[:PORT][@IP],…" },
		{ "event-hops", 0, 0, G_OPTION_ARG_NONE, &a->event_hops,
		  "every switch hop its own engine event (the same output; more events, another fingerprint)", NULL },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	GOptionEntry report_entries[] = {
		{ "seed", 0, 0, G_OPTION_ARG_STRING, &a->seed, "run seed (overrides the scenario's)", "N" },
		{ "end", 0, 0, G_OPTION_ARG_STRING, &a->end, "virtual end time (overrides the scenario's)", "TIME" },
		{ "set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a->set, "give parameter NAME the value VALUE (repeatable)", "NAME=VALUE" },
		{ "format", 'f', 0, G_OPTION_ARG_STRING, &a->format, "report as text (default) or json", "text|json" },
		{ "report", 0, 0, G_OPTION_ARG_STRING, &a->report,
		  "text style: netstat (default), smc, smc_chk (its verdict per connection) or auto", "STYLE" },
		{ "smcid", 0, 0, G_OPTION_ARG_STRING, &a->smcid, "only the link group or link with this id (hex)", "HEX" },
		{ "pnetid", 'i', 0, G_OPTION_ARG_STRING, &a->pnetid,
		  "print the PNET ID of this interface and exit, as smc_chk -i does (the scenario is not run)", "STACK.IFACE" },
		{ "quiet", 'q', 0, G_OPTION_ARG_NONE, &a->quiet, "no progress line on stderr", NULL },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	static char run_text[1400];
	snprintf(run_text, sizeof(run_text),
	         "Prints timeline reports, failed expectations (FILE:LINE and what was measured), the\n"
	         "final reports and the run's fingerprint. Same file and seed: the same output, byte for\n"
	         "byte. A progress line (virtual time, percent of the end, events/s, ETA) goes to stderr\n"
	         "when it is a terminal and the run takes over 2 s (not with -q). --events, --stats,\n"
	         "--topology and --timeline watch the run without changing it: same output, same fingerprint.\n"
	         "Exit 0 if every expectation is met, 1 if one failed, 2 for a bad scenario or option,\n"
	         "3 if memory (or a fixed pool) ran out: one line says what, when and what to change.\n"
	         "Examples:\n"
	         "  smcr-sim run -v scenarios/two-stacks.scn\n"
	         "  smcr-sim run --end 2s --events ev.jsonl --timeline links.svg scenarios/default.scn\n"
	         "The sample scenarios are in scenarios/ of the source tree and in %s once installed.",
	         cli_sample_scenarios());
	cli_options opts = {
		.params = report_cmd ? "FILE - run a scenario and print the final report" : "FILE - run a scenario",
		.entries = report_cmd ? report_entries : run_entries,
		.capture = &a->cap,
		.observe = report_cmd ? NULL : &a->obs,
		.description =
		        report_cmd ? "Runs the scenario silently and prints the NETSTAT DEVLINKS SMC-style report of its end.\n"
		                     "Exit 0, 1 if an expectation failed, 2 for a bad scenario or option, 3 if memory ran out."
		                   : run_text,
	};
	return cli_parse_options(&opts, argc, argv);
}

static void free_args(run_args *a)
{
	g_free(a->seed);
	g_free(a->end);
	g_free(a->pnetid);
	g_free(a->format);
	g_free(a->report);
	capture_args_free(&a->cap);
	observe_args_free(&a->obs);
	g_free(a->smcid);
	g_free(a->real_hw);
	g_strfreev(a->set);
}

/* The scenario file argument; 0 or 2 after saying what is wrong. */
static int one_file(const char *prog, int argc)
{
	if (argc == 2)
		return 0;
	fprintf(stderr, "%s: %s (try --help)\n", prog, argc < 2 ? "no scenario file given" : "one scenario file only");
	return 2;
}

static void print_header(const scn_scenario *scn, const world_opts *o, const char *real_hw)
{
	FILE *out = o->out ? o->out : stdout;
	fprintf(out, "scenario %s: %s\nseed %" PRIu64 ", %d stack%s, %zu app%s\n", scn->file, scn->title[0] ? scn->title : "(untitled)",
	        o->has_seed ? o->seed : scn->seed, (int)scn->n_stacks, scn->n_stacks == 1 ? "" : "s", scn->n_apps,
	        scn->n_apps == 1 ? "" : "s");
	if (o->real_hw)
		fprintf(out, "real hardware: %s (QPs on RDMA devices, engine in real time)\n", real_hw);
}

/* The world's options past the common ones: -v, the captures, the progress line, --real-hw
 * (its map in *real); 0 or 2 after saying what is wrong. */
static int run_opts(const char *prog, const run_args *a, world_opts *o, realhw_map *real)
{
	o->verbose = a->verbose;
	o->event_hops = a->event_hops;
	if (capture_args_apply(prog, &a->cap, o))
		return 2;
	o->progress = !a->quiet && isatty(STDERR_FILENO) ? stderr : NULL;
	if (!a->real_hw)
		return 0;
	char err[1024];
	if (realhw_map_parse(a->real_hw, real, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return 2;
	}
	o->real_hw = real;
	o->progress = NULL;
	return 0;
}

/* Build the world, observe it as the options ask and run it; its exit code. */
static int run_world(const char *prog, const scn_scenario *scn, world_opts *o, const run_args *a)
{
	int rc = 0;
	observe_session *obs = observe_session_new(prog, &a->obs, o, o->has_end ? o->end_ns : scn->end_ns, &rc);
	if (rc)
		return rc;
	char err[1024];
	world *w = world_new(scn, o, err, sizeof(err));
	if (!w) {
		fprintf(stderr, "%s: %s\n", prog, err);
		observe_session_free(obs);
		return 2;
	}
	observe_session_start(obs, w, o->has_seed ? o->seed : scn->seed);
	if (!o->json)
		print_header(scn, o, a->real_hw);
	uint64_t failed = world_run(w);
	rc = observe_session_finish(obs, prog);
	if (world_free(w) && !rc)
		rc = 2; /* a capture was lost (said) */
	observe_session_free(obs);
	return rc ? rc : failed ? 1
	                        : 0;
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
	if (!rc)
		rc = one_file(argv[0], argc);
	scn_scenario *scn = NULL;
	if (!rc)
		rc = load(argv[0], argv[1], &a, &scn);
	if (!rc && a.dump) {
		scn_dump(scn, stdout);
		scn_free(scn);
		free_args(&a);
		return 0;
	}
	realhw_map real;
	if (!rc)
		rc = run_opts(argv[0], &a, &o, &real);
	if (!rc)
		rc = run_world(argv[0], scn, &o, &a);
	scn_free(scn);
	free_args(&a);
	return rc;
}

/* --smcid HEX; 0 or 2 after saying what is wrong. */
static int parse_smcid(const char *prog, const char *text, unsigned long long *smcid)
{
	gchar *end = NULL;
	*smcid = g_ascii_strtoull(text, &end, 16);
	if (!end || *end || !text[0] || *smcid > 0xffffffffull) {
		fprintf(stderr, "%s: bad --smcid '%s'; expected a hex id like 00000101\n", prog, text);
		return 2;
	}
	return 0;
}

/* Run silently, then the final report in the chosen format; the exit code. */
static int report_world(const char *prog, const scn_scenario *scn, world_opts *o, const run_args *a,
                        unsigned long long smcid)
{
	bool json = o->json;
	o->json = false;
	o->quiet = true;
	o->out = stderr; /* only failed expectations would print */
	o->progress = !a->quiet && isatty(STDERR_FILENO) ? stderr : NULL;
	char err[512];
	world *w = world_new(scn, o, err, sizeof(err));
	if (!w) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return 2;
	}
	uint64_t failed = world_run(w);
	scn_report_format f = json                                      ? SCN_REPORT_JSON
	                      : o->style == WORLD_STYLE_SMC             ? SCN_REPORT_SMC
	                      : o->style == WORLD_STYLE_SMC_CHK         ? SCN_REPORT_SMC_CHK
	                      : a->report && !strcmp(a->report, "auto") ? SCN_REPORT_AUTO
	                                                                : SCN_REPORT_NETSTAT;
	/* with --pcap - the capture has standard output */
	world_print_report(w, cli_is_stdin(a->cap.pcap) ? stderr : stdout, f, SCN_NONE, a->smcid != NULL, (uint32_t)smcid);
	if (world_free(w))
		return 2; /* a capture was lost (said) */
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
	if (!rc && a.smcid)
		rc = parse_smcid(argv[0], a.smcid, &smcid);
	if (!rc)
		rc = one_file(argv[0], argc);
	scn_scenario *scn = NULL;
	if (!rc)
		rc = load(argv[0], argv[1], &a, &scn);
	if (!rc && a.pnetid) {
		char id[32], err[256];
		if (scn_iface_pnetid(scn, a.pnetid, id, sizeof(id), err, sizeof(err))) {
			fprintf(stderr, "%s: %s\n", argv[0], err);
			rc = 2;
		} else {
			printf("%s\n", id);
		}
		scn_free(scn);
		free_args(&a);
		return rc;
	}
	if (!rc)
		rc = capture_args_apply(argv[0], &a.cap, &o);
	if (!rc)
		rc = report_world(argv[0], scn, &o, &a, smcid);
	scn_free(scn);
	free_args(&a);
	return rc;
}
