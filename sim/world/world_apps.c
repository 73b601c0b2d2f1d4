/* The scenario's applications over the socket API (sim/net/sock.h): connecting apps (bulk,
 * echo, rr) open `conns` connections; listening apps (sink, echo, responder) serve them.
 *
 * Each connection is a flow with two ends. The runner pairs the ends when the listener
 * accepts (by server stack, client address and port), so every byte is checked against
 * the seeded pattern of its direction (sim/engine/pattern.h) and counted on both sides: `sent`,
 * `received` (intact: counting stops at the first wrong byte) and, from the other end,
 * `delivered`. A responder answers each request with the response size of the client's
 * app (the scenario is the application protocol). Applications cannot tell SMC-R from TCP
 * except through the socket's mode, which is recorded when the connection opens. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim/engine/pattern.h"
#include "sim/net/tcp.h"
#include "sim/world/world_int.h"

#define APP_CHUNK 65536u
#define ECHO_WINDOW (256u * 1024u) /* an echo server stops reading with this much unsent */

static const scn_app *app_of(const world *w, uint32_t i) { return &w->scn->apps[i]; }

static uint64_t flow_key(uint32_t srv_stack, uint32_t client_ip, uint16_t client_port)
{
	return (uint64_t)srv_stack << 48 | (uint64_t)client_ip << 16 | client_port;
}

static void end_close(world_end *e)
{
	if (!e->s)
		return;
	sock *s = e->s;
	e->s = NULL;
	e->closing = true;
	e->ended = true;
	if (!e->t_ended)
		e->t_ended = sim_now(e->f->w->eng);
	if (!e->f->w->freeing)
		world_log_closed(e->f->w, e);
	sock_close(s);
}

static void end_record_mode(world *w, world_end *e, sock *s)
{
	e->mode = sock_get_mode(s);
	e->reason = sock_fallback_reason(s);
	e->peer_diag = 0;
	smc_layer *l = w->st[e->stack].l;
	uint32_t r = 0, d = 0;
	if (l && smc_layer_sock_reasons(l, s, &r, &d) && e->mode == SOCK_MODE_FALLBACK)
		e->peer_diag = d;
}

/* Content check of `n` received bytes at stream offset e->rx_total. */
static void end_verify(world_end *e, uint64_t seed, const uint8_t *buf, size_t n)
{
	if (!e->bad) {
		size_t ok = pattern_check(seed, e->rx_total, buf, n);
		e->received += ok;
		if (ok != n)
			e->bad = true;
	}
	e->rx_total += n;
}

/* The pattern of one direction from `off` on, checked or written where the socket
 * shows its buffer (sock_recv_visit, sock_send_fill): TCP's or SMC-R's buffers, so
 * the bytes are not copied through the application's buffer too. */
typedef struct pattern_span {
	world_end *e;
	uint64_t seed, off;
} pattern_span;

static void verify_span(void *ctx, const uint8_t *src, size_t len)
{
	pattern_span *p = ctx;
	end_verify(p->e, p->seed, src, len);
}

static void fill_span(void *ctx, uint8_t *dst, size_t len)
{
	pattern_span *p = ctx;
	pattern_fill(p->seed, p->off, dst, len);
	p->off += len;
}

/* sock_recv of up to `cap` bytes, verified against the pattern of `seed` (in place where
 * the socket allows it, else through buf). */
static ssize_t end_recv_verify(world_end *e, uint64_t seed, uint8_t *buf, size_t cap)
{
	pattern_span p = { .e = e, .seed = seed };
	ssize_t n = sock_recv_visit(e->s, cap, verify_span, &p);
	if (n != -EOPNOTSUPP)
		return n;
	n = sock_recv(e->s, buf, cap);
	if (n > 0)
		end_verify(e, seed, buf, (size_t)n);
	return n;
}

/* Write pattern bytes [e->sent, limit) as far as the socket takes them. */
static void end_write_upto(world_end *e, uint64_t seed, uint64_t limit)
{
	uint8_t buf[APP_CHUNK];
	while (e->s && e->sent < limit) {
		uint64_t left = limit - e->sent;
		size_t n = left < sizeof(buf) ? (size_t)left : sizeof(buf);
		size_t space = sock_send_space(e->s);
		if (space < n)
			n = space;
		if (!n)
			return;
		pattern_span p = { .e = e, .seed = seed, .off = e->sent };
		ssize_t k = sock_send_fill(e->s, n, fill_span, &p);
		if (k == -EOPNOTSUPP) {
			pattern_fill(seed, e->sent, buf, n);
			k = sock_send(e->s, buf, n);
		}
		if (k <= 0)
			return;
		e->sent += (uint64_t)k;
	}
}

