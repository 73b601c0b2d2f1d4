/* Echo server. */
#include "sim/app/app_echo.h"

#include <errno.h>
#include <stdlib.h>

#include "sim/engine/pattern.h"

#define ECHO_BUF 16384

typedef struct echo_conn {
	struct echo_conn *prev, *next;
	app_echo *srv;
	sock *s;
	uint8_t buf[ECHO_BUF];
	size_t len, off; /* bytes read but not yet echoed: buf[off..len) */
	uint64_t offset; /* stream offset, for the pattern check */
	bool eof, bad;
} echo_conn;

struct app_echo {
	sock *listener;
	bool check;
	uint64_t seed;
	echo_conn *conns;
	app_echo_stats stats;
};

static void conn_free(echo_conn *c)
{
	app_echo *e = c->srv;
	if (c->prev)
		c->prev->next = c->next;
	else
		e->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	sock_close(c->s);
	free(c);
}

/* Echo what is pending, then read more while everything fits. */
static void pump(echo_conn *c)
{
	app_echo *e = c->srv;
	for (;;) {
		while (c->off < c->len) {
			ssize_t w = sock_send(c->s, c->buf + c->off, c->len - c->off);
			if (w < 0) {
				e->stats.errors++;
				conn_free(c);
				return;
			}
			if (w == 0)
				return; /* on_writable resumes */
			c->off += (size_t)w;
			e->stats.bytes_out += (uint64_t)w;
		}
		c->off = c->len = 0;
		if (c->eof) {
			sock_shutdown(c->s); /* on_close ends it */
			return;
		}
		ssize_t n = sock_recv(c->s, c->buf, sizeof c->buf);
		if (n == -EAGAIN)
			return;
		if (n < 0) {
			e->stats.errors++;
			conn_free(c);
			return;
		}
		if (n == 0) {
			c->eof = true;
			continue;
		}
		if (e->check && !c->bad && pattern_check(e->seed, c->offset, c->buf, (size_t)n) != (size_t)n) {
			c->bad = true;
			e->stats.mismatches++;
		}
		c->offset += (uint64_t)n;
		e->stats.bytes_in += (uint64_t)n;
		c->len = (size_t)n;
	}
}

static void on_readable(sock *s, void *user)
{
	(void)s;
	echo_conn *c = user;
	if (c->off == c->len && !c->eof)
		pump(c);
}

static void on_writable(sock *s, void *user)
{
	(void)s;
	pump(user);
}

static void on_close(sock *s, int err, void *user)
{
	(void)s;
	echo_conn *c = user;
	if (err)
		c->srv->stats.errors++;
	else
		c->srv->stats.completed++;
	conn_free(c);
}

static const sock_callbacks conn_cbs = {
	.on_readable = on_readable,
	.on_writable = on_writable,
	.on_close = on_close,
};

static void on_accept(sock *l, sock *child, void *user)
{
	(void)l;
	app_echo *e = user;
	echo_conn *c = calloc(1, sizeof *c);
	if (!c) {
		sock_abort(child);
		return;
	}
	c->srv = e;
	c->s = child;
	c->next = e->conns;
	if (e->conns)
		e->conns->prev = c;
	e->conns = c;
	e->stats.accepted++;
	e->stats.last_mode = sock_get_mode(child);
	e->stats.last_fallback_reason = sock_fallback_reason(child);
	sock_set_callbacks(child, &conn_cbs, c);
}

static const sock_callbacks listen_cbs = {
	.on_accept = on_accept,
};

app_echo *app_echo_start(stack *st, const sock_opts *o, uint16_t port, bool check_pattern,
                         uint64_t seed, int *err)
{
	app_echo *e = calloc(1, sizeof *e);
	if (!e) {
		if (err)
			*err = -ENOMEM;
		return NULL;
	}
	e->check = check_pattern;
	e->seed = seed;
	e->listener = sock_listen(st, o, port, &listen_cbs, e, err);
	if (!e->listener) {
		free(e);
		return NULL;
	}
	return e;
}

const app_echo_stats *app_echo_stats_get(const app_echo *e)
{
	return &e->stats;
}

void app_echo_free(app_echo *e)
{
	if (!e)
		return;
	while (e->conns)
		conn_free(e->conns);
	sock_close(e->listener);
	free(e);
}
