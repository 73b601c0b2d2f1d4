/* The links of a run over time (link_series.h). Lanes are few (links, not connections):
 * found by a linear search, in the order they first appear. */
#include "sim/observe/link_series.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *grow(void *p, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return p;
	*cap = *cap ? *cap * 2 : 16;
	p = realloc(p, *cap * size);
	if (!p)
		abort();
	return p;
}

void link_series_init(link_series *s) { memset(s, 0, sizeof(*s)); }

void link_series_free(link_series *s)
{
	free(s->lanes);
	free(s->samples);
	free(s->times);
	free(s->marks);
	memset(s, 0, sizeof(*s));
}

uint32_t link_series_lane(link_series *s, const char *stack, const char *link_id, const char *peer, const char *lgr_id)
{
	for (size_t i = 0; i < s->n_lanes; i++)
		if (!strcmp(s->lanes[i].stack, stack) && !strcmp(s->lanes[i].link_id, link_id))
			return (uint32_t)i;
	s->lanes = grow(s->lanes, &s->cap_lanes, s->n_lanes, sizeof(*s->lanes));
	link_lane *l = &s->lanes[s->n_lanes];
	memset(l, 0, sizeof(*l));
	snprintf(l->stack, sizeof(l->stack), "%s", stack);
	snprintf(l->link_id, sizeof(l->link_id), "%s", link_id);
	snprintf(l->peer, sizeof(l->peer), "%s", peer ? peer : "");
	snprintf(l->lgr_id, sizeof(l->lgr_id), "%s", lgr_id ? lgr_id : "");
	return (uint32_t)s->n_lanes++;
}

void link_series_time(link_series *s, uint64_t t)
{
	if (s->n_times && s->times[s->n_times - 1] >= t)
		return;
	s->times = grow(s->times, &s->cap_times, s->n_times, sizeof(*s->times));
	s->times[s->n_times++] = t;
}

void link_series_add(link_series *s, uint64_t t, uint32_t lane, report_link_state state, uint64_t out, uint64_t in)
{
	link_series_time(s, t);
	s->samples = grow(s->samples, &s->cap_samples, s->n_samples, sizeof(*s->samples));
	s->samples[s->n_samples++] = (link_sample){ t, lane, state, out, in };
}

void link_series_mark(link_series *s, uint64_t t, const char *text)
{
	s->marks = grow(s->marks, &s->cap_marks, s->n_marks, sizeof(*s->marks));
	link_mark *m = &s->marks[s->n_marks++];
	m->time_ns = t;
	snprintf(m->text, sizeof(m->text), "%s", text);
}

int link_series_state_of(const char *name)
{
	static const char *const names[] = { "LINK_UNUSED", "LINK_INACTIVE", "LINK_ACTIVATING", "LINK_ACTIVE" };
	for (int i = 0; i < 4; i++)
		if (!strcmp(name, names[i]))
			return i;
	return -1;
}
