/* `smcr-sim swarm [--seeds N] [--from S] [--jobs J]`: random worlds with random faults
 * (sim/swarm/), each checked against the invariants after its run; a swarm is a sweep
 * whose points are drawn worlds, so it runs on sweep's runners (one process, --jobs, MPI)
 * with the same result file and resume. `swarm FILE…` checks given scenario files the
 * same way (the regression worlds in tests/data/swarm/); `--world S` prints seed S's world. */
#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "sim/sweep/sweep_record.h"
#include "sim/swarm/swarm_draw.h"
#include "sim/swarm/swarm_job.h"
#include "tools/cli.h"
#include "tools/sweep_cli.h"

typedef struct swarm_args {
	gchar *seeds, *from, *world, *keep;
	sweep_cli_args run;
} swarm_args;

typedef struct describe_ctx {
	const char *keep;
} describe_ctx;

static void describe(void *ctx, const char *rec, GString *out)
{
	describe_ctx *dc = ctx;
	swarm_describe(NULL, rec, out);
	uint64_t seed;
	if (dc->keep && sweep_rec_get_u64(rec, "seed", &seed))
		g_string_append_printf(out, "\n      world: %s/swarm-%" PRIu64 ".scn", dc->keep, seed);
}

/* The drawn world of every failing seed, as a scenario file in keep/. */
static int write_worlds(const char *prog, const char *keep, const sweep_outcome *oc)
{
	const sweep_results *r = oc->results;
	int rc = 0;
	bool made = false;
	for (uint64_t p = 0; p < sweep_results_n_points(r) && !rc; p++) {
		const char *rec = sweep_results_record(r, p);
		uint64_t seed;
		if (!rec || sweep_rec_get_bool(rec, "pass", true) || !sweep_rec_get_u64(rec, "seed", &seed))
			continue;
		if (!made && g_mkdir_with_parents(keep, 0755)) {
			fprintf(stderr, "%s: cannot make %s: %s\n", prog, keep, strerror(errno));
			return 2;
		}
		made = true;
		GString *text = g_string_new(NULL);
		swarm_draw(seed, text);
		char *path = g_strdup_printf("%s/swarm-%" PRIu64 ".scn", keep, seed);
		GError *ge = NULL;
		if (!g_file_set_contents(path, text->str, (gssize)text->len, &ge)) {
			fprintf(stderr, "%s: %s\n", prog, ge->message);
			g_error_free(ge);
			rc = 2;
		}
		g_free(path);
		g_string_free(text, TRUE);
	}
	return rc;
}

static bool parse_count(const char *prog, const char *opt, const char *text, uint64_t *v)
{
	unsigned long long x;
	if (cli_parse_u64(text, &x) || (!strcmp(opt, "--seeds") && (x == 0 || x > SWEEP_MAX_POINTS))) {
		fprintf(stderr, "%s: bad %s '%s'; expected %s\n", prog, opt, text,
		        !strcmp(opt, "--seeds") ? "a number of seeds, 1..100000000" : "a seed (decimal)");
		return false;
	}
	*v = x;
	return true;
}

