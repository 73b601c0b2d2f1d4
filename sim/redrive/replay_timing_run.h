/* `smcr-sim replay --mode timing`: a scenario's world run with a capture's frames
 * injected at a spare port of one of its switches (replay_timing.h): the scenario loaded,
 * the world built, the injector attached, a first line saying what goes where, the run
 * (the world's own output), and what was played. */
#ifndef SIM_REPLAY_TIMING_RUN_H
#define SIM_REPLAY_TIMING_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/redrive/replay_timing.h"
#include "sim/world/world.h"

typedef struct replay_timing_run_config {
	const char *capture;    /* the capture file */
	const char *scenario;   /* the scenario file */
	const char *inject_at;  /* the switch to inject at; NULL: the scenario's first */
	const char *speed_text; /* the speed as given, for the first line */
	replay_timing_opts timing;
	world_opts world; /* seed, end, captures, verbose, progress (the spare port is set here) */
	FILE *out;        /* the first line and what was played (the world writes to world.out) */
	FILE *log;        /* the scenario's diagnostics */
} replay_timing_run_config;

typedef struct replay_timing_run_result {
	uint64_t failed; /* expectations that failed */
	bool damaged;    /* the capture ended in a damaged record */
	char damage[200];
	uint64_t time_gaps; /* time stamp jumps closed (replay_timing.h) */
	char first_gap[320];
} replay_timing_run_result;

/* 0 when it ran (r says how), 2 when it cannot: the scenario does not load (its
 * diagnostics on log, err empty), it has no switch, the world or the injector cannot be
 * made (err). */
int replay_timing_run(const replay_timing_run_config *c, replay_timing_run_result *r, char *err, size_t errlen);

#endif
