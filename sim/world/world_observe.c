/* The world's side of its observer (sim/world/world_observer.h): the hooks its files call
 * at their log points, turned into the observer's callbacks, the sampling clock, and the
 * accessors an observer reads the world with. Nothing here changes the run. */
#include <string.h>

#include "sim/world/world_int.h"

static const world_observer *obs(const world *w) { return w->o.observer; }

stack *world_stack_at(const world *w, uint32_t i) { return i < w->scn->n_stacks ? w->st[i].st : NULL; }
smc_layer *world_layer_at(const world *w, uint32_t i) { return i < w->scn->n_stacks ? w->st[i].l : NULL; }

/* ---- connections ---- */

static void view_of(const world *w, const world_end *e, world_conn_view *v)
{
	const world_flow *f = world_flow_of(e);
	const scn_app *a = &w->scn->apps[f->app];
	memset(v, 0, sizeof(*v));
	v->flow = f->seq;
	world_flow_name(w, f, v->name, sizeof(v->name));
	v->app = f->app;
	v->listener = f->listener;
	v->server = e->server;
	v->stack = world_end_stack(e);
	v->peer_stack = f->stack[!e->server];
	v->connected = e->connected;
	v->mode = e->mode;
	v->fallback_reason = e->mode == SOCK_MODE_FALLBACK ? e->reason : 0;
	v->peer_diagnosis = world_end_peer_diag(e);
	if (f->key) {
		/* the flow's key holds the client's address; the server's is the app's target */
		uint32_t cip = (uint32_t)(f->key >> 16), sip = a->dst_ip;
		uint16_t cport = (uint16_t)f->key, sport = a->port;
		v->local_ip = e->server ? sip : cip;
		v->local_port = e->server ? sport : cport;
		v->peer_ip = e->server ? cip : sip;
		v->peer_port = e->server ? cport : sport;
	} else if (!e->server) { /* a connect that never had a 4-tuple: where it was going */
		v->peer_ip = a->dst_ip;
		v->peer_port = a->port;
	}
	v->err = e->err;
	v->sent = e->sent;
	v->received = e->received;
	v->s = e->s;
	v->af = &f->af;
	v->connect = e->server || f->foreign ? WORLD_CONNECT_OK : world_connect_kind_of(f);
	if (v->connect != WORLD_CONNECT_OK)
		world_connect_cause(w, f, v->cause, sizeof(v->cause));
}

void world_foreach_end(const world *w, void (*fn)(void *arg, const world_conn_view *c), void *arg)
{
	for (size_t i = 0; i < w->n_flows; i++) {
		const world_flow *f = w->flows[i];
		world_conn_view v;
		if (!f->foreign) { /* connected, ended, or still connecting */
			view_of(w, &f->af.c, &v);
			fn(arg, &v);
		}
		if (f->srv_seen) {
			view_of(w, &f->af.srv, &v);
			fn(arg, &v);
		}
	}
}

bool world_find_end(const world *w, uint32_t si, uint32_t local_ip, uint16_t local_port, uint32_t peer_ip,
                    uint16_t peer_port, world_conn_view *out)
{
	for (size_t i = 0; i < w->n_flows; i++) {
		const world_flow *f = w->flows[i];
		if (!f->key)
			continue;
		const world_end *ends[2] = { &f->af.c, &f->af.srv };
		for (int k = 0; k < 2; k++) {
			if (world_end_stack(ends[k]) != si)
				continue;
			view_of(w, ends[k], out);
			if (out->local_ip == local_ip && out->local_port == local_port && out->peer_ip == peer_ip &&
			    out->peer_port == peer_port)
				return true;
		}
	}
	return false;
}

void world_obs_conn(world *w, const world_end *e, world_conn_what what)
{
	if (!obs(w) || !obs(w)->conn || w->freeing)
		return;
	world_conn_view v;
	view_of(w, e, &v);
	obs(w)->conn(obs(w)->ctx, w, what, &v);
}

/* ---- the cores ---- */

static void on_trace(void *user, smc_layer *l, const smcr_trace_msg *m)
{
	world *w = user;
	world_host *ws = world_stack_of_layer(w, l);
	if (ws && obs(w) && obs(w)->message && !w->freeing)
		obs(w)->message(obs(w)->ctx, w, (uint32_t)(ws - w->st), m);
}

/* Whether the observer wants messages is asked per message: its callbacks may be filled in
 * after the world is built (they need the world). */
void world_obs_attach(world *w, world_host *ws)
{
	if (obs(w) && ws->l)
		smc_layer_set_trace_fn(ws->l, on_trace, w);
}

void world_obs_core_event(world *w, const smc_layer *l, const smcr_event *ev)
{
	if (!obs(w) || !obs(w)->core_event || w->freeing)
		return;
	world_host *ws = world_stack_of_layer(w, l);
	if (ws)
		obs(w)->core_event(obs(w)->ctx, w, (uint32_t)(ws - w->st), ev);
}

/* ---- the timeline ---- */

void world_obs_timeline(world *w, const scn_event *ev)
{
	if (obs(w) && obs(w)->timeline)
		obs(w)->timeline(obs(w)->ctx, w, ev);
}

void world_obs_expect(world *w, const scn_expect *x, bool ok, const char *detail)
{
	if (obs(w) && obs(w)->expect)
		obs(w)->expect(obs(w)->ctx, w, x, ok, detail);
}

/* ---- the sampling clock ---- */

sim_time world_obs_next_sample(const world *w)
{
	if (!obs(w) || !obs(w)->sample || !obs(w)->sample_ns)
		return SIM_TIME_NEVER;
	return w->obs_next_sample;
}

static void take(world *w, sim_time t)
{
	obs(w)->sample(obs(w)->ctx, w, t);
	w->obs_last_sample = t;
	w->obs_sampled = true;
}

void world_obs_sample(world *w, sim_time t, bool idle, sim_time until)
{
	uint64_t step = obs(w)->sample_ns;
	if (!idle)
		take(w, t);
	/* idle: nothing changes before `until` (the next timeline event or the end), so the
	 * samples resume after it; the end of the run takes one more */
	sim_time from = idle && until > t ? until : t;
	w->obs_next_sample = (from / step + 1) * step;
	if (w->obs_next_sample <= from)
		w->obs_next_sample = SIM_TIME_NEVER; /* wrapped */
}

void world_obs_finish(world *w)
{
	if (!obs(w))
		return;
	sim_time t = sim_now(w->eng);
	if (obs(w)->sample && obs(w)->sample_ns && (!w->obs_sampled || w->obs_last_sample < t))
		take(w, t);
	if (obs(w)->finish)
		obs(w)->finish(obs(w)->ctx, w);
}
