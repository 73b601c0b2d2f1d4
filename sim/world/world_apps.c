/* The scenario's applications, instances of the application library (sim/app/app.h):
 * connecting apps (bulk, echo, rr) open `conns` connections; listening apps (sink, echo,
 * responder) serve them.
 *
 * Each connection is a flow with two ends. The world pairs the ends when the listener
 * accepts (by server stack, client address and port), so every byte is checked against
 * the seeded pattern of its direction and counted on both sides: `sent`, `received`
 * (intact: counting stops at the first wrong byte) and, from the other end, `delivered`.
 * A responder answers each request with the response size of the client's app (the
 * scenario is the application protocol). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim/engine/oom.h"
#include "sim/net/tcp.h"
#include "sim/world/world_int.h"

static const scn_app *app_of(const world *w, uint32_t i) { return &w->scn->apps[i]; }

static uint64_t flow_key(uint32_t srv_stack, uint32_t client_ip, uint16_t client_port)
{
	return (uint64_t)srv_stack << 48 | (uint64_t)client_ip << 16 | client_port;
}

static app_kind kind_of(scn_app_kind k)
{
	switch (k) {
	case SCN_KIND_BULK:
		return APP_BULK;
	case SCN_KIND_ECHO:
		return APP_ECHO;
	case SCN_KIND_RR:
		return APP_RR;
	case SCN_KIND_SINK:
		return APP_SINK;
	case SCN_KIND_RESPONDER:
		return APP_RESPONDER;
	case SCN_KIND_CRR:
		return APP_CRR;
	}
	return APP_SINK;
}

static void spec_of(const scn_app *a, app_spec *sp)
{
	*sp = (app_spec){
		.kind = kind_of(a->kind),
		.bytes = a->bytes,
		.request = a->request,
		.response = a->response,
		.count = a->count,
		.think_ns = a->think_ns,
		.duration_ns = a->duration_ns,
		.write = a->write,
		.close_after = a->close == SCN_CLOSE_AFTER,
	};
}

/* ---- what the world hears of the ends ---- */

static void on_end_connected(void *user, app_end *e, sock *s)
{
	world *w = user;
	world_flow *f = world_flow_of(e);
	f->peer_diag[e->server] = 0;
	smc_layer *l = w->st[world_end_stack(e)].l;
	uint32_t r = 0, d = 0;
	if (l && smc_layer_sock_reasons(l, s, &r, &d) && e->mode == SOCK_MODE_FALLBACK)
		f->peer_diag[e->server] = d;
	tcp_pcb *pcb = sock_tcp_pcb(s);
	if (pcb) { /* kept for the reports of connections already closed (smc_chk) */
		tcp_info ti;
		tcp_get_info(pcb, &ti);
		f->local_ip[e->server] = ti.local_ip;
		f->peer_ip[e->server] = ti.remote_ip;
		f->local_port[e->server] = ti.local_port;
		f->peer_port[e->server] = ti.remote_port;
	}
	world_log_connected(w, e, s);
	if (e->server)
		world_log_server_fallback(w, e);
}

static void on_connect_failed(void *user, app_end *e, sock *s, int err)
{
	world *w = user;
	world_flow *f = world_flow_of(e);
	world_connect_failed(w, f, s, err, s == NULL);
	if (!s)
		world_log_connect_failed(w, f);
}

static void on_end_closed(void *user, app_end *e)
{
	world *w = user;
	if (!w->freeing) {
		world_cpu_snapshot(w, world_end_stack(e));
		world_log_closed(w, e);
	}
}

static const app_hooks end_hooks = {
	.connected = on_end_connected,
	.closed = on_end_closed,
	.connect_failed = on_connect_failed,
};

/* ---- flows ---- */

void world_flow_name(const world *w, const world_flow *f, char *buf, size_t len)
{
	const scn_app *a = app_of(w, f->app);
	if (a->conns > 1)
		snprintf(buf, len, "%s.%u", a->name, f->instance);
	else
		snprintf(buf, len, "%s", a->name);
}

static void app_add_flow(world_app *wa, world_flow *f)
{
	if (wa->n_flows == wa->cap_flows) {
		wa->cap_flows = wa->cap_flows ? wa->cap_flows * 2 : 8;
		wa->flows = realloc(wa->flows, wa->cap_flows * sizeof(*wa->flows));
		if (!wa->flows)
			abort();
	}
	wa->flows[wa->n_flows++] = f;
}

