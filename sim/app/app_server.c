/* The listening kinds on a flow's server end (sink, echo, responder) and the listeners. */
#include <errno.h>
#include <stdlib.h>

#include "sim/app/app_int.h"
#include "sim/engine/oom.h"
#include "sim/net/stack.h"

/* Write back what is owed: the echo of what was read, the responder's answers. */
static void server_flush(app_end *e)
{
	const app_flow *f = e->f;
	if (f->server_kind == APP_ECHO) {
		app_end_write_upto(e, f->seed_up, e->sent + bytering_len(&e->f->echo), &e->f->echo);
	} else if (f->server_kind == APP_RESPONDER) {
		uint64_t before = e->sent;
		app_end_write_upto(e, f->seed_down, e->sent + e->resp_part, NULL);
		e->resp_part -= e->sent - before;
	}
}

static bool server_idle(const app_end *e)
{
	return !bytering_len(&e->f->echo) && !e->resp_part;
}

/* n request bytes arrived at a responder. */
static void requests_arrived(app_end *e, uint64_t n)
{
	const app_spec *a = e->f->spec;
	if (!a->request)
		return;
	e->req_part += n;
	while (e->req_part >= a->request) {
		e->req_part -= a->request;
		/* the application's own work on the request (parsing, a lookup, building the
		 * answer) on its CPU: the answer is written when it is done */
		if (e->f->server_work_ns && e->s)
			sock_app_work(e->s, e->f->server_work_ns);
		e->resp_part += a->response;
		e->txns++;
	}
}

static void server_readable(app_end *e)
{
	const app_flow *f = e->f;
	bool echo = f->server_kind == APP_ECHO;
	uint8_t buf[APP_CHUNK];
	while (e->s && !e->eof) {
		if (echo && bytering_len(&e->f->echo) >= APP_ECHO_WINDOW)
			return; /* back-pressure: read again once the echo has left */
		ssize_t n = app_end_recv_verify(e, f->seed_up, buf, APP_CALL_BYTES(f), echo);
		if (n == -EAGAIN)
			break;
		if (n < 0)
			return;
		if (n == 0) {
			e->eof = true;
			break;
		}
		if (f->server_kind == APP_RESPONDER)
			requests_arrived(e, (uint64_t)n);
		server_flush(e);
	}
	if (e->s && e->eof && server_idle(e))
		app_end_close(e); /* our FIN follows theirs */
}

static void s_on_readable(sock *s, void *user)
{
	(void)s;
	server_readable(user);
}

static void s_on_writable(sock *s, void *user)
{
	(void)s;
	app_end *e = user;
	server_flush(e);
	server_readable(e);
}

const sock_callbacks app_server_callbacks = {
	.on_readable = s_on_readable,
	.on_writable = s_on_writable,
	.on_close = app_end_on_close,
};

void app_flow_accept(app_flow *f, stack *st, sock *child)
{
	app_end *e = &f->srv;
	e->st = st;
	e->s = child;
	e->connected = true;
	e->t_connected = stack_now(st);
	app_end_record_mode(e, child);
	sock_set_callbacks(child, &app_server_callbacks, e);
	if (f->hooks && f->hooks->connected)
		f->hooks->connected(f->user, e, child);
}

/* ---- listeners ---- */

typedef struct served_flow {
	app_flow f;
	struct served_flow *next;
} served_flow;

struct app_listener {
	stack *st;
	sock *s;
	app_kind kind;
	app_listen_hooks hooks;
	void *user;
	/* app_serve: the flows it made, newest first, and what they run */
	served_flow *served;
	app_spec clients;
	uint64_t seed;
	uint64_t unmatched;
	sock_mode last_mode;
	uint32_t last_reason;
};

static void on_accept(sock *listener, sock *child, void *user)
{
	(void)listener;
	app_listener *l = user;
	app_flow *f = l->hooks.match(l->user, l, child);
	if (!f) {
		l->unmatched++;
		sock_abort(child);
		return;
	}
	app_flow_accept(f, l->st, child);
}

static const sock_callbacks listen_cbs = {
	.on_accept = on_accept,
};

app_listener *app_listen(stack *st, const sock_opts *o, uint16_t port, app_kind kind, const app_listen_hooks *h,
                         void *user, int *err)
{
	app_listener *l = calloc(1, sizeof(*l));
	if (!l) {
		if (err)
			*err = -ENOMEM;
		return NULL;
	}
	l->st = st;
	l->kind = kind;
	l->hooks = *h;
	l->user = user;
	l->s = sock_listen(st, o, port, &listen_cbs, l, err);
	if (!l->s) {
		free(l);
		return NULL;
	}
	return l;
}

void app_listener_close(app_listener *l)
{
	if (!l)
		return;
	sock_close(l->s);
	while (l->served) {
		served_flow *sf = l->served;
		l->served = sf->next;
		app_flow_release(&sf->f);
		free(sf);
	}
	free(l);
}

/* ---- a listener alone ---- */

static app_flow *serve_new_flow(void *user, app_listener *l, sock *child)
{
	(void)user;
	served_flow *sf = sim_xcalloc(1, sizeof(*sf), "a served connection");
	app_flow_init(&sf->f, &l->clients, l->kind, l->seed, app_seed_down(l->seed), NULL, NULL);
	sf->f.c.ended = true; /* the client end is not ours */
	sf->next = l->served;
	l->served = sf;
	l->last_mode = sock_get_mode(child);
	l->last_reason = sock_fallback_reason(child);
	return &sf->f;
}

app_listener *app_serve(stack *st, const sock_opts *o, uint16_t port, app_kind kind, const app_spec *clients,
                        uint64_t seed, int *err)
{
	static const app_listen_hooks serve_hooks = { .match = serve_new_flow };
	app_listener *l = app_listen(st, o, port, kind, &serve_hooks, NULL, err);
	if (!l)
		return NULL;
	l->seed = seed;
	if (clients)
		l->clients = *clients;
	else
		l->clients = (app_spec){ .kind = APP_BULK, .close_after = true };
	return l;
}

app_serve_stats app_serve_stats_get(const app_listener *l)
{
	app_serve_stats st = { .last_mode = l->last_mode, .last_fallback_reason = l->last_reason };
	app_serve_stats *out = &st;
	/* oldest first, so the first mismatch is the first connection's */
	size_t n = 0;
	for (const served_flow *sf = l->served; sf; sf = sf->next)
		n++;
	const served_flow **v = sim_xcalloc(n ? n : 1, sizeof(*v), "listener statistics");
	size_t i = n;
	for (const served_flow *sf = l->served; sf; sf = sf->next)
		v[--i] = sf;
	for (i = 0; i < n; i++) {
		const app_end *e = &v[i]->f.srv;
		out->accepted++;
		if (e->ended && e->err)
			out->errors++;
		else if (e->ended && e->eof)
			out->completed++;
		if (e->bad && !out->mismatches++)
			out->first_mismatch_offset = e->received;
		out->bytes_in += e->rx_total;
		out->bytes_out += e->sent;
		out->verified += e->received;
		out->txns += e->txns;
	}
	free(v);
	return st;
}
