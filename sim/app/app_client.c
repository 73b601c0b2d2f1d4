/* The connecting kinds on a flow's client end: bulk, echo, rr, crr. */
#include <errno.h>
#include <stdlib.h>

#include "sim/app/app_int.h"
#include "sim/engine/oom.h"
#include "sim/net/stack.h"

bool app_expired(const app_spec *sp, stack *st, sim_time t)
{
	return sp->duration_ns && stack_now(st) - t >= sp->duration_ns;
}

static void client_done(app_end *e)
{
	app_end_finish(e);
	if (e->f->spec->close_after || e->f->spec->kind == APP_CRR)
		app_end_close(e);
}

/* The bulk client's last byte: bytes, or what it wrote when its duration ended. */
static uint64_t bulk_limit(app_end *e)
{
	const app_spec *a = e->f->spec;
	if (!a->duration_ns)
		return a->bytes;
	return app_expired(a, e->st, e->t_connected) ? e->sent : UINT64_MAX;
}

static void bulk_pump(app_end *e)
{
	const app_flow *f = e->f;
	const app_spec *a = f->spec;
	uint64_t limit = bulk_limit(e);
	app_end_write_upto(e, f->seed_up, limit, NULL);
	if (e->s && e->sent == limit) {
		app_end_finish(e);
		if (!e->shut && a->close_after) {
			e->shut = true;
			sock_shutdown(e->s);
		}
	}
}

static void client_pump(app_end *e)
{
	const app_flow *f = e->f;
	const app_spec *a = f->spec;
	if (!e->s || !e->connected)
		return;
	switch (a->kind) {
	case APP_BULK:
		bulk_pump(e);
		break;
	case APP_ECHO:
		app_end_write_upto(e, f->seed_up, a->bytes, NULL);
		break;
	case APP_RR:
	case APP_CRR:
		if (f->client && sim_event_pending(&f->client->think))
			break; /* pausing: the next request waits */
		if (e->txns < a->count && e->req_part < a->request) {
			uint64_t before = e->sent;
			app_end_write_upto(e, f->seed_up, e->txns * a->request + a->request, NULL);
			e->req_part += e->sent - before;
		}
		break;
	case APP_SINK:
	case APP_RESPONDER:
		break;
	}
}

/* The next transaction of an rr client, or its end. */
static void rr_next(app_end *e)
{
	app_flow *f = e->f;
	const app_spec *a = f->spec;
	if (e->txns == a->count || app_expired(a, e->st, e->t_connected)) {
		client_done(e);
		return;
	}
	f->t_txn = stack_now(e->st);
	client_pump(e);
}

void app_client_rr_next(app_end *e)
{
	if (e->s)
		rr_next(e);
}

static void txn_latency(app_end *e)
{
	app_flow *f = e->f;
	if (!f->lat)
		f->lat = sim_xcalloc(1, sizeof(*f->lat), "a latency distribution");
	app_hist_add(f->lat, stack_now(e->st) - f->t_txn);
}

/* n bytes of the answers arrived (rr, crr). */
static void rr_answered(app_end *e, uint64_t n)
{
	app_flow *f = e->f;
	const app_spec *a = f->spec;
	e->resp_part += n;
	bool more = false;
	while (e->resp_part >= a->response && e->txns < a->count) {
		e->resp_part -= a->response;
		e->txns++;
		e->req_part = 0;
		txn_latency(e);
		more = true;
	}
	if (!more) {
		client_pump(e);
		return;
	}
	if (a->kind == APP_CRR) {
		if (f->client)
			f->client->txns++;
		client_done(e); /* one transaction a connection */
	} else if (e->txns == a->count || app_expired(a, e->st, e->t_connected) || !f->client ||
	           !app_client_pause(f->client)) {
		rr_next(e);
	}
}

