/* The interoperability test's application (see app_interop.h). */
#include "sim/app/app_interop.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim/app/interop_proto.h"
#include "sim/engine/pattern.h"
#include "sim/net/stack.h"

#define CHUNK 16384
#define MAX_CONNS 64

typedef struct iconn {
	app_interop *a;
	sock *s; /* NULL once closed */
	app_interop_conn st;
	uint8_t hdr[INTEROP_HDR_LEN];
	size_t hdr_have;          /* server: bytes of the connection number read */
	uint64_t out_off, in_off; /* pattern offsets */
	bool completed, shut;
} iconn;

struct app_interop {
	stack *stk;
	bool server;
	sock_opts opts;
	uint32_t dst;
	uint16_t port;
	unsigned want;
	uint64_t bytes;
	sock *listener;
	iconn *conns[MAX_CONNS];
	size_t n;
	bool rest_started;    /* client: connections 2..N opened */
	sim_time retry_until; /* client: connection 1 is retried while refused */
	sim_event retry_ev;
	app_interop_complete_fn complete;
	void *user;
};

static void open_client(app_interop *a, uint64_t k);

static bool finished(const iconn *c)
{
	return c->st.closed || c->st.err || (!c->s && c->st.connected);
}

static void close_conn(iconn *c)
{
	if (c->s) {
		sock_close(c->s);
		c->s = NULL;
	}
	app_interop *a = c->a;
	/* the client's first connection ends before the others start */
	if (!a->server && !a->rest_started && c->st.k == 1) {
		a->rest_started = true;
		for (uint64_t k = 2; k <= a->want; k++)
			open_client(a, k);
	}
}

static void fail_conn(iconn *c, int err)
{
	if (!c->st.err)
		c->st.err = err ? err : -EIO;
	close_conn(c);
}

/* Everything agreed went both ways: the connection is complete (reported once). */
static void try_complete(iconn *c)
{
	app_interop *a = c->a;
	uint64_t out_total = a->bytes + (a->server ? 0 : INTEROP_HDR_LEN);
	uint64_t in_total = a->bytes + (a->server ? INTEROP_HDR_LEN : 0);
	if (!c->completed && c->st.sent == out_total && c->st.received == in_total) {
		c->completed = true;
		c->st.verified = c->st.verified && c->in_off == a->bytes;
		if (a->complete)
			a->complete(a->user, &c->st, c->s);
	}
}

static void maybe_finish(iconn *c)
{
	try_complete(c);
	if (c->completed && !c->shut) {
		c->shut = true;
		sock_shutdown(c->s);
	}
	if (c->shut && c->st.eof) {
		c->st.closed = true;
		close_conn(c);
	}
}

static void pump_out(iconn *c)
{
	app_interop *a = c->a;
	uint8_t buf[CHUNK];
	if (!a->server && c->st.sent == 0) {
		interop_put_be64(buf, c->st.k);
		ssize_t w = sock_send(c->s, buf, INTEROP_HDR_LEN);
		if (w != INTEROP_HDR_LEN) {
			if (w < 0)
				fail_conn(c, (int)w);
			return; /* an empty send buffer takes 8 bytes: w is 0 only before that */
		}
		c->st.sent += INTEROP_HDR_LEN;
	}
	if (a->server && c->hdr_have < INTEROP_HDR_LEN)
		return; /* the pattern depends on the connection number */
	uint64_t seed = (a->server ? INTEROP_SEED_S2C : INTEROP_SEED_C2S) + c->st.k;
	while (c->out_off < a->bytes) {
		uint64_t left = a->bytes - c->out_off;
		size_t n = left < CHUNK ? (size_t)left : CHUNK;
		size_t space = sock_send_space(c->s);
		if (space < n)
			n = space;
		if (!n)
			return;
		pattern_fill(seed, c->out_off, buf, n);
		ssize_t w = sock_send(c->s, buf, n);
		if (w <= 0) {
			if (w < 0)
				fail_conn(c, (int)w);
			return;
		}
		c->out_off += (uint64_t)w;
		c->st.sent += (uint64_t)w;
	}
}

