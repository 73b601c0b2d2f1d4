/* `smcr-sim check FILE…`: parse and validate scenario files without running them. */
#include <glib.h>
#include <stdio.h>

#include "sim/scenario/scn_model.h"
#include "sim/scenario/scn_warn.h"
#include "tools/cli.h"

/* One file: "FILE: ok (...)", or its errors on stderr; 0 or 2. */
static int check_file(const char *path, const scn_load_opts *lo, bool dump)
{
	scn_diag diag;
	scn_diag_init(&diag);
	scn_scenario *scn = cli_load_scenario(path, lo, &diag);
	int rc = 0;
	if (!scn) {
		scn_diag_print(&diag, stderr);
		rc = 2;
	} else {
		size_t timed = 0;
		for (size_t e = 0; e < scn->n_expects; e++)
			timed += scn->expects[e].timed;
		/* with --dump, stdout carries only the scenario text */
		fprintf(dump ? stderr : stdout, "%s: ok (%zu stacks, %zu apps, %zu events, %zu expectations)\n", cli_input_name(path),
		        scn->n_stacks, scn->n_apps, scn->n_events - timed, scn->n_expects);
		scn_warn_early_restore(scn, stderr);
		if (dump)
			scn_dump(scn, stdout);
	}
	scn_free(scn);
	scn_diag_free(&diag);
	return rc;
}

int cmd_check(int argc, char **argv)
{
	gboolean dump = FALSE, defaults = FALSE;
	gchar **set = NULL;
	GOptionEntry entries[] = {
		{ "dump", 0, 0, G_OPTION_ARG_NONE, &dump, "print each resolved scenario in canonical form", NULL },
		{ "set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &set, "give parameter NAME the value VALUE (repeatable)", "NAME=VALUE" },
		{ "defaults", 0, 0, G_OPTION_ARG_NONE, &defaults, "print the attribute defaults of each personality", NULL },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	cli_options opts = {
		.params = "FILE… - parse and validate scenario files",
		.entries = entries,
		.description = "Prints 'FILE: ok (N stacks, M apps, K events, E expectations)' per valid file\n"
		               "(events: timeline entries other than timed expectations), or every error as\n"
		               "FILE:LINE:COLUMN: message on stderr. Warnings (FILE:LINE:COLUMN: warning: …, on stderr)\n"
		               "name what is valid but will not work as it reads, such as an adapter restored too soon\n"
		               "after its failure for the second link to come back. '-' reads a scenario from stdin.\n"
		               "Exit 0 if all files are valid (warnings or not), 2 otherwise.",
	};
	if (cli_parse_options(&opts, &argc, &argv))
		return 2;
	if (defaults) {
		scn_print_defaults(stdout);
		if (argc < 2) {
			g_strfreev(set);
			return 0;
		}
	}
	if (argc < 2) {
		fprintf(stderr, "%s: no scenario file given (try --help)\n", argv[0]);
		g_strfreev(set);
		return 2;
	}
	scn_load_opts lo = { (const char *const *)set, set ? g_strv_length(set) : 0 };
	int rc = 0;
	for (int i = 1; i < argc; i++)
		if (check_file(argv[i], &lo, dump))
			rc = 2;
	g_strfreev(set);
	return rc;
}