static void client_readable(app_end *e)
{
	const app_flow *f = e->f;
	const app_spec *a = f->spec;
	uint8_t buf[APP_CHUNK];
	while (e->s) {
		ssize_t n = sock_recv(e->s, buf, sizeof(buf));
		if (n == -EAGAIN)
			return;
		if (n < 0)
			return; /* on_close tells */
		if (n == 0) {
			e->eof = true;
			if (a->close_after || e->shut)
				app_end_close(e);
			return;
		}
		switch (a->kind) {
		case APP_ECHO:
			app_end_verify(e, f->seed_up, buf, (size_t)n);
			if (e->rx_total >= a->bytes)
				client_done(e);
			break;
		case APP_RR:
		case APP_CRR:
			app_end_verify(e, f->seed_down, buf, (size_t)n);
			rr_answered(e, (uint64_t)n);
			break;
		case APP_BULK:
		case APP_SINK:
		case APP_RESPONDER:
			e->rx_total += (uint64_t)n; /* nothing expected: drained */
			break;
		}
	}
}

static void c_on_connect(sock *s, int err, void *user)
{
	app_end *e = user;
	app_flow *f = e->f;
	if (err) {
		e->err = err;
		if (f->hooks && f->hooks->connect_failed)
			f->hooks->connect_failed(f->user, e, s, err);
		app_end_close(e);
		return;
	}
	e->connected = true;
	e->t_connected = stack_now(e->st);
	app_end_record_mode(e, s);
	if (f->hooks && f->hooks->connected)
		f->hooks->connected(f->user, e, s);
	const app_spec *a = f->spec;
	if ((a->kind == APP_ECHO && a->bytes == 0) || ((a->kind == APP_RR || a->kind == APP_CRR) && a->count == 0)) {
		client_done(e);
	} else if (a->kind == APP_RR) {
		rr_next(e);
	} else {
		f->t_txn = f->t_start; /* crr: the transaction began with the connect call */
		client_pump(e);
	}
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

static const sock_callbacks client_cbs = {
	.on_connect = c_on_connect,
	.on_readable = c_on_readable,
	.on_writable = c_on_writable,
	.on_close = app_end_on_close,
};

int app_flow_connect(app_flow *f, stack *st, const sock_opts *o, uint32_t dst, uint16_t port)
{
	app_end *e = &f->c;
	int err = 0;
	e->st = st;
	f->t_start = stack_now(st);
	sock *s = sock_connect(st, o, dst, port, &client_cbs, e, &err);
	if (!s) {
		e->err = err ? err : -ENOMEM;
		e->ended = true;
		e->t_ended = f->t_start;
		if (f->hooks && f->hooks->connect_failed)
			f->hooks->connect_failed(f->user, e, NULL, e->err);
		return e->err;
	}
	e->s = s;
	return 0;
}

/* ---- a client alone ---- */

typedef struct lone_client {
	app_flow f;
	app_spec spec;
	app_client inst; /* think time */
} lone_client;

static app_flow *lone_open_none(void *user, app_client *c)
{
	(void)user;
	(void)c;
	return NULL; /* one connection only */
}

app_flow *app_connect(stack *st, const sock_opts *o, uint32_t dst, uint16_t port, const app_spec *spec,
                      uint64_t seed, int *err)
{
	if (spec->kind == APP_CRR || spec->kind == APP_SINK || spec->kind == APP_RESPONDER) {
		if (err)
			*err = -EINVAL;
		return NULL;
	}
	lone_client *c = calloc(1, sizeof(*c));
	if (!c) {
		if (err)
			*err = -ENOMEM;
		return NULL;
	}
	c->spec = *spec;
	app_kind server = spec->kind == APP_BULK ? APP_SINK : spec->kind == APP_ECHO ? APP_ECHO
	                                                                            : APP_RESPONDER;
	app_flow_init(&c->f, &c->spec, server, seed, app_seed_down(seed), NULL, NULL);
	int rc;
	if (app_spec_needs_client(spec)) {
		static const app_client_hooks none = { .open = lone_open_none };
		app_client_init(&c->inst, st, o, dst, port, &c->spec, seed, &none, NULL);
		rc = app_client_connect(&c->inst, &c->f);
	} else {
		rc = app_flow_connect(&c->f, st, o, dst, port);
	}
	if (rc) {
		if (err)
			*err = rc;
		app_connect_free(&c->f);
		return NULL;
	}
	return &c->f;
}

void app_connect_free(app_flow *f)
{
	if (!f)
		return;
	lone_client *c = (lone_client *)f; /* f is the first member */
	if (f->client)
		app_client_stop(f->client);
	f->client = NULL;
	app_flow_release(f);
	free(c);
}
