/* Statistics over time (`smcr-sim run --stats FILE --stats-interval DUR`): at every
 * multiple of the interval of virtual time, one row per stack, per link (as each stack's
 * core sees it) and per open connection end, in that order (stacks in scenario order, their
 * links in creation order, connections in opening order), and once more at the end of the
 * run. The columns are the same for every row (a value that does not apply to the object
 * is empty in CSV, null in JSON Lines), so a spreadsheet, pandas or gnuplot read the file
 * as it is; docs/schema/stats.schema.json describes each column. Retransmissions are
 * counted where they happen: a link's by its simulated QP (RoCE packets sent again), a
 * stack's and a connection's by TCP (segments sent again). */
#ifndef SIM_STATS_H
#define SIM_STATS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/observe/link_series.h"
#include "sim/observe/obs_ident.h"
#include "sim/world/world.h"

typedef enum stats_format {
	STATS_CSV,
	STATS_JSONL,
} stats_format;

#define STATS_DEFAULT_INTERVAL_NS (100ull * 1000 * 1000) /* 100 ms */

typedef struct stats_opts {
	uint64_t interval_ns;
	stats_format format;
} stats_opts;

typedef struct stats_sampler stats_sampler;

/* Rows go to `out` (NULL: none written) and the links' rows to `series` (NULL: none
 * kept; the timeline picture draws them). The CSV header is written at once. */
stats_sampler *stats_new(FILE *out, world *w, obs_ident *id, const stats_opts *o, link_series *series);
void stats_observer(stats_sampler *s, world_observer *obs);
uint64_t stats_rows(const stats_sampler *s);
void stats_free(stats_sampler *s);

/* The columns, in order (for the CSV reader and tests). */
extern const char *const stats_columns[];
extern const size_t stats_n_columns;

#endif