/* A flow of client app `app` (its instance) to listener `listener`, whose server end runs
 * `server_kind`; listed in the world and under both apps (once when they are one). */
static world_flow *flow_make(world *w, uint32_t app, uint32_t listener, uint32_t instance, app_kind server_kind)
{
	world_flow *f = sim_xcalloc(1, sizeof(*f), "a connection");
	f->w = w;
	f->app = app;
	f->listener = listener;
	f->instance = instance;
	f->seq = w->n_flows + 1;
	uint64_t up = sim_mix64(w->seed ^ (f->seq * 2 + 0x5eed));
	uint64_t down = sim_mix64(w->seed ^ (f->seq * 2 + 1 + 0x5eed));
	app_flow_init(&f->af, &w->apps[app].spec, server_kind, up, down, &end_hooks, w);
	f->af.server_work_ns = server_kind == APP_RESPONDER ? app_of(w, listener)->work_ns : 0;
	f->stack[0] = app_of(w, app)->stack;
	f->stack[1] = app_of(w, listener)->stack;
	if (w->n_flows == w->cap_flows) {
		w->cap_flows = w->cap_flows ? w->cap_flows * 2 : 64;
		w->flows = sim_xreallocarray(w->flows, w->cap_flows, sizeof(*w->flows), "the connections");
	}
	w->flows[w->n_flows++] = f;
	app_add_flow(&w->apps[app], f);
	if (listener != app)
		app_add_flow(&w->apps[listener], f);
	return f;
}

static world_flow *new_flow(world *w, uint32_t app, uint32_t instance)
{
	const scn_app *a = app_of(w, app);
	return flow_make(w, app, a->listener, instance, kind_of(app_of(w, a->listener)->kind));
}

/* A foreign connection to a listener no connecting app of the scenario targets (a
 * scenario of the server side alone): served by the listener's own kind, a responder as a
 * sink (the request and response sizes are the connecting app's, and there is none), so
 * that it reads, closes and frees its buffers as a server does rather than being refused. */
static world_flow *adopt_alone(world *w, world_app *wa, tcp_pcb *pcb)
{
	const scn_app *l = app_of(w, wa->idx);
	app_kind k = kind_of(l->kind);
	world_flow *f = flow_make(w, wa->idx, wa->idx, (uint32_t)wa->n_flows + 1, k == APP_RESPONDER ? APP_SINK : k);
	tcp_info ti;
	tcp_get_info(pcb, &ti);
	f->key = flow_key(l->stack, ti.remote_ip, ti.remote_port);
	g_hash_table_replace(w->flow_by_key, &f->key, f);
	f->af.c.ended = true; /* the client end is not ours */
	f->foreign = true;
	return f;
}

/* A connection no application of the scenario opened (a peer played by replay --mode
 * timing or redrive): served as if the first connecting application that targets this
 * listener had opened it (its kind and sizes, the next flow number), so that the
 * listener behaves as it did in the recorded run. None: it is refused. */
static world_flow *adopt(world *w, world_app *wa, tcp_pcb *pcb)
{
	if (!pcb)
		return NULL;
	for (uint32_t i = 0; i < w->scn->n_apps; i++) {
		const scn_app *a = app_of(w, i);
		if (a->role != SCN_ROLE_CONNECT || a->listener != wa->idx || !a->smc)
			continue;
		uint32_t instance = 1;
		for (size_t k = 0; k < w->n_flows; k++)
			instance += w->flows[k]->app == i;
		world_flow *f = new_flow(w, i, instance);
		tcp_info ti;
		tcp_get_info(pcb, &ti);
		f->key = flow_key(app_of(w, wa->idx)->stack, ti.remote_ip, ti.remote_port);
		g_hash_table_replace(w->flow_by_key, &f->key, f);
		f->af.c.ended = true; /* the client end is not ours */
		f->foreign = true;
		return f;
	}
	return adopt_alone(w, wa, pcb);
}

