/* One point of a sweep of a scenario: the world the scenario makes with the point's
 * --set overrides and seed, run to its end, its expectations evaluated, summed up in one
 * record (sweep_record.h):
 *
 *   {"point":7,"seed":8,"params":{"N":"2"},"pass":false,
 *    "failed":[{"at":"x.scn:30","time_ns":…,"expect":"expect …","detail":"measured 0"}],
 *    "fingerprint":"…","end_ns":…,"events":…,"expectations_passed":5,"expectations_failed":1,
 *    "conns":…,"smcr":…,"fallback":…,"tcp":…,"aborted":…,"bytes_sent":…,"bytes_received":…,
 *    "linkgroups":…,"links":…,"repro":"smcr-sim run x.scn --seed 8 --set N=2"}
 *
 * plus "retried":1 for a point run again, and "error":"…" (pass false) when the point's
 * world could not be built. Nothing in it depends on how or where the point ran. */
#ifndef SIM_SWEEP_POINT_H
#define SIM_SWEEP_POINT_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "sim/report/json_writer.h"
#include "sim/sweep/sweep_runner.h"
#include "sim/sweep/sweep_space.h"
#include "sim/world/world.h"

typedef struct sweep_scenario_job {
	const char *path; /* as given: records and commands name it so */
	char *text;       /* the file, read once */
	size_t len;
	sweep_space space;
	char *header;
	/* the scenario of the last point's parameters (points of one key differ in the seed) */
	scn_scenario *cached;
	uint64_t cached_key;
} sweep_scenario_job;

/* Read the scenario and check each swept value loads (every value of every axis, with
 * the other parameters at their defaults); 0, or 2 with the messages on stderr. */
int sweep_scenario_job_init(sweep_scenario_job *sj, const char *path, uint64_t seed_from, uint64_t seed_to,
                            const char *const *sets, size_t n_sets, FILE *errs);
void sweep_scenario_job_free(sweep_scenario_job *sj);
/* The runner's view of it. */
void sweep_scenario_job_bind(sweep_scenario_job *sj, sweep_job *job);

/* The command that runs point i alone. */
void sweep_point_repro(const sweep_scenario_job *sj, uint64_t point, GString *out);

/* The figures every record carries about a finished world: fingerprint, events,
 * expectations, connections by mode, aborted, bytes, link groups and active links. */
void sweep_world_figures(world *w, json_writer *j);

#endif
