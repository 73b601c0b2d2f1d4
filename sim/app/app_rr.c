/* Request/response client. */
#include "sim/app/app_rr.h"

#include <errno.h>
#include <stdlib.h>

#include "sim/engine/pattern.h"
#include "sim/net/stack.h"

#define RR_CHUNK 16384

struct app_rr {
	stack *st;
	sock *s;
	uint32_t req_size;
	uint64_t count, seed;
	uint64_t req_sent; /* bytes of the current request sent */
	uint64_t resp_got; /* bytes of the current response received */
	sim_time req_start;
	bool in_txn, shut;
	bool cork, more; /* sock_opts cork and more: a request is one message */
	app_rr_stats stats;
};

static void start_next(app_rr *r);

static void send_more(app_rr *r)
{
	uint8_t buf[RR_CHUNK];
	while (r->in_txn && r->req_sent < r->req_size) {
		uint64_t left = r->req_size - r->req_sent;
		size_t n = left < sizeof buf ? (size_t)left : sizeof buf;
		size_t space = sock_send_space(r->s); /* generate only what will be taken */
		if (space < n)
			n = space;
		if (!n)
			return;
		uint64_t off = r->stats.transactions * r->req_size + r->req_sent;
		pattern_fill(r->seed, off, buf, n);
		ssize_t w = sock_send_flags(r->s, buf, n, r->more && n < left ? SOCK_MSG_MORE : 0);
		if (w <= 0) {
			if (w < 0)
				r->stats.err = (int)w;
			return;
		}
		r->req_sent += (uint64_t)w;
		r->stats.bytes_sent += (uint64_t)w;
		if (r->cork && r->req_sent == r->req_size) {
			sock_set_cork(r->s, false); /* the request is written: push it */
			sock_set_cork(r->s, true);  /* and hold the next one's pieces */
		}
	}
}

static void start_next(app_rr *r)
{
	if (r->stats.transactions == r->count) {
		if (!r->shut) {
			r->shut = true;
			sock_shutdown(r->s);
		}
		return;
	}
	r->in_txn = true;
	r->req_sent = r->resp_got = 0;
	r->req_start = sim_now(r->st->eng);
	send_more(r);
}

static void on_connect(sock *s, int err, void *user)
{
	app_rr *r = user;
	if (err) {
		r->stats.err = err;
		return;
	}
	r->stats.connected = true;
	r->stats.mode = sock_get_mode(s);
	r->stats.fallback_reason = sock_fallback_reason(s);
	start_next(r);
}

static void on_readable(sock *s, void *user)
{
	app_rr *r = user;
	uint8_t buf[RR_CHUNK];
	for (;;) {
		ssize_t n = sock_recv(s, buf, sizeof buf);
		if (n == -EAGAIN || n == 0)
			return; /* end of stream: on_close follows */
		if (n < 0) {
			r->stats.err = (int)n;
			return;
		}
		uint64_t off = r->stats.transactions * r->req_size + r->resp_got;
		if (!r->in_txn || r->resp_got + (uint64_t)n > r->req_size ||
		    pattern_check(r->seed, off, buf, (size_t)n) != (size_t)n)
			r->stats.mismatches++;
		r->resp_got += (uint64_t)n;
		r->stats.bytes_received += (uint64_t)n;
		if (r->in_txn && r->resp_got >= r->req_size) {
			sim_time lat = sim_now(r->st->eng) - r->req_start;
			if (!r->stats.transactions || lat < r->stats.lat_min)
				r->stats.lat_min = lat;
			if (lat > r->stats.lat_max)
				r->stats.lat_max = lat;
			r->stats.lat_sum += lat;
			r->stats.transactions++;
			r->in_txn = false;
			start_next(r);
		}
	}
}

static void on_writable(sock *s, void *user)
{
	(void)s;
	send_more(user);
}

static void on_close(sock *s, int err, void *user)
{
	(void)s;
	app_rr *r = user;
	if (err)
		r->stats.err = err;
	else
		r->stats.done = r->stats.transactions == r->count;
}

static const sock_callbacks rr_cbs = {
	.on_connect = on_connect,
	.on_readable = on_readable,
	.on_writable = on_writable,
	.on_close = on_close,
};

app_rr *app_rr_start(stack *st, const sock_opts *o, uint32_t dst, uint16_t port, uint32_t req_size,
                     uint64_t count, uint64_t seed, int *err)
{
	app_rr *r = calloc(1, sizeof *r);
	if (!r) {
		if (err)
			*err = -ENOMEM;
		return NULL;
	}
	r->st = st;
	r->req_size = req_size ? req_size : 1;
	r->count = count;
	r->seed = seed;
	r->cork = o && o->cork;
	r->more = o && o->more;
	r->s = sock_connect(st, o, dst, port, &rr_cbs, r, err);
	if (!r->s) {
		free(r);
		return NULL;
	}
	return r;
}

const app_rr_stats *app_rr_stats_get(const app_rr *r)
{
	return &r->stats;
}

void app_rr_free(app_rr *r)
{
	if (!r)
		return;
	sock_close(r->s);
	free(r);
}
