/* Bulk sender and sink. */
#include "sim/app/app_bulk.h"

#include <errno.h>
#include <stdlib.h>

#include "sim/engine/pattern.h"
#include "sim/net/stack.h"

#define APP_CHUNK 16384

struct app_bulk_sender {
	stack *st;
	sock *s;
	uint64_t total, seed;
	bool shut;
	bool cork, more; /* sock_opts cork and more */
	app_bulk_sender_stats stats;
};

/* The stream's pattern from `off` on, written where the socket wants it. */
typedef struct pattern_at {
	uint64_t seed, off;
} pattern_at;

static void fill_pattern(void *ctx, uint8_t *dst, size_t len)
{
	pattern_at *p = ctx;
	pattern_fill(p->seed, p->off, dst, len);
	p->off += len;
}

static void sender_pump(app_bulk_sender *a)
{
	uint8_t buf[APP_CHUNK];
	while (a->stats.bytes_sent < a->total) {
		uint64_t left = a->total - a->stats.bytes_sent;
		size_t n = left < sizeof buf ? (size_t)left : sizeof buf;
		size_t space = sock_send_space(a->s); /* generate only what will be taken */
		if (space < n)
			n = space;
		if (!n)
			return;
		/* the whole transfer is one message: MSG_MORE on all but its last piece */
		unsigned flags = a->more && n < left ? SOCK_MSG_MORE : 0;
		/* generated in place where the socket offers its buffer (TCP, SMC-R), else here */
		pattern_at at = { a->seed, a->stats.bytes_sent };
		ssize_t w = sock_send_fill_flags(a->s, n, fill_pattern, &at, flags);
		if (w == -EOPNOTSUPP) {
			pattern_fill(a->seed, a->stats.bytes_sent, buf, n);
			w = sock_send_flags(a->s, buf, n, flags);
		}
		if (w <= 0) {
			if (w < 0)
				a->stats.err = (int)w;
			return;
		}
		a->stats.bytes_sent += (uint64_t)w;
	}
	if (!a->shut) {
		a->shut = true;
		if (a->cork)
			sock_set_cork(a->s, false); /* the message is written: push it */
		sock_shutdown(a->s);
	}
}

static void sender_on_connect(sock *s, int err, void *user)
{
	app_bulk_sender *a = user;
	if (err) {
		a->stats.err = err;
		return;
	}
	a->stats.connected = true;
	a->stats.connected_at = sim_now(a->st->eng);
	a->stats.mode = sock_get_mode(s);
	a->stats.fallback_reason = sock_fallback_reason(s);
	sender_pump(a);
}

static void sender_on_writable(sock *s, void *user)
{
	(void)s;
	sender_pump(user);
}

static void sender_on_readable(sock *s, void *user)
{
	(void)user;
	uint8_t buf[512];
	while (sock_recv(s, buf, sizeof buf) > 0)
		; /* the sink sends nothing; drain in case it does */
}

static void sender_on_close(sock *s, int err, void *user)
{
	(void)s;
	app_bulk_sender *a = user;
	if (err) {
		a->stats.err = err;
		return;
	}
	a->stats.done = a->stats.bytes_sent == a->total;
	a->stats.done_at = sim_now(a->st->eng);
}

static const sock_callbacks sender_cbs = {
	.on_connect = sender_on_connect,
	.on_readable = sender_on_readable,
	.on_writable = sender_on_writable,
	.on_close = sender_on_close,
};

app_bulk_sender *app_bulk_sender_start(stack *st, const sock_opts *o, uint32_t dst, uint16_t port,
                                       uint64_t bytes, uint64_t seed, int *err)
{
	app_bulk_sender *a = calloc(1, sizeof *a);
	if (!a) {
		if (err)
			*err = -ENOMEM;
		return NULL;
	}
	a->st = st;
	a->total = bytes;
	a->seed = seed;
	a->cork = o && o->cork;
	a->more = o && o->more;
	a->s = sock_connect(st, o, dst, port, &sender_cbs, a, err);
	if (!a->s) {
		free(a);
		return NULL;
	}
	return a;
}