/* ---- client side ---- */

static void client_done(world_end *e)
{
	const scn_app *a = app_of(e->f->w, e->f->app);
	if (a->close == SCN_CLOSE_AFTER)
		end_close(e);
}

static void client_pump(world_end *e)
{
	world_flow *f = e->f;
	const scn_app *a = app_of(f->w, f->app);
	if (!e->s || !e->connected)
		return;
	switch (a->kind) {
	case SCN_KIND_BULK:
		end_write_upto(e, f->seed_up, a->bytes);
		if (e->s && e->sent == a->bytes && !e->shut && a->close == SCN_CLOSE_AFTER) {
			e->shut = true;
			sock_shutdown(e->s);
		}
		break;
	case SCN_KIND_ECHO:
		end_write_upto(e, f->seed_up, a->bytes);
		break;
	case SCN_KIND_RR:
		if (e->rr_done < a->count && e->rr_req_sent < a->request) {
			uint64_t before = e->sent;
			end_write_upto(e, f->seed_up, e->rr_done * a->request + a->request);
			e->rr_req_sent += e->sent - before;
		}
		break;
	case SCN_KIND_SINK:
	case SCN_KIND_RESPONDER:
		break;
	}
}

static void client_readable(world_end *e)
{
	world_flow *f = e->f;
	const scn_app *a = app_of(f->w, f->app);
	uint8_t buf[APP_CHUNK];
	while (e->s) {
		ssize_t n = sock_recv(e->s, buf, sizeof(buf));
		if (n == -EAGAIN)
			return;
		if (n < 0)
			return; /* on_close tells */
		if (n == 0) {
			e->eof = true;
			if (a->close == SCN_CLOSE_AFTER || e->shut)
				end_close(e);
			return;
		}
		switch (a->kind) {
		case SCN_KIND_ECHO:
			end_verify(e, f->seed_up, buf, (size_t)n);
			if (e->rx_total >= a->bytes)
				client_done(e);
			break;
		case SCN_KIND_RR:
			end_verify(e, f->seed_down, buf, (size_t)n);
			e->rr_resp_got += (uint64_t)n;
			while (e->rr_resp_got >= a->response && e->rr_done < a->count) {
				e->rr_resp_got -= a->response;
				e->rr_done++;
				e->rr_req_sent = 0;
			}
			if (e->rr_done == a->count)
				client_done(e);
			else
				client_pump(e);
			break;
		case SCN_KIND_BULK:
		case SCN_KIND_SINK:
		case SCN_KIND_RESPONDER:
			e->rx_total += (uint64_t)n; /* nothing expected: drained */
			break;
		}
	}
}

static void c_on_connect(sock *s, int err, void *user)
{
	world_end *e = user;
	world *w = e->f->w;
	if (err) {
		e->err = err;
		world_connect_failed(w, e, s, err, false);
		end_close(e);
		return;
	}
	e->connected = true;
	e->t_connected = sim_now(w->eng);
	end_record_mode(w, e, s);
	world_log_connected(w, e, s);
	const scn_app *a = app_of(w, e->f->app);
	if (a->kind == SCN_KIND_ECHO && a->bytes == 0)
		client_done(e);
	else if (a->kind == SCN_KIND_RR && a->count == 0)
		client_done(e);
	else
		client_pump(e);
}

static void c_on_readable(sock *s, void *user)
{
	(void)s;
	client_readable(user);
}

static void c_on_writable(sock *s, void *user)
{
	(void)s;
	client_pump(user);
}

static void e_on_close(sock *s, int err, void *user)
{
	(void)s;
	world_end *e = user;
	if (err && !e->closing)
		e->err = err;
	e->ended = true;
	if (!e->t_ended)
		e->t_ended = sim_now(e->f->w->eng);
	end_close(e);
}

static const sock_callbacks client_cbs = {
	.on_connect = c_on_connect,
	.on_readable = c_on_readable,
	.on_writable = c_on_writable,
	.on_close = e_on_close,
};

