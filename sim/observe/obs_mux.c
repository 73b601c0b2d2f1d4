/* The observer multiplexer (obs_mux.h). */
#include "sim/observe/obs_mux.h"

#include <string.h>

#define EACH(m, f, ...)                        \
	for (size_t i_ = 0; i_ < (m)->n; i_++) \
		if ((m)->members[i_].f)        \
	(m)->members[i_].f((m)->members[i_].ctx, __VA_ARGS__)

static void mx_message(void *ctx, world *w, uint32_t si, const smcr_trace_msg *msg)
{
	obs_mux *m = ctx;
	EACH(m, message, w, si, msg);
}

static void mx_core_event(void *ctx, world *w, uint32_t si, const smcr_event *ev)
{
	obs_mux *m = ctx;
	EACH(m, core_event, w, si, ev);
}

static void mx_conn(void *ctx, world *w, world_conn_what what, const world_conn_view *c)
{
	obs_mux *m = ctx;
	EACH(m, conn, w, what, c);
}

static void mx_timeline(void *ctx, world *w, const scn_event *ev)
{
	obs_mux *m = ctx;
	EACH(m, timeline, w, ev);
}

static void mx_expect(void *ctx, world *w, const scn_expect *x, bool ok, const char *detail)
{
	obs_mux *m = ctx;
	EACH(m, expect, w, x, ok, detail);
}

static void mx_sample(void *ctx, world *w, uint64_t t)
{
	obs_mux *m = ctx;
	EACH(m, sample, w, t);
}

static void mx_finish(void *ctx, world *w)
{
	obs_mux *m = ctx;
	for (size_t i = 0; i < m->n; i++)
		if (m->members[i].finish)
			m->members[i].finish(m->members[i].ctx, w);
}

void obs_mux_init(obs_mux *m)
{
	memset(m, 0, sizeof(*m));
	m->obs.ctx = m;
	m->obs.finish = mx_finish;
}

int obs_mux_add(obs_mux *m, const world_observer *o)
{
	if (m->n == OBS_MUX_MAX || (o->sample && m->obs.sample))
		return -1;
	m->members[m->n++] = *o;
	/* a callback is set only when some member has it: the world skips the rest */
	if (o->message)
		m->obs.message = mx_message;
	if (o->core_event)
		m->obs.core_event = mx_core_event;
	if (o->conn)
		m->obs.conn = mx_conn;
	if (o->timeline)
		m->obs.timeline = mx_timeline;
	if (o->expect)
		m->obs.expect = mx_expect;
	if (o->sample) {
		m->obs.sample = mx_sample;
		m->obs.sample_ns = o->sample_ns;
	}
	return 0;
}
