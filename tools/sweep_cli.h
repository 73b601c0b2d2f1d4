/* The options `sweep` and `swarm` share (how the points run, where the results go) and
 * running a job with them (tools/sweep_cli.c). */
#ifndef SMCR_SWEEP_CLI_H
#define SMCR_SWEEP_CLI_H

#include <glib.h>

#include "sim/sweep/sweep_runner.h"
#include "sim/sweep/sweep_summary.h"

typedef struct sweep_cli_args {
	gint jobs;
	gboolean mpi, resume, quiet;
	gchar *out;
} sweep_cli_args;

#define SWEEP_CLI_ENTRIES(r)                                                                                                       \
	{ "jobs", 'j', 0, G_OPTION_ARG_INT, &(r).jobs, "run points in N worker processes on this machine", "N" },                  \
	        { "mpi", 0, 0, G_OPTION_ARG_NONE, &(r).mpi,                                                                        \
		  "spread the points over the ranks of an MPI job (automatic under mpirun, or srun with PMIx)", NULL },            \
	        { "out", 'o', 0, G_OPTION_ARG_STRING, &(r).out, "write one JSON record per point to FILE (wall times: FILE.wall)", \
		  "FILE" },                                                                                                        \
	        { "resume", 0, 0, G_OPTION_ARG_NONE, &(r).resume,                                                                  \
		  "go on from --out FILE: its finished points are not run again", NULL },                                          \
	{                                                                                                                          \
		"quiet", 'q', 0, G_OPTION_ARG_NONE, &(r).quiet, "no progress line on stderr", NULL                                 \
	}

/* The runner's options from the command line; 0, or 2 after saying what is wrong. */
int sweep_cli_opts(const char *prog, const sweep_cli_args *a, const char *what, sweep_opts *o);
/* Run the job and print the summary (rank 0 only); the exit code: 0 if every point
 * passed (or failed as known), 1 if one failed, 2 on an error. */
int sweep_cli_execute(const char *prog, const sweep_job *job, const sweep_opts *o, const sweep_summary_opts *sum);
void sweep_cli_args_free(sweep_cli_args *a);

#endif
