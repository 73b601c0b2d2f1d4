/* The summary a sweep (or a swarm) prints when its points are done: how many passed,
 * the failing points first, each with the one command that reproduces it on a laptop,
 * then (for a sweep) the pass/fail table per parameter value, then how it ran: the engine,
 * wall time, speedup over one process and the overhead per point. */
#ifndef SIM_SWEEP_SUMMARY_H
#define SIM_SWEEP_SUMMARY_H

#include <glib.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/sweep/sweep_runner.h"
#include "sim/sweep/sweep_space.h"

typedef struct sweep_summary_opts {
	const char *title;        /* "sweep scenarios/x.scn" */
	const sweep_space *space; /* a sweep's axes (the table by value), or NULL */
	/* What went wrong at a failing point, in one line (from its record). */
	void (*describe)(void *ctx, const char *record, GString *out);
	void *ctx;
	const char *out_path; /* the result file, or NULL */
	/* Known failures: a failing point whose description contains one of these texts is
	 * listed as known (with the text's reason) rather than new. NULL-terminated pairs
	 * {text, reason}, or NULL. */
	const char *const *known;
} sweep_summary_opts;

/* Print it; the number of failing points that are not known. */
uint64_t sweep_print_summary(FILE *out, const sweep_summary_opts *so, const sweep_outcome *oc);

#endif