const app_bulk_sender_stats *app_bulk_sender_stats_get(const app_bulk_sender *a)
{
	return &a->stats;
}

void app_bulk_sender_free(app_bulk_sender *a)
{
	if (!a)
		return;
	sock_close(a->s);
	free(a);
}

/* ---- sink ---- */

typedef struct sink_conn {
	struct sink_conn *prev, *next;
	app_bulk_sink *sink;
	sock *s;
	uint64_t offset;
	bool bad;
} sink_conn;

struct app_bulk_sink {
	stack *st;
	sock *listener;
	uint64_t seed;
	sink_conn *conns;
	app_bulk_sink_stats stats;
};

static void conn_free(sink_conn *c)
{
	app_bulk_sink *k = c->sink;
	if (c->prev)
		c->prev->next = c->next;
	else
		k->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	sock_close(c->s);
	free(c);
}

/* Check received bytes against the pattern at the connection's offset. */
static void check_span(void *ctx, const uint8_t *src, size_t len)
{
	sink_conn *c = ctx;
	app_bulk_sink *k = c->sink;
	size_t ok = pattern_check(k->seed, c->offset, src, len);
	if (ok != len && !c->bad) {
		c->bad = true;
		if (!k->stats.mismatches++)
			k->stats.first_mismatch_offset = c->offset + ok;
	}
	c->offset += (uint64_t)len;
	k->stats.bytes += (uint64_t)len;
}

static void sink_on_readable(sock *s, void *user)
{
	sink_conn *c = user;
	app_bulk_sink *k = c->sink;
	uint8_t buf[APP_CHUNK];
	for (;;) {
		/* checked where the bytes landed (TCP receive buffer, SMC-R RMB), else copied out first */
		ssize_t n = sock_recv_visit(s, sizeof buf, check_span, c);
		bool checked = n != -EOPNOTSUPP;
		if (!checked)
			n = sock_recv(s, buf, sizeof buf);
		if (n == -EAGAIN)
			return;
		if (n < 0) {
			k->stats.errors++;
			conn_free(c);
			return;
		}
		if (n == 0) {
			k->stats.completed++;
			conn_free(c); /* our FIN follows theirs */
			return;
		}
		if (!checked)
			check_span(c, buf, (size_t)n);
	}
}

static void sink_on_close(sock *s, int err, void *user)
{
	(void)s;
	sink_conn *c = user;
	if (err) {
		c->sink->stats.errors++;
		conn_free(c);
	}
}

static const sock_callbacks sink_conn_cbs = {
	.on_readable = sink_on_readable,
	.on_close = sink_on_close,
};

static void sink_on_accept(sock *l, sock *child, void *user)
{
	(void)l;
	app_bulk_sink *k = user;
	sink_conn *c = calloc(1, sizeof *c);
	if (!c) {
		sock_abort(child);
		return;
	}
	c->sink = k;
	c->s = child;
	c->next = k->conns;
	if (k->conns)
		k->conns->prev = c;
	k->conns = c;
	k->stats.accepted++;
	k->stats.last_mode = sock_get_mode(child);
	k->stats.last_fallback_reason = sock_fallback_reason(child);
	sock_set_callbacks(child, &sink_conn_cbs, c);
}

static const sock_callbacks sink_listen_cbs = {
	.on_accept = sink_on_accept,
};

app_bulk_sink *app_bulk_sink_start(stack *st, const sock_opts *o, uint16_t port, uint64_t seed, int *err)
{
	app_bulk_sink *k = calloc(1, sizeof *k);
	if (!k) {
		if (err)
			*err = -ENOMEM;
		return NULL;
	}
	k->st = st;
	k->seed = seed;
	k->listener = sock_listen(st, o, port, &sink_listen_cbs, k, err);
	if (!k->listener) {
		free(k);
		return NULL;
	}
	return k;
}

const app_bulk_sink_stats *app_bulk_sink_stats_get(const app_bulk_sink *k)
{
	return &k->stats;
}

void app_bulk_sink_free(app_bulk_sink *k)
{
	if (!k)
		return;
	while (k->conns)
		conn_free(k->conns);
	sock_close(k->listener);
	free(k);
}
