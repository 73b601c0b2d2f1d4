/* Worlds for tests (see scn_world.h). */
#include "tests/support/scn_world.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

scn_world *scn_world_new(const char *text, const world_opts *opts)
{
	scn_world *t = calloc(1, sizeof(*t));
	cr_assert(t);
	scn_diag diag;
	scn_diag_init(&diag);
	t->scn = scn_load_string("test.scn", text, strlen(text), &diag);
	if (!t->scn)
		scn_diag_print(&diag, stderr);
	scn_diag_free(&diag);
	cr_assert(t->scn, "the test scenario does not load");
	t->out = open_memstream(&t->out_buf, &t->out_len);
	world_opts o;
	if (opts)
		o = *opts;
	else
		world_opts_default(&o);
	o.out = t->out;
	char err[256];
	t->w = world_new(t->scn, &o, err, sizeof(err));
	cr_assert(t->w, "world_new: %s", err);
	return t;
}

const char *scn_world_output(scn_world *t)
{
	fflush(t->out);
	return t->out_buf ? t->out_buf : "";
}

unsigned long scn_world_run(scn_world *t)
{
	return (unsigned long)world_run(t->w);
}

void scn_world_free(scn_world *t)
{
	if (!t)
		return;
	world_free(t->w);
	fclose(t->out);
	free(t->out_buf);
	scn_free(t->scn);
	free(t);
}
