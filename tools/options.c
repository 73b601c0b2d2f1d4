/* The option parsing every subcommand shares: one GOptionContext built, parsed and freed,
 * a parse error printed as "PROG: message". */
#include <stdbool.h>
#include <stdio.h>

#include "tools/capture_opts.h"
#include "tools/cli.h"

int cli_parse_options(const cli_options *o, int *argc, char ***argv)
{
	GOptionContext *ctx = g_option_context_new(o->params);
	if (o->summary)
		g_option_context_set_summary(ctx, o->summary);
	g_option_context_add_main_entries(ctx, o->entries, NULL);
	if (o->capture)
		capture_option_add(ctx, o->capture);
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