/* ---- server side ---- */

static void server_flush(world_end *e)
{
	world_flow *f = e->f;
	const scn_app *l = app_of(f->w, f->listener);
	if (l->kind == SCN_KIND_ECHO)
		end_write_upto(e, f->seed_up, e->sent + e->echo_pending);
	else if (l->kind == SCN_KIND_RESPONDER)
		end_write_upto(e, f->seed_down, e->sent + e->rr_resp_left);
}

static void server_account_written(world_end *e, uint64_t before)
{
	world_flow *f = e->f;
	const scn_app *l = app_of(f->w, f->listener);
	uint64_t wrote = e->sent - before;
	if (l->kind == SCN_KIND_ECHO)
		e->echo_pending -= wrote;
	else if (l->kind == SCN_KIND_RESPONDER)
		e->rr_resp_left -= wrote;
}

static bool server_idle(const world_end *e)
{
	return !e->echo_pending && !e->rr_resp_left;
}

static void server_readable(world_end *e)
{
	world_flow *f = e->f;
	const scn_app *l = app_of(f->w, f->listener);
	const scn_app *a = app_of(f->w, f->app);
	uint8_t buf[APP_CHUNK];
	while (e->s && !e->eof) {
		if (l->kind == SCN_KIND_ECHO && e->echo_pending >= ECHO_WINDOW)
			return; /* back-pressure: read again once the echo has left */
		ssize_t n = end_recv_verify(e, f->seed_up, buf, sizeof(buf));
		if (n == -EAGAIN)
			break;
		if (n < 0)
			return;
		if (n == 0) {
			e->eof = true;
			break;
		}
		if (l->kind == SCN_KIND_ECHO) {
			e->echo_pending += (uint64_t)n;
		} else if (l->kind == SCN_KIND_RESPONDER && a->request) {
			e->rr_req_got += (uint64_t)n;
			while (e->rr_req_got >= a->request) {
				e->rr_req_got -= a->request;
				e->rr_resp_left += a->response;
				e->rr_done++;
			}
		}
		uint64_t before = e->sent;
		server_flush(e);
		server_account_written(e, before);
	}
	if (e->s && e->eof && server_idle(e))
		end_close(e); /* our FIN follows theirs */
}

static void s_on_readable(sock *s, void *user)
{
	(void)s;
	server_readable(user);
}

static void s_on_writable(sock *s, void *user)
{
	(void)s;
	world_end *e = user;
	uint64_t before = e->sent;
	server_flush(e);
	server_account_written(e, before);
	server_readable(e);
}

static const sock_callbacks server_cbs = {
	.on_readable = s_on_readable,
	.on_writable = s_on_writable,
	.on_close = e_on_close,
};

static world_flow *new_flow(world *w, uint32_t app, uint32_t instance);

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
		f->c.ended = true; /* the client end is not ours */
		f->foreign = true;
		return f;
	}
	return NULL;
}

static void l_on_accept(sock *listener, sock *child, void *user)
{
	(void)listener;
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
	if (!f || f->srv_seen || f->listener != wa->idx) {
		wa->unmatched++;
		sock_abort(child);
		return;
	}
	f->srv_seen = true;
	world_end *e = &f->srv;
	e->s = child;
	e->connected = true;
	end_record_mode(w, e, child);
	sock_set_callbacks(child, &server_cbs, e);
	world_obs_conn(w, e, WORLD_CONN_OPENED);
	world_log_server_fallback(w, e);
}

static const sock_callbacks listen_cbs = {
	.on_accept = l_on_accept,
};

/* ---- starting and stopping ---- */

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

static world_flow *new_flow(world *w, uint32_t app, uint32_t instance)
{
	const scn_app *a = app_of(w, app);
	world_flow *f = calloc(1, sizeof(*f));
	if (!f)
		abort();
	f->w = w;
	f->app = app;
	f->listener = a->listener;
	f->instance = instance;
	f->seq = w->n_flows + 1;
	f->seed_up = sim_mix64(w->seed ^ (f->seq * 2 + 0x5eed));
	f->seed_down = sim_mix64(w->seed ^ (f->seq * 2 + 1 + 0x5eed));
	f->c.f = f->srv.f = f;
	f->srv.server = true;
	f->c.stack = a->stack;
	f->srv.stack = app_of(w, a->listener)->stack;
	if (w->n_flows == w->cap_flows) {
		w->cap_flows = w->cap_flows ? w->cap_flows * 2 : 64;
		w->flows = realloc(w->flows, w->cap_flows * sizeof(*w->flows));
		if (!w->flows)
			abort();
	}
	w->flows[w->n_flows++] = f;
	app_add_flow(&w->apps[app], f);
	app_add_flow(&w->apps[a->listener], f);
	return f;
}

