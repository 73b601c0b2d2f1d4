/* The connecting kinds on a flow's client end: bulk, echo, rr. */
#include <errno.h>
#include <stdlib.h>

#include "sim/app/app_int.h"
#include "sim/net/stack.h"

static void client_done(app_end *e)
{
	if (e->f->spec->close_after)
		app_end_close(e);
}

static void client_pump(app_end *e)
{
	const app_flow *f = e->f;
	const app_spec *a = f->spec;
	if (!e->s || !e->connected)
		return;
	switch (a->kind) {
	case APP_BULK:
		app_end_write_upto(e, f->seed_up, a->bytes, NULL);
		if (e->s && e->sent == a->bytes && !e->shut && a->close_after) {
			e->shut = true;
			sock_shutdown(e->s);
		}
		break;
	case APP_ECHO:
		app_end_write_upto(e, f->seed_up, a->bytes, NULL);
		break;
	case APP_RR:
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

/* n bytes of the answers arrived (rr). */
static void rr_answered(app_end *e, uint64_t n)
{
	const app_spec *a = e->f->spec;
	e->resp_part += n;
	while (e->resp_part >= a->response && e->txns < a->count) {
		e->resp_part -= a->response;
		e->txns++;
		e->req_part = 0;
	}
	if (e->txns == a->count)
		client_done(e);
	else
		client_pump(e);
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
	const app_flow *f = e->f;
	if (err) {
		e->err = err;
		app_end_close(e);
		return;
	}
	e->connected = true;
	e->t_connected = sim_now(e->st->eng);
	app_end_record_mode(e, s);
	if (f->hooks && f->hooks->connected)
		f->hooks->connected(f->user, e, s);
	const app_spec *a = f->spec;
	if ((a->kind == APP_ECHO && a->bytes == 0) || (a->kind == APP_RR && a->count == 0))
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
	sock *s = sock_connect(st, o, dst, port, &client_cbs, e, &err);
	if (!s) {
		e->err = err ? err : -ENOMEM;
		e->ended = true;
		return e->err;
	}
	e->s = s;
	return 0;
}

/* ---- a client alone ---- */

typedef struct lone_client {
	app_flow f;
	app_spec spec;
} lone_client;

app_flow *app_connect(stack *st, const sock_opts *o, uint32_t dst, uint16_t port, const app_spec *spec,
                      uint64_t seed, int *err)
{
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
	int rc = app_flow_connect(&c->f, st, o, dst, port);
	if (rc) {
		if (err)
			*err = rc;
		app_flow_release(&c->f);
		free(c);
		return NULL;
	}
	return &c->f;
}

void app_client_free(app_flow *f)
{
	if (!f)
		return;
	app_flow_release(f);
	free((lone_client *)f); /* f is the first member */
}
