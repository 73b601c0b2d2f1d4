/* What every subcommand shares: dispatch to a named command of a table, and option parsing
 * (one GOptionContext built, parsed and freed, a parse error printed as "PROG: message"). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "tools/capture_opts.h"
#include "tools/cli.h"
#include "tools/observe_opts.h"

int cli_parse_options(const cli_options *o, int *argc, char ***argv)
{
	GOptionContext *ctx = g_option_context_new(o->params);
	if (o->summary)
		g_option_context_set_summary(ctx, o->summary);
	g_option_context_add_main_entries(ctx, o->entries, NULL);
	if (o->capture)
		capture_option_add(ctx, o->capture);
	if (o->observe)
		observe_option_add(ctx, o->observe);
	if (o->description)
		g_option_context_set_description(ctx, o->description);
	GError *err = NULL;
	bool ok = g_option_context_parse(ctx, argc, argv, &err);
	if (!ok) {
		fprintf(stderr, "%s: %s\n", (*argv)[0], err->message);
		g_error_free(err);
	}
	g_option_context_free(ctx);
	return ok ? 0 : 2;
}

int cli_run_command(const cli_command *table, size_t n, const char *group, int argc, char **argv)
{
	for (size_t i = 0; i < n; i++) {
		if (strcmp(argv[1], table[i].name))
			continue;
		char *prog = g_strdup_printf("%s %s", group, argv[1]);
		argv[1] = prog;
		int rc = table[i].main(argc - 1, argv + 1);
		g_free(prog);
		return rc;
	}
	return -1;
}