static void on_readable(sock *s, void *user)
{
	iconn *c = user;
	app_interop *a = c->a;
	uint8_t buf[CHUNK];
	while (c->s) {
		ssize_t n = sock_recv(s, buf, sizeof buf);
		if (n == -EAGAIN)
			break;
		if (n < 0) {
			fail_conn(c, (int)n);
			return;
		}
		if (n == 0) {
			/* the last bytes and the end can come in one read */
			try_complete(c);
			if (!c->completed)
				c->st.verified = false; /* the stream ended early */
			c->st.eof = true;
			break;
		}
		size_t off = 0;
		c->st.received += (uint64_t)n;
		if (a->server && c->hdr_have < INTEROP_HDR_LEN) {
			size_t take = INTEROP_HDR_LEN - c->hdr_have;
			if (take > (size_t)n)
				take = (size_t)n;
			memcpy(c->hdr + c->hdr_have, buf, take);
			c->hdr_have += take;
			off = take;
			if (c->hdr_have == INTEROP_HDR_LEN) {
				c->st.k = interop_get_be64(c->hdr);
				pump_out(c);
			}
		}
		size_t len = (size_t)n - off;
		if (!len)
			continue;
		uint64_t seed = (a->server ? INTEROP_SEED_C2S : INTEROP_SEED_S2C) + c->st.k;
		if (c->in_off + len > a->bytes) {
			c->st.verified = false; /* more than agreed */
		} else {
			size_t ok = pattern_check(seed, c->in_off, buf + off, len);
			if (ok != len && c->st.verified) {
				c->st.verified = false;
				c->st.mismatch_at = c->in_off + ok;
			}
		}
		c->in_off += len;
	}
	if (c->s)
		maybe_finish(c);
}

static void on_writable(sock *s, void *user)
{
	(void)s;
	iconn *c = user;
	if (!c->s)
		return;
	pump_out(c);
	if (c->s)
		maybe_finish(c);
}

static void on_close(sock *s, int err, void *user)
{
	(void)s;
	iconn *c = user;
	if (err)
		fail_conn(c, err);
	else if (c->s)
		maybe_finish(c);
}

static void start_io(iconn *c, sock *s)
{
	c->st.connected = true;
	c->st.mode = sock_get_mode(s);
	c->st.fallback_reason = sock_fallback_reason(s);
	pump_out(c);
	if (c->s)
		on_readable(s, c);
}

static const sock_callbacks conn_cbs;

static void retry_first(sim_engine *eng, sim_event *ev)
{
	(void)eng;
	app_interop *a = ev->ctx;
	iconn *c = a->conns[0];
	int err = 0;
	c->s = sock_connect(a->stk, &a->opts, a->dst, a->port, &conn_cbs, c, &err);
	if (!c->s)
		fail_conn(c, err ? err : -EIO);
}

static void on_connect(sock *s, int err, void *user)
{
	iconn *c = user;
	app_interop *a = c->a;
	sim_engine *eng = a->stk->eng;
	/* the peer may still be starting up: retry the first connection for a while */
	if (err && c->st.k == 1 && !a->server && sim_now(eng) < a->retry_until &&
	    (err == -ECONNREFUSED || err == -ETIMEDOUT || err == -EHOSTUNREACH)) {
		sock_close(c->s);
		c->s = NULL;
		sim_event_schedule(eng, &a->retry_ev, sim_now(eng) + 300 * SIM_MS);
		return;
	}
	if (err) {
		fail_conn(c, err);
		return;
	}
	start_io(c, s);
}

static const sock_callbacks conn_cbs = {
	.on_connect = on_connect,
	.on_readable = on_readable,
	.on_writable = on_writable,
	.on_close = on_close,
};