/* The flow an accepted connection belongs to, by its client's address and port. */
static app_flow *match_accepted(void *user, app_listener *l, sock *child)
{
	(void)l;
	world_app *wa = user;
	world *w = wa->w;
	tcp_pcb *pcb = sock_tcp_pcb(child);
	world_flow *f = NULL;
	if (pcb) {
		tcp_info ti;
		tcp_get_info(pcb, &ti);
		uint64_t key = flow_key(app_of(w, wa->idx)->stack, ti.remote_ip, ti.remote_port);
		f = g_hash_table_lookup(w->flow_by_key, &key);
	}
	if (!f)
		f = adopt(w, wa, pcb);
	if (!f || f->srv_seen || f->listener != wa->idx)
		return NULL;
	f->srv_seen = true;
	return &f->af;
}

static const app_listen_hooks listen_hooks = {
	.match = match_accepted,
};

/* The flow's client end is connecting: its listener will find it by its address. */
static void index_flow(world *w, world_flow *f)
{
	tcp_pcb *pcb = f->af.c.s ? sock_tcp_pcb(f->af.c.s) : NULL;
	if (pcb) {
		tcp_info ti;
		tcp_get_info(pcb, &ti);
		f->key = flow_key(f->stack[1], ti.local_ip, ti.local_port);
		g_hash_table_replace(w->flow_by_key, &f->key, f);
	}
}

/* An instance's next connection (app_client_hooks.open). */
static app_flow *client_open(void *user, app_client *c)
{
	world_client *wc = user;
	world_flow *f = new_flow(wc->w, wc->app, wc->instance);
	if (app_client_connect(c, &f->af) == 0)
		index_flow(wc->w, f);
	return &f->af;
}

static const app_client_hooks client_hooks = {
	.open = client_open,
};

static void start_client(world *w, uint32_t app, uint32_t instance)
{
	const scn_app *a = app_of(w, app);
	world_app *wa = &w->apps[app];
	world_client *wc = sim_xcalloc(1, sizeof(*wc), "an application instance");
	wc->w = w;
	wc->app = app;
	wc->instance = instance;
	sock_opts o;
	sock_opts_default(&o);
	o.smc = a->smc;
	o.cork = a->cork;
	o.more = a->more;
	o.nodelay = a->nodelay;
	o.cpu = a->cpu;
	app_client_init(&wc->c, w->st[a->stack].st, &o, a->dst_ip, a->port, &wa->spec, ++w->n_clients, &client_hooks, wc);
	if (wa->n_clients == wa->cap_clients) {
		wa->cap_clients = wa->cap_clients ? wa->cap_clients * 2 : 8;
		wa->clients = sim_xreallocarray(wa->clients, wa->cap_clients, sizeof(*wa->clients), "an app's instances");
	}
	wa->clients[wa->n_clients++] = wc;
	app_client_start(&wc->c);
}

static void open_conn(world *w, uint32_t app, uint32_t instance)
{
	const scn_app *a = app_of(w, app);
	if (app_spec_needs_client(&w->apps[app].spec)) {
		start_client(w, app, instance);
		return;
	}
	world_flow *f = new_flow(w, app, instance);
	sock_opts o;
	sock_opts_default(&o);
	o.smc = a->smc;
	o.cork = a->cork;
	o.more = a->more;
	o.nodelay = a->nodelay;
	o.cpu = a->cpu;
	if (app_flow_connect(&f->af, w->st[a->stack].st, &o, a->dst_ip, a->port))
		return;
	index_flow(w, f);
}

static void stop_clients(world_app *wa)
{
	for (size_t i = 0; i < wa->n_clients; i++)
		app_client_stop(&wa->clients[i]->c);
}

static void ev_open(sim_engine *eng, sim_event *ev)
{
	(void)eng;
	open_conn(ev->ctx, (uint32_t)(ev->arg >> 32), (uint32_t)ev->arg);
}

static void close_app_conns(world *w, uint32_t app)
{
	const scn_app *a = app_of(w, app);
	world_app *wa = &w->apps[app];
	stop_clients(wa);
	for (size_t i = 0; i < wa->n_flows; i++) { /* closing may open flows: re-read */
		world_flow *f = wa->flows[i];
		app_end_close(a->role == SCN_ROLE_CONNECT ? &f->af.c : &f->af.srv);
	}
}

static void ev_close(sim_engine *eng, sim_event *ev)
{
	(void)eng;
	close_app_conns(ev->ctx, (uint32_t)ev->arg);
}

