/* Worlds for tests: a scenario from a string, built and ready to run (sim/world/world.h), its
 * output collected in memory (or thrown away). */
#ifndef TESTS_SCN_WORLD_H
#define TESTS_SCN_WORLD_H

#include <stddef.h>
#include <stdio.h>

#include "sim/scenario/scn_model.h"
#include "sim/world/world.h"

typedef struct scn_world {
	scn_scenario *scn;
	world *w;
	char *out_buf; /* what the world printed (after scn_world_output) */
	size_t out_len;
	FILE *out;
} scn_world;

/* Load the text (asserting it is a valid scenario) and build its world; opts may be
 * NULL (defaults; output captured). */
scn_world *scn_world_new(const char *text, const world_opts *opts);
/* What the world printed so far (NUL-terminated). */
const char *scn_world_output(scn_world *t);
void scn_world_free(scn_world *t);

/* Run to the end: returns the number of failed expectations (their messages are in the
 * output). */
unsigned long scn_world_run(scn_world *t);

#endif
