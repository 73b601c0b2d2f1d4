/* `smcr-sim sweep FILE --seeds A..B --set NAME=V1,V2,…`: run every point of the cross
 * product of seeds and parameter values (sim/sweep/), in this process, in --jobs N worker
 * processes, or over the ranks of an MPI job; write one record per point (--out) and
 * print the summary: failing points first, each with the command that reproduces it. */
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sim/sweep/sweep_point.h"
#include "sim/sweep/sweep_record.h"
#include "sim/sweep/sweep_summary.h"
#include "tools/cli.h"
#include "tools/sweep_cli.h"

typedef struct sweep_args {
	gchar *seeds;
	gchar **set;
	sweep_cli_args run;
} sweep_args;

/* One line for a failing point: its seed and values, then its first failed expectation. */
static void describe(void *ctx, const char *rec, GString *out)
{
	(void)ctx;
	GString *v = g_string_new(NULL), *item = g_string_new(NULL), *f = g_string_new(NULL);
	uint64_t seed = 0;
	sweep_rec_get_u64(rec, "seed", &seed);
	g_string_append_printf(out, "seed %" PRIu64, seed);
	if (sweep_rec_get(rec, "params", v) && strcmp(v->str, "{}")) {
		/* {"N":"2","M":"x"} -> N=2 M=x */
		char **parts = g_strsplit_set(v->str, "{}\",:", -1);
		bool name = true;
		for (size_t i = 0; parts[i]; i++) {
			if (!parts[i][0])
				continue;
			g_string_append_printf(out, name ? " %s" : "=%s", parts[i]);
			name = !name;
		}
		g_strfreev(parts);
	}
	if (sweep_rec_get(rec, "error", v)) {
		g_string_append_printf(out, ": error: %s", v->str);
	} else if (sweep_rec_get(rec, "failed", v)) {
		size_t n = 0;
		while (sweep_rec_item(v->str, n, item))
			n++;
		if (sweep_rec_item(v->str, 0, item)) {
			sweep_rec_get(item->str, "at", f);
			g_string_append_printf(out, ": %s: ", f->str);
			sweep_rec_get(item->str, "expect", f);
			g_string_append(out, f->str);
			sweep_rec_get(item->str, "detail", f);
			g_string_append_printf(out, " (%s)", f->str);
			if (n > 1)
				g_string_append_printf(out, " and %zu more", n - 1);
		}
	}
	if (sweep_rec_get_bool(rec, "retried", false))
		g_string_append(out, " [retried]");
	g_string_free(v, TRUE);
	g_string_free(item, TRUE);
	g_string_free(f, TRUE);
}

int cmd_sweep(int argc, char **argv)
{
	sweep_args a;
	memset(&a, 0, sizeof(a));
	GOptionEntry entries[] = {
		{ "seeds", 0, 0, G_OPTION_ARG_STRING, &a.seeds, "the seeds: A..B or one seed (default: the scenario's)", "A..B" },
		{ "set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a.set,
		  "sweep parameter NAME over these values (repeatable: the cross product)", "NAME=V1,V2,…" },
		SWEEP_CLI_ENTRIES(a.run),
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	cli_options opts = {
		.params = "FILE - run a scenario at every point of a cross product of seeds and parameter values",
		.entries = entries,
		.description =
		        "Each point is one run: the world the scenario makes with the point's --set values and seed,\n"
		        "run to its end, its expectations evaluated. Points are numbered with the first --set varying\n"
		        "slowest and the seed fastest. --out FILE gets one JSON record per point (pass, the failed\n"
		        "expectations with FILE:LINE, fingerprint, figures), sorted by point at the end, so its bytes\n"
		        "are the same with one process, --jobs N or mpirun; wall times go to FILE.wall. --resume goes\n"
		        "on from FILE without running its finished points again. Under mpirun (or srun, or with --mpi)\n"
		        "the points are spread over the ranks. The summary lists failing points first, each with the\n"
		        "smcr-sim run command that reproduces it.\n"
		        "Exit 0 if every point passed, 1 if one failed, 2 for a bad scenario, option or result file.",
	};
	int rc = cli_parse_options(&opts, &argc, &argv);
	const char *prog = argv[0];
	if (!rc && argc != 2) {
		fprintf(stderr, "%s: %s (try --help)\n", prog, argc < 2 ? "no scenario file given" : "one scenario file only");
		rc = 2;
	}
	uint64_t from = 0, to = 0;
	char err[1024];
	bool seeds_given = a.seeds != NULL;
	if (!rc && seeds_given && !sweep_parse_seeds(a.seeds, &from, &to, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", prog, err);
		rc = 2;
	}
	sweep_opts so;
	if (!rc)
		rc = sweep_cli_opts(prog, &a.run, "sweep", &so);
	sweep_scenario_job sj;
	memset(&sj, 0, sizeof(sj));
	if (!rc) {
		if (!seeds_given) {
			/* the scenario's own seed */
			scn_diag d;
			scn_diag_init(&d);
			scn_scenario *s = cli_load_scenario(argv[1], NULL, &d);
			if (!s) {
				scn_diag_print(&d, stderr);
				rc = 2;
			} else {
				from = to = s->seed;
			}
			scn_free(s);
			scn_diag_free(&d);
		}
	}
	if (!rc)
		rc = sweep_scenario_job_init(&sj, argv[1], from, to, (const char *const *)a.set,
		                             a.set ? g_strv_length(a.set) : 0, stderr);
	if (!rc) {
		sweep_job job;
		sweep_scenario_job_bind(&sj, &job);
		char *title = g_strdup_printf("sweep %s", argv[1]);
		sweep_summary_opts sum = { .title = title, .space = &sj.space, .describe = describe, .out_path = a.run.out };
		rc = sweep_cli_execute(prog, &job, &so, &sum);
		g_free(title);
	}
	sweep_scenario_job_free(&sj);
	g_free(a.seeds);
	g_strfreev(a.set);
	sweep_cli_args_free(&a.run);
	return rc;
}
