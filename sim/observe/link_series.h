/* The links of a run over time, as the timeline picture draws them: one lane per link as
 * one stack sees it (stack, local link id, peer), a sample per lane and sampling time
 * (state, bytes out and in so far), and the timeline's actions as marks. Filled by the
 * statistics sampler during a run (stats.h); timeline_svg.h draws it. */
#ifndef SIM_LINK_SERIES_H
#define SIM_LINK_SERIES_H

#include <stddef.h>
#include <stdint.h>

#include "sim/report/report.h"

typedef struct link_lane {
	char stack[32];
	char link_id[16]; /* "0x00000101" */
	char peer[32];
	char lgr_id[16];
} link_lane;

typedef struct link_sample {
	uint64_t time_ns;
	uint32_t lane;
	report_link_state state;
	uint64_t bytes_out, bytes_in;
} link_sample;

typedef struct link_mark {
	uint64_t time_ns;
	char text[96]; /* "fail adapter RA1" */
} link_mark;

typedef struct link_series {
	char title[128];
	link_lane *lanes;
	size_t n_lanes, cap_lanes;
	link_sample *samples; /* in time order */
	size_t n_samples, cap_samples;
	uint64_t *times; /* the sampling times, ascending, each once */
	size_t n_times, cap_times;
	link_mark *marks;
	size_t n_marks, cap_marks;
} link_series;

void link_series_init(link_series *s);
void link_series_free(link_series *s);
/* The lane of (stack, link id), added (with its peer and link group) the first time. */
uint32_t link_series_lane(link_series *s, const char *stack, const char *link_id, const char *peer, const char *lgr_id);
/* A sample; times must not go backwards. */
void link_series_add(link_series *s, uint64_t time_ns, uint32_t lane, report_link_state state, uint64_t bytes_out,
                     uint64_t bytes_in);
/* A sampling time with or without samples of links (so the picture's axis covers it). */
void link_series_time(link_series *s, uint64_t time_ns);
void link_series_mark(link_series *s, uint64_t time_ns, const char *text);
/* "LINK_ACTIVE" -> REPORT_LINK_ACTIVE; -1 for an unknown name. */
int link_series_state_of(const char *name);

#endif
