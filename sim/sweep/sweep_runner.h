/* Running the points of a sweep: in this process, in N forked worker processes, or over
 * the ranks of an MPI job. The points and what a point is belong to the caller (a sweep of
 * one scenario, sim/sweep/sweep_point.h; a swarm of drawn worlds, sim/swarm/); the runner
 * only hands out point numbers and collects each point's record (sweep_results.h).
 *
 * Distribution is dynamic everywhere: a runner gets its next point when it returns the
 * last one (MPI ranks hold one point ahead, so the round trip to rank 0 is hidden), so a
 * slow point never holds back anyone else's share. A point runs the same whoever runs it:
 * its record depends only on the point. */
#ifndef SIM_SWEEP_RUNNER_H
#define SIM_SWEEP_RUNNER_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/sweep/sweep_results.h"

/* What a point gets to call every few thousand events of its run (world_opts.poll): MPI's
 * rank 0 serves the other ranks from it while it runs a point itself. */
typedef struct sweep_poll {
	void (*fn)(void *arg);
	void *arg;
} sweep_poll;

typedef struct sweep_job {
	uint64_t n_points;
	const char *header; /* the result file's first line: what is swept */
	/* Run point i and append its record (one JSON object, no newline) to rec. retried:
	 * the record says "retried":1. */
	void (*run)(void *ctx, uint64_t point, bool retried, const sweep_poll *poll, GString *rec);
	/* The record of a point that could not be run: `why` says what happened. */
	void (*lost)(void *ctx, uint64_t point, const char *why, GString *rec);
	void *ctx;
} sweep_job;

typedef enum sweep_engine {
	SWEEP_ENGINE_PROCESS, /* every point in this process */
	SWEEP_ENGINE_FORK,    /* --jobs N: N worker processes */
	SWEEP_ENGINE_MPI,     /* the ranks of an MPI job */
} sweep_engine;

typedef struct sweep_opts {
	unsigned jobs;        /* > 1: fork that many workers */
	bool mpi;             /* run over MPI (sweep_mpi_wanted()) */
	const char *out_path; /* result file, or NULL */
	bool resume;
	FILE *progress;   /* a progress line, or NULL */
	const char *what; /* "sweep" or "swarm", for the progress line */
} sweep_opts;

typedef struct sweep_outcome {
	sweep_engine engine;
	bool worker;      /* an MPI rank other than 0: it ran points, it has no results */
	unsigned runners; /* processes or ranks that ran points */
	sweep_results *results;
	uint64_t n_run;      /* points run now (not read back from the file) */
	uint64_t n_retried;  /* of them, run again after their runner died or the sweep stopped */
	uint64_t n_lost;     /* runners that died */
	uint64_t elapsed_ns; /* wall time from the first point handed out to the last record */
	uint64_t point_ns;   /* wall time of the points run now, added up */
	uint64_t gap_ns;     /* runners' time between returning a point and starting the next */
	uint64_t gaps;
	uint64_t startup_ns; /* MPI: MPI_Init and the first message */
} sweep_outcome;

/* Run the job's points that have no record yet; 0, or 2 with the reason in err (the
 * result file, fork, MPI). outcome->results is the caller's to free. */
int sweep_execute(const sweep_job *job, const sweep_opts *o, sweep_outcome *outcome, char *err, size_t errlen);

/* MPI (sim/sweep/sweep_mpi.c): built in only when the build found Open MPI. */
bool sweep_mpi_built(void);
/* Is this process a rank of an MPI job (mpirun or srun set its environment)? */
bool sweep_mpi_detected(void);
/* What the build's MPI is ("Open MPI 4.1.4"), or NULL without MPI. */
const char *sweep_mpi_version(void);

/* internal: the MPI engine (sweep_mpi.c) and what it shares with the others */
int sweep_execute_mpi(const sweep_job *job, const sweep_opts *o, sweep_outcome *outcome, char *err, size_t errlen);
void sweep_progress(const sweep_opts *o, const sweep_outcome *out, uint64_t done, uint64_t todo, bool last);
char *sweep_runner_name_pid(void);

#endif
