/* `smcr-sim check FILE…`: parse and validate scenario files without running them. */
#include <glib.h>
#include <stdio.h>

#include <errno.h>
#include <string.h>

#include "sim/observe/topology_svg.h"
#include "sim/scenario/scn_model.h"
#include "sim/scenario/scn_reach.h"
#include "sim/scenario/scn_warn.h"
#include "tools/cli.h"

/* The scenario's topology (without links: nothing ran) as SVG; 0 or 2. */
static int write_topology(const char *path, const scn_scenario *scn)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "smcr-sim check: --topology %s: %s\n", path, strerror(errno));
		return 2;
	}
	topology_svg_write(f, scn, NULL, 0);
	bool bad = ferror(f) != 0;
	bad |= fclose(f) != 0;
	if (bad)
		fprintf(stderr, "smcr-sim check: --topology %s: write failed\n", path);
	return bad ? 2 : 0;
}

/* One file: "FILE: ok (...)", or its errors on stderr; 0 or 2. */
static int check_file(const char *path, const scn_load_opts *lo, bool dump, const char *topology)
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
		size_t events = scn->n_events - timed;
		fprintf(dump ? stderr : stdout, "%s: ok (%zu stack%s, %zu app%s, %zu event%s, %zu expectation%s)\n",
		        cli_input_name(path), scn->n_stacks, scn->n_stacks == 1 ? "" : "s", scn->n_apps, scn->n_apps == 1 ? "" : "s",
		        events, events == 1 ? "" : "s", scn->n_expects, scn->n_expects == 1 ? "" : "s");
		scn_warn_early_restore(scn, stderr);
		scn_warn_unreachable(scn, stderr);
		scn_warn_no_stack(scn, stderr);
		if (dump)
			scn_dump(scn, stdout);
		if (topology)
			rc = write_topology(topology, scn);
	}
	scn_free(scn);
	scn_diag_free(&diag);
	return rc;
}

int cmd_check(int argc, char **argv)
{
	gboolean dump = FALSE, defaults = FALSE;
	gchar **set = NULL;
	gchar *topology = NULL;
	GOptionEntry entries[] = {
		{ "topology", 0, 0, G_OPTION_ARG_FILENAME, &topology,
		  "an SVG picture of the scenario's topology: stacks, adapters, switches, wires, interfaces, VLANs (one "
		  "scenario file)",
		  "FILE" },
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
	if (cli_parse_options(&opts, &argc, &argv)) {
		g_strfreev(set);
		g_free(topology);
		return 2;
	}
	if (defaults) {
		scn_print_defaults(stdout);
		if (argc < 2) {
			g_strfreev(set);
			g_free(topology);
			return 0;
		}
	}
	if (argc < 2) {
		fprintf(stderr, "%s: no scenario file given (try --help)\n", argv[0]);
		g_strfreev(set);
		g_free(topology);
		return 2;
	}
	if (topology && argc != 2) {
		fprintf(stderr, "%s: --topology draws one scenario file\n", argv[0]);
		g_strfreev(set);
		g_free(topology);
		return 2;
	}
	scn_load_opts lo = { (const char *const *)set, set ? g_strv_length(set) : 0 };
	int rc = 0;
	for (int i = 1; i < argc; i++)
		if (check_file(argv[i], &lo, dump, topology))
			rc = 2;
	g_strfreev(set);
	g_free(topology);
	return rc;
}