void world_app_start(world *w, uint32_t app)
{
	const scn_app *a = app_of(w, app);
	world_app *wa = &w->apps[app];
	wa->running = true;
	wa->starts++;
	sim_time now = sim_now(w->eng);
	if (a->role == SCN_ROLE_LISTEN) {
		if (wa->listener)
			return;
		sock_opts o;
		sock_opts_default(&o);
		o.smc = a->smc;
		o.cpu = a->cpu;
		o.cork = a->cork;
		o.more = a->more;
		o.nodelay = a->nodelay;
		o.limit_hs = a->limiths;
		int err = 0;
		wa->listener = app_listen(w->st[a->stack].st, &o, a->port, kind_of(a->kind), &listen_hooks, wa, &err);
		return;
	}
	for (uint32_t k = 1; k <= a->conns; k++)
		sim_post(w->eng, now + (uint64_t)(k - 1) * a->interval_ns, w->k_app_open, app, ev_open, w,
		         (uint64_t)app << 32 | k);
	if (a->close == SCN_CLOSE_AT && a->close_at_ns >= now)
		sim_post(w->eng, a->close_at_ns, w->k_app_close, app, ev_close, w, app);
}

void world_app_stop(world *w, uint32_t app)
{
	const scn_app *a = app_of(w, app);
	world_app *wa = &w->apps[app];
	wa->running = false;
	if (a->role == SCN_ROLE_LISTEN && wa->listener) {
		app_listener_close(wa->listener);
		wa->listener = NULL;
	}
	close_app_conns(w, app);
}

static void ev_start(sim_engine *eng, sim_event *ev)
{
	(void)eng;
	world_app_start(ev->ctx, (uint32_t)ev->arg);
}

void world_apps_init(world *w)
{
	const scn_scenario *s = w->scn;
	w->k_app_open = sim_kind("app.open");
	w->k_app_close = sim_kind("app.close");
	uint32_t k_start = sim_kind("app.start");
	w->apps = calloc(s->n_apps ? s->n_apps : 1, sizeof(*w->apps));
	for (size_t i = 0; i < s->n_apps; i++) {
		w->apps[i].w = w;
		w->apps[i].idx = (uint32_t)i;
		spec_of(&s->apps[i], &w->apps[i].spec);
	}
	/* listeners first at equal times: a client may start with its listener */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < s->n_apps; i++) {
			const scn_app *a = &s->apps[i];
			if (a->start_never || (pass == 0) != (a->role == SCN_ROLE_LISTEN))
				continue;
			sim_post(w->eng, a->start_ns, k_start, i, ev_start, w, i);
		}
}

void world_apps_free(world *w)
{
	if (!w->apps)
		return;
	w->freeing = true;
	for (size_t i = 0; i < w->scn->n_apps; i++)
		stop_clients(&w->apps[i]);
	for (size_t i = 0; i < w->n_flows; i++) {
		world_flow *f = w->flows[i];
		app_end_close(&f->af.c);
		app_end_close(&f->af.srv);
	}
	for (size_t i = 0; i < w->scn->n_apps; i++)
		app_listener_close(w->apps[i].listener);
	for (size_t i = 0; i < w->n_flows; i++) {
		app_flow_release(&w->flows[i]->af);
		free(w->flows[i]);
	}
	free(w->flows);
	for (size_t i = 0; i < w->scn->n_apps; i++) {
		free(w->apps[i].flows);
		for (size_t k = 0; k < w->apps[i].n_clients; k++)
			free(w->apps[i].clients[k]);
		free(w->apps[i].clients);
	}
	free(w->apps);
	w->flows = NULL;
	w->apps = NULL;
	w->n_flows = 0;
}

/* ---- counters for expectations ---- */

uint64_t world_app_counter(world *w, scn_metric m, scn_app_ref ref)
{
	const scn_app *a = app_of(w, ref.app);
	bool client = a->role == SCN_ROLE_CONNECT;
	uint64_t sum = 0;
	const world_app *wa = &w->apps[ref.app];
	for (size_t i = 0; i < wa->n_flows; i++) {
		const world_flow *f = wa->flows[i];
		if (client ? f->app != ref.app : f->listener != ref.app)
			continue;
		if (ref.instance && f->instance != ref.instance)
			continue;
		const world_end *mine = client ? &f->af.c : &f->af.srv;
		const world_end *peer = client ? &f->af.srv : &f->af.c;
		switch (m) {
		case SCN_M_SENT:
			sum += mine->sent;
			break;
		case SCN_M_RECEIVED:
			sum += mine->received;
			break;
		case SCN_M_DELIVERED:
			sum += peer->received;
			break;
		case SCN_M_LINKGROUPS:
		case SCN_M_LINKS:
		case SCN_M_CONNS:
		case SCN_M_MODE:
		case SCN_M_ABORTED:
		case SCN_M_FALLBACK:
		case SCN_M_OPS:
		case SCN_M_LATENCY:
		case SCN_M_CONNECT:
		case SCN_M_FCT:
		case SCN_M_THROUGHPUT:
		case SCN_M_CPU:
			break;
		}
	}
	return sum;
}

