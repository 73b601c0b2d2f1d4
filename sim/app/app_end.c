/* One end of a flow: the pattern written and checked, the mode, closing. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim/app/app_int.h"
#include "sim/engine/oom.h"
#include "sim/engine/pattern.h"
#include "sim/engine/rng.h"
#include "sim/net/stack.h"

void app_flow_init(app_flow *f, const app_spec *spec, app_kind server_kind, uint64_t seed_up, uint64_t seed_down,
                   const app_hooks *hooks, void *user)
{
	memset(f, 0, sizeof(*f));
	f->spec = spec;
	f->server_kind = server_kind;
	f->seed_up = seed_up;
	f->seed_down = seed_down;
	f->hooks = hooks;
	f->user = user;
	f->c.f = f->srv.f = f;
	f->srv.server = true;
	bytering_init(&f->echo, APP_ECHO_WINDOW + APP_CHUNK);
}

void app_end_close(app_end *e)
{
	if (!e->s)
		return;
	sock *s = e->s;
	e->s = NULL;
	e->closing = true;
	e->ended = true;
	if (!e->t_ended)
		e->t_ended = stack_now(e->st);
	app_flow *f = e->f;
	if (f->hooks && f->hooks->closed)
		f->hooks->closed(f->user, e);
	if (e->server)
		bytering_free(&f->echo);
	sock_close(s);
	if (!e->server && f->client)
		app_client_flow_ended(f->client, f);
}

void app_flow_release(app_flow *f)
{
	app_end_close(&f->c);
	app_end_close(&f->srv);
	bytering_free(&f->echo);
	if (f->lat) {
		app_hist_free(f->lat);
		free(f->lat);
		f->lat = NULL;
	}
}

void app_end_on_close(sock *s, int err, void *user)
{
	(void)s;
	app_end *e = user;
	if (err && !e->closing)
		e->err = err;
	e->ended = true;
	if (!e->t_ended)
		e->t_ended = stack_now(e->st);
	app_end_close(e);
}

void app_end_record_mode(app_end *e, sock *s)
{
	e->mode = sock_get_mode(s);
	e->reason = sock_fallback_reason(s);
}

bool app_end_done(const app_end *e)
{
	return !e->server && e->finished && e->ended && !e->err && !e->bad;
}

bool app_spec_needs_client(const app_spec *sp)
{
	return sp->kind == APP_CRR || sp->think_ns;
}

void app_end_finish(app_end *e)
{
	if (e->finished)
		return;
	e->finished = true;
	e->f->t_done = stack_now(e->st);
}

uint64_t app_seed_down(uint64_t seed)
{
	return sim_mix64(seed ^ 0x5eed);
}

/* ---- the pattern ---- */

void app_end_verify(app_end *e, uint64_t seed, const uint8_t *buf, size_t n)
{
	e->t_last_rx = stack_now(e->st);
	if (!e->bad) {
		size_t ok = pattern_check(seed, e->rx_total, buf, n);
		e->received += ok;
		if (ok != n)
			e->bad = true;
	}
	e->rx_total += n;
}

/* Received bytes checked where the socket shows them (and kept for an echo). */
typedef struct recv_span {
	app_end *e;
	uint64_t seed;
	bool keep;
} recv_span;

static void keep_bytes(app_end *e, const uint8_t *src, size_t len)
{
	if (bytering_write(&e->f->echo, src, len) != len)
		sim_out_of_memory("an echo server's buffer", len);
}

static void verify_span(void *ctx, const uint8_t *src, size_t len)
{
	recv_span *p = ctx;
	app_end_verify(p->e, p->seed, src, len);
	if (p->keep)
		keep_bytes(p->e, src, len);
}

ssize_t app_end_recv_verify(app_end *e, uint64_t seed, uint8_t *buf, size_t cap, bool keep)
{
	recv_span p = { .e = e, .seed = seed, .keep = keep };
	ssize_t n = sock_recv_visit(e->s, cap, verify_span, &p);
	if (n != -EOPNOTSUPP)
		return n;
	n = sock_recv(e->s, buf, cap);
	if (n > 0)
		verify_span(&p, buf, (size_t)n);
	return n;
}

/* What a write sends: the pattern from `off` on, or the bytes held in `ring` from `off`
 * past its head. */
typedef struct write_src {
	const bytering *ring;
	uint64_t seed, off;
} write_src;

static void fill_src(void *ctx, uint8_t *dst, size_t len)
{
	write_src *p = ctx;
	if (p->ring)
		bytering_copy_out(p->ring, (size_t)p->off, dst, len);
	else
		pattern_fill(p->seed, p->off, dst, len);
	p->off += len;
}

/* `limit` ends a message: with the socket's option more every piece before it carries
 * MSG_MORE, with cork the socket is uncorked when it is written (pushed) and corked again
 * for the next (sock_opts). */
void app_end_write_upto(app_end *e, uint64_t seed, uint64_t limit, bytering *from)
{
	uint8_t buf[APP_CHUNK];
	size_t call = APP_CALL_BYTES(e->f);
	while (e->s && e->sent < limit) {
		const sock_opts *o = sock_get_opts(e->s);
		bool cork = o->cork, more = o->more; /* the send may end the socket */
		uint64_t left = limit - e->sent;
		size_t n = left < call ? (size_t)left : call;
		size_t space = sock_send_space(e->s);
		if (space < n)
			n = space;
		if (!n)
			return;
		unsigned flags = more && n < left ? SOCK_MSG_MORE : 0;
		write_src src = { .ring = from, .seed = seed, .off = from ? 0 : e->sent };
		ssize_t k = sock_send_fill_flags(e->s, n, fill_src, &src, flags);
		if (k == -EOPNOTSUPP) {
			src.off = from ? 0 : e->sent;
			fill_src(&src, buf, n);
			k = sock_send_flags(e->s, buf, n, flags);
		}
		if (k <= 0)
			return;
		e->sent += (uint64_t)k;
		if (from) {
			bytering_drop(from, (size_t)k);
			if (!bytering_len(from))
				bytering_free(from); /* an idle echo holds no buffer */
		}
		if (cork && e->s && e->sent == limit) {
			sock_set_cork(e->s, false);
			sock_set_cork(e->s, true);
		}
	}
}