static void open_conn(world *w, uint32_t app, uint32_t instance)
{
	const scn_app *a = app_of(w, app);
	world_flow *f = new_flow(w, app, instance);
	sock_opts o;
	sock_opts_default(&o);
	o.smc = a->smc;
	int err = 0;
	f->c.t_started = sim_now(w->eng);
	sock *s = sock_connect(w->st[a->stack].st, &o, a->dst_ip, a->port, &client_cbs, &f->c, &err);
	if (!s) {
		f->c.err = err ? err : -ENOMEM;
		f->c.ended = true;
		f->c.t_ended = f->c.t_started;
		world_connect_failed(w, &f->c, NULL, f->c.err, true);
		world_log_connect_failed(w, &f->c);
		return;
	}
	f->c.s = s;
	tcp_pcb *pcb = sock_tcp_pcb(s);
	if (pcb) {
		tcp_info ti;
		tcp_get_info(pcb, &ti);
		f->key = flow_key(f->srv.stack, ti.local_ip, ti.local_port);
		g_hash_table_replace(w->flow_by_key, &f->key, f);
	}
}

static void ev_open(sim_engine *eng, sim_event *ev)
{
	(void)eng;
	open_conn(ev->ctx, (uint32_t)(ev->arg >> 32), (uint32_t)ev->arg);
}

static void close_app_conns(world *w, uint32_t app)
{
	const scn_app *a = app_of(w, app);
	const world_app *wa = &w->apps[app];
	for (size_t i = 0; i < wa->n_flows; i++) { /* closing may open flows: re-read */
		world_flow *f = wa->flows[i];
		if (a->role == SCN_ROLE_CONNECT)
			end_close(&f->c);
		else
			end_close(&f->srv);
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
		int err = 0;
		wa->listener = sock_listen(w->st[a->stack].st, &o, a->port, &listen_cbs, wa, &err);
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
		sock_close(wa->listener);
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
	for (size_t i = 0; i < w->n_flows; i++) {
		world_flow *f = w->flows[i];
		end_close(&f->c);
		end_close(&f->srv);
	}
	for (size_t i = 0; i < w->scn->n_apps; i++)
		if (w->apps[i].listener)
			sock_close(w->apps[i].listener);
	for (size_t i = 0; i < w->n_flows; i++)
		free(w->flows[i]);
	free(w->flows);
	for (size_t i = 0; i < w->scn->n_apps; i++)
		free(w->apps[i].flows);
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
		const world_end *mine = client ? &f->c : &f->srv;
		const world_end *peer = client ? &f->srv : &f->c;
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
			.mode = f->c.mode,
			.fallback_reason = f->c.reason,
			.server_mode = f->srv.mode,
			.server_fallback_reason = f->srv.reason,
			.client_sent = f->c.sent,
			.client_received = f->c.rx_total,
			.server_sent = f->srv.sent,
			.server_received = f->srv.rx_total,
			.server_seen = f->srv_seen,
			.client_ended = f->c.ended,
			.server_ended = f->srv.ended,
			.client_err = f->c.err,
			.server_err = f->srv.err,
			.client_bad = f->c.bad,
			.server_bad = f->srv.bad,
			.client_verified = f->c.received,
			.server_verified = f->srv.received,
			.t_connected = f->c.t_connected,
			.t_ended = f->c.t_ended,
			.t_server_ended = f->srv.t_ended,
			.connect = f->foreign ? WORLD_CONNECT_OK : world_connect_kind_of(&f->c),
		};
		if (c.connect != WORLD_CONNECT_OK)
			world_connect_cause(w, &f->c, c.connect_cause, sizeof(c.connect_cause));
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
		if (!f->c.ended || (f->srv_seen && !f->srv.ended))
			return false;
	}
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
		const world_end *e = &w->flows[k]->c;
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
