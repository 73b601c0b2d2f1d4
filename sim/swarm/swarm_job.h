/* A swarm as a sweep (sim/sweep/sweep_runner.h): its points are drawn worlds (seeds S,
 * S+1, …: swarm_draw.h) or given scenario files (regression worlds), each run through
 * swarm_check() and summed up in one record:
 *
 *   {"point":3,"seed":17,"stacks":5,"adapters":7,"apps":6,"faults":3,"pass":false,
 *    "violations":["redundancy: …"],"fingerprint":"…","end_ns":…,"events":…,"conns":…,
 *    "smcr":…,"fallback":…,"tcp":…,"aborted":…,"bytes":…,
 *    "repro":"smcr-sim swarm --from 17 --seeds 1"}
 *
 * ("file" instead of "seed" for a given file; "retried":1, "error" as in a sweep). */
#ifndef SIM_SWARM_JOB_H
#define SIM_SWARM_JOB_H

#include <glib.h>
#include <stdint.h>

#include "sim/sweep/sweep_runner.h"

typedef struct swarm_job {
	uint64_t from; /* the first seed */
	uint64_t n;    /* seeds (or files) */
	char **files;  /* scenario files instead of seeds, or NULL */
	char *header;
} swarm_job;

void swarm_job_init_seeds(swarm_job *sj, uint64_t from, uint64_t n);
void swarm_job_init_files(swarm_job *sj, char **files, uint64_t n);
void swarm_job_free(swarm_job *sj);
void swarm_job_bind(swarm_job *sj, sweep_job *job);

/* A failing point in one line (from its record): seed or file, then its first violation. */
void swarm_describe(void *ctx, const char *record, GString *out);

/* Violations the swarm has found that are known and explained (sim/swarm/swarm_known.c):
 * {text the violation contains, reason} pairs, NULL-terminated. */
extern const char *const swarm_known_failures[];

#endif