void world_foreach_conn(const world *w, void (*fn)(void *arg, const world_conn_summary *c), void *arg)
{
	for (size_t i = 0; i < w->n_flows; i++) {
		const world_flow *f = w->flows[i];
		const scn_app *a = app_of(w, f->app);
		world_conn_summary c = {
			.app = a->name,
			.instance = f->instance,
			.client_ip = (uint32_t)(f->key >> 16),
			.client_port = (uint16_t)f->key,
			.server_ip = a->dst_ip,
			.server_port = a->port,
			.opened = f->key != 0,
			.mode = f->af.c.mode,
			.fallback_reason = f->af.c.reason,
			.server_mode = f->af.srv.mode,
			.server_fallback_reason = f->af.srv.reason,
			.client_sent = f->af.c.sent,
			.client_received = f->af.c.rx_total,
			.server_sent = f->af.srv.sent,
			.server_received = f->af.srv.rx_total,
			.server_seen = f->srv_seen,
			.client_ended = f->af.c.ended,
			.server_ended = f->af.srv.ended,
			.client_err = f->af.c.err,
			.server_err = f->af.srv.err,
			.client_bad = f->af.c.bad,
			.server_bad = f->af.srv.bad,
			.client_verified = f->af.c.received,
			.server_verified = f->af.srv.received,
			.t_connected = f->af.c.t_connected,
			.t_ended = f->af.c.t_ended,
			.t_server_ended = f->af.srv.t_ended,
			.connect = f->foreign ? WORLD_CONNECT_OK : world_connect_kind_of(f),
		};
		if (c.connect != WORLD_CONNECT_OK)
			world_connect_cause(w, f, c.connect_cause, sizeof(c.connect_cause));
		fn(arg, &c);
	}
}

bool world_apps_done(const world *w)
{
	const scn_scenario *s = w->scn;
	for (size_t i = 0; i < s->n_apps; i++) {
		const scn_app *a = &s->apps[i];
		if (a->role != SCN_ROLE_CONNECT)
			continue;
		if (!a->start_never && !w->apps[i].starts)
			return false;
		uint64_t opened = 0;
		for (size_t k = 0; k < w->n_flows; k++)
			opened += w->flows[k]->app == i;
		if (opened < (uint64_t)a->conns * w->apps[i].starts)
			return false;
	}
	for (size_t k = 0; k < w->n_flows; k++) {
		const world_flow *f = w->flows[k];
		if (!f->af.c.ended || (f->srv_seen && !f->af.srv.ended))
			return false;
	}
	for (size_t i = 0; i < s->n_apps; i++)
		for (size_t k = 0; k < w->apps[i].n_clients; k++)
			if (!w->apps[i].clients[k]->c.stopped)
				return false;
	return true;
}

bool world_app_span(const world *w, const char *name, uint64_t *first_connect, uint64_t *last_end)
{
	uint32_t app = SCN_NONE;
	for (size_t i = 0; i < w->scn->n_apps; i++)
		if (!strcmp(w->scn->apps[i].name, name))
			app = (uint32_t)i;
	uint64_t a = UINT64_MAX, b = 0;
	for (size_t k = 0; app != SCN_NONE && k < w->n_flows; k++) {
		const world_end *e = &w->flows[k]->af.c;
		if (w->flows[k]->app != app || !e->connected)
			continue;
		if (e->t_connected < a)
			a = e->t_connected;
		if (!e->t_ended) {
			b = UINT64_MAX;
		} else if (b != UINT64_MAX && e->t_ended > b) {
			b = e->t_ended;
		}
	}
	if (a == UINT64_MAX || b == 0 || b == UINT64_MAX)
		return false;
	*first_connect = a;
	*last_end = b;
	return true;
}