int cmd_swarm(int argc, char **argv)
{
	swarm_args a;
	memset(&a, 0, sizeof(a));
	GOptionEntry entries[] = {
		{ "seeds", 'n', 0, G_OPTION_ARG_STRING, &a.seeds, "how many seeds (worlds) to draw (default 100)", "N" },
		{ "from", 0, 0, G_OPTION_ARG_STRING, &a.from, "the first seed (default 1)", "S" },
		{ "world", 0, 0, G_OPTION_ARG_STRING, &a.world, "print seed S's world as a scenario and exit", "S" },
		{ "keep", 0, 0, G_OPTION_ARG_STRING, &a.keep,
		  "write each failing seed's world as DIR/swarm-S.scn (default swarm-failures)", "DIR" },
		SWEEP_CLI_ENTRIES(a.run),
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	cli_options opts = {
		.params = "[FILE…] - random worlds with random faults, checked against invariants",
		.entries = entries,
		.description =
		        "Each seed draws a whole world: 2 to 64 stacks of both personalities, adapters (shared and\n"
		        "dedicated, one or two ports), VLANs, routed SMC-Rv2, SMC-Rv1, mixed MTUs, workloads of every\n"
		        "kind, and a fault schedule (failures and restores, bursts of loss, duplication, reordering\n"
		        "and corruption). After its run: every byte arrived once and in order or its connection\n"
		        "failed; no failure while a redundant link survived; nothing hung past the timers' bound;\n"
		        "both ends agree; everything was freed; a second run gives the same fingerprint. A failing\n"
		        "seed is listed with the command that reproduces it and its world written as a scenario.\n"
		        "With FILE arguments, those scenario files are checked the same way. Runs like `sweep`:\n"
		        "--jobs N, under mpirun, --out FILE and --resume.\n"
		        "Exit 0 if no new violation was found (known ones are listed with their reason), 1 if one\n"
		        "was, 2 for a bad option or result file.",
	};
	int rc = cli_parse_options(&opts, &argc, &argv);
	const char *prog = argv[0];
	uint64_t from = 1, n = 100, world_seed = 0;
	if (!rc && a.from && !parse_count(prog, "--from", a.from, &from))
		rc = 2;
	if (!rc && a.seeds && !parse_count(prog, "--seeds", a.seeds, &n))
		rc = 2;
	if (!rc && a.world) {
		if (!parse_count(prog, "--world", a.world, &world_seed)) {
			rc = 2;
		} else {
			GString *text = g_string_new(NULL);
			swarm_draw(world_seed, text);
			fputs(text->str, stdout);
			g_string_free(text, TRUE);
			g_free(a.seeds);
			g_free(a.from);
			g_free(a.world);
			g_free(a.keep);
			sweep_cli_args_free(&a.run);
			return 0;
		}
	}
	if (!rc && argc > 1 && (a.seeds || a.from)) {
		fprintf(stderr, "%s: scenario files or --seeds/--from, not both (try --help)\n", prog);
		rc = 2;
	}
	if (!rc && from > UINT64_MAX - n) {
		fprintf(stderr, "%s: --from %" PRIu64 " with --seeds %" PRIu64 " goes past the last seed\n", prog, from, n);
		rc = 2;
	}
	sweep_opts so;
	if (!rc)
		rc = sweep_cli_opts(prog, &a.run, "swarm", &so);
	if (!rc) {
		swarm_job sj;
		if (argc > 1)
			swarm_job_init_files(&sj, argv + 1, (uint64_t)(argc - 1));
		else
			swarm_job_init_seeds(&sj, from, n);
		sweep_job job;
		swarm_job_bind(&sj, &job);
		const char *keep = argc > 1 ? NULL : a.keep ? a.keep
		                                            : "swarm-failures";
		describe_ctx dc = { keep };
		char *title = argc > 1 ? g_strdup_printf("swarm of %d scenario file%s", argc - 1, argc == 2 ? "" : "s")
		                       : g_strdup_printf("swarm of seeds %" PRIu64 "..%" PRIu64, from, from + n - 1);
		sweep_summary_opts sum = { .title = title, .describe = describe, .ctx = &dc, .out_path = a.run.out, .known = swarm_known_failures };
		sweep_outcome oc;
		char err[1024];
		rc = sweep_execute(&job, &so, &oc, err, sizeof(err));
		if (rc) {
			fprintf(stderr, "%s: %s\n", prog, err);
		} else if (!oc.worker) {
			rc = keep ? write_worlds(prog, keep, &oc) : 0;
			uint64_t bad = sweep_print_summary(stdout, &sum, &oc);
			if (!rc)
				rc = bad ? 1 : 0;
		}
		sweep_results_free(oc.results);
		g_free(title);
		swarm_job_free(&sj);
	}
	g_free(a.seeds);
	g_free(a.from);
	g_free(a.world);
	g_free(a.keep);
	sweep_cli_args_free(&a.run);
	return rc;
}