static iconn *new_conn(app_interop *a)
{
	if (a->n == MAX_CONNS)
		return NULL;
	iconn *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->a = a;
	c->st.verified = true;
	a->conns[a->n++] = c;
	return c;
}

static void open_client(app_interop *a, uint64_t k)
{
	iconn *c = new_conn(a);
	if (!c)
		return;
	c->st.k = k;
	int err = 0;
	c->s = sock_connect(a->stk, &a->opts, a->dst, a->port, &conn_cbs, c, &err);
	if (!c->s)
		c->st.err = err ? err : -EIO;
}

static void on_accept(sock *listener, sock *child, void *user)
{
	(void)listener;
	app_interop *a = user;
	iconn *c = a->n < a->want ? new_conn(a) : NULL;
	if (!c) {
		sock_set_callbacks(child, &conn_cbs, NULL);
		sock_abort(child);
		return;
	}
	c->s = child;
	sock_set_callbacks(child, &conn_cbs, c);
	start_io(c, child);
}

static const sock_callbacks listen_cbs = {
	.on_accept = on_accept,
};

static app_interop *new_app(stack *st, const sock_opts *o, unsigned conns, uint64_t bytes,
                            app_interop_complete_fn fn, void *user, int *err)
{
	if (conns < 1 || conns > MAX_CONNS) {
		*err = -EINVAL;
		return NULL;
	}
	app_interop *a = calloc(1, sizeof(*a));
	if (!a) {
		*err = -ENOMEM;
		return NULL;
	}
	a->stk = st;
	if (o)
		a->opts = *o;
	else
		sock_opts_default(&a->opts);
	a->want = conns;
	a->bytes = bytes;
	a->complete = fn;
	a->user = user;
	return a;
}

app_interop *app_interop_client_start(stack *st, const sock_opts *o, uint32_t dst, uint16_t port, unsigned conns,
                                      uint64_t bytes, sim_time connect_wait, app_interop_complete_fn fn, void *user,
                                      int *err)
{
	app_interop *a = new_app(st, o, conns, bytes, fn, user, err);
	if (!a)
		return NULL;
	a->dst = dst;
	a->port = port;
	a->retry_until = sim_now(st->eng) + connect_wait;
	sim_event_init(&a->retry_ev, sim_kind("interop.retry"), 0, retry_first, a);
	open_client(a, 1);
	if (a->n == 1 && a->conns[0]->st.err) {
		*err = a->conns[0]->st.err;
		app_interop_free(a);
		return NULL;
	}
	if (conns == 1)
		a->rest_started = true;
	return a;
}

app_interop *app_interop_server_start(stack *st, const sock_opts *o, uint16_t port, unsigned conns, uint64_t bytes,
                                      app_interop_complete_fn fn, void *user, int *err)
{
	app_interop *a = new_app(st, o, conns, bytes, fn, user, err);
	if (!a)
		return NULL;
	a->server = true;
	a->listener = sock_listen(st, &a->opts, port, &listen_cbs, a, err);
	if (!a->listener) {
		free(a);
		return NULL;
	}
	return a;
}

bool app_interop_done(const app_interop *a)
{
	if (a->n < a->want && (a->server || !a->rest_started))
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (!finished(a->conns[i]))
			return false;
	return true;
}

size_t app_interop_n_conns(const app_interop *a)
{
	return a->n;
}

const app_interop_conn *app_interop_conn_get(const app_interop *a, size_t i)
{
	return i < a->n ? &a->conns[i]->st : NULL;
}

void app_interop_free(app_interop *a)
{
	if (!a)
		return;
	if (!a->server)
		sim_event_cancel(a->stk->eng, &a->retry_ev);
	for (size_t i = 0; i < a->n; i++) {
		if (a->conns[i]->s)
			sock_abort(a->conns[i]->s);
		free(a->conns[i]);
	}
	if (a->listener)
		sock_close(a->listener);
	free(a);
}
