/* Two SMC-R cores alone over the in-memory loopback (see core_bench.h). */
#include "sim/bench/core_bench.h"

#include <stdlib.h>
#include <string.h>

#include "model/smcr.h"
#include "sim/engine/bench_measure.h"
#include "sim/engine/engine.h"
#include "sim/rdma/loopback_transport.h"
#include "sim/smc/core_timer.h"

typedef struct bench_world bench_world;

typedef struct bench_host {
	smcr_ctx *ctx;
	sim_rng rng;
	sim_event timer;
	bench_world *w;
} bench_host;

/* Connection 2k is the client end of pair k, 2k + 1 its server end. */
typedef struct bench_conn {
	smcr_conn *c;
	bench_world *w;
	uint64_t to_send, sent, received;
	uint64_t sum_tx, sum_rx; /* byte sums: what was sent arrives */
} bench_conn;

struct bench_world {
	const core_bench_config *cfg;
	sim_engine *eng;
	loopback *lb;
	smcr_tp_dev *dev[2];
	bench_host h[2];
	bench_conn *conns;
	uint32_t n;
	uint8_t *pattern;
	uint64_t *prefix; /* prefix[n] = sum of pattern[0..n) */
	uint8_t *scratch;
	uint64_t core_calls;
	uint32_t established;
	bool go; /* data phase started */
	bool failed;
};

static void host_sync(bench_host *h) { sim_core_timer_sync(h->w->eng, &h->timer, h->ctx); }

static void sync_both(bench_world *w)
{
	host_sync(&w->h[0]);
	host_sync(&w->h[1]);
}

/* The cores' callbacks ---------------------------------------------------------------- */

static void host_wc(void *owner, const smcr_wc *wc)
{
	bench_host *h = owner;
	h->w->core_calls++;
	smcr_ctx_on_completion(h->ctx, wc, sim_now(h->w->eng));
	sync_both(h->w);
}

static void on_timer(sim_engine *eng, sim_event *ev)
{
	bench_host *h = ev->ctx;
	h->w->core_calls++;
	smcr_ctx_handle_expiry(h->ctx, sim_now(eng));
	sync_both(h->w);
}

static void cb_rand(void *user, uint8_t *dst, size_t len) { sim_rng_bytes(&((bench_host *)user)->rng, dst, len); }

/* CLC bytes on their way to the other end, 10 us later. */
typedef struct pipe_seg {
	bench_world *w;
	bench_conn *to;
	size_t len;
	uint8_t data[];
} pipe_seg;

static void pipe_deliver(sim_engine *eng, sim_event *ev)
{
	pipe_seg *s = ev->ctx;
	bench_world *w = s->w;
	if (s->to->c) {
		w->core_calls++;
		smcr_conn_clc_input(s->to->c, s->data, s->len, sim_now(eng));
	}
	free(s);
	sync_both(w);
}

static int cb_clc_send(void *user, smcr_conn *conn, const uint8_t *buf, size_t len)
{
	bench_world *w = ((bench_host *)user)->w;
	uint32_t i = (uint32_t)((bench_conn *)smcr_conn_user(conn) - w->conns);
	pipe_seg *s = malloc(sizeof(*s) + len);
	s->w = w;
	s->to = &w->conns[i ^ 1];
	s->len = len;
	memcpy(s->data, buf, len);
	sim_post(w->eng, sim_now(w->eng) + 10000, 0, i, pipe_deliver, s, 0);
	return 0;
}

static void pump(bench_conn *bc)
{
	bench_world *w = bc->w;
	if (!w->go)
		return;
	while (bc->sent < bc->to_send) {
		uint64_t left = bc->to_send - bc->sent;
		size_t n = left < w->cfg->chunk ? (size_t)left : w->cfg->chunk;
		w->core_calls++;
		ssize_t r = smcr_conn_send(bc->c, w->pattern, n, 0, sim_now(w->eng));
		if (r <= 0)
			break;
		bc->sent += (uint64_t)r;
		bc->sum_tx += w->prefix[r];
	}
}

static uint64_t byte_sum(const uint8_t *p, size_t n)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += p[i];
	return sum;
}

static void drain(bench_conn *bc)
{
	bench_world *w = bc->w;
	for (;;) {
		w->core_calls++;
		ssize_t r = smcr_conn_recv(bc->c, w->scratch, w->cfg->chunk, 0, sim_now(w->eng));
		if (r <= 0)
			break;
		bc->received += (uint64_t)r;
		if (w->cfg->verify)
			bc->sum_rx += byte_sum(w->scratch, (size_t)r);
	}
}

static void cb_established(void *user, smcr_conn *conn)
{
	bench_host *h = user;
	h->w->established++;
	pump(smcr_conn_user(conn));
}

static void cb_fallback(void *user, smcr_conn *conn, uint32_t reason, uint32_t diag, const uint8_t *d, size_t n)
{
	bench_host *h = user;
	(void)conn;
	(void)d;
	(void)n;
	fprintf(h->w->cfg->log, "bench core: a connection fell back (reason 0x%08x, peer 0x%08x)\n", reason, diag);
	h->w->established++;
	h->w->failed = true;
}

static void cb_readable(void *user, smcr_conn *conn)
{
	(void)user;
	drain(smcr_conn_user(conn));
}

static void cb_writable(void *user, smcr_conn *conn)
{
	(void)user;
	pump(smcr_conn_user(conn));
}

static const smcr_callbacks bench_cb = {
	.rand = cb_rand,
	.clc_send = cb_clc_send,
	.established = cb_established,
	.fallback = cb_fallback,
	.readable = cb_readable,
	.writable = cb_writable,
};

/* Building ---------------------------------------------------------------------------- */

static void port_for(int host, smcr_port_desc *pd, smcr_tp_dev *dev)
{
	memset(pd, 0, sizeof(*pd));
	pd->dev = dev;
	pd->port = 1;
	snprintf(pd->name, sizeof(pd->name), "lb%d", host);
	snprintf(pd->pnet_id, sizeof(pd->pnet_id), "NET1");
	uint8_t mac[6] = { 2, 0, 0, 0, 0, (uint8_t)(1 + host) };
	memcpy(pd->mac, mac, 6);
	pd->active_mtu = SMCR_MTU_4096;
	pd->state = SMCR_PORT_ACTIVE;
	pd->n_gids = 1;
	pd->gids[0].gid[0] = 0xfe;
	pd->gids[0].gid[1] = 0x80;
	pd->gids[0].gid[15] = (uint8_t)(1 + host);
	pd->gids[0].type = SMCR_GID_ROCE_V1;
}

static void tcp_for(int host, smcr_tcp_info *ti, uint32_t rmb)
{
	memset(ti, 0, sizeof(*ti));
	ti->peer_smc = true;
	ti->family = 4;
	ti->local_ipv4 = 0x0a000001u + (uint32_t)host;
	ti->peer_ipv4 = 0x0a000002u - (uint32_t)host;
	snprintf(ti->pnet_id, sizeof(ti->pnet_id), "NET1");
	ti->netdev_port = 0;
	ti->n_ipv4 = 1;
	ti->ipv4[0].addr = ti->local_ipv4;
	ti->ipv4[0].prefix_len = 24;
	ti->rcvbuf = rmb;
	ti->sndbuf = rmb;
}

/* The engine, the loopback and the application's buffers (the pattern and its sums). */
static bench_world *world_new(const core_bench_config *c)
{
	bench_world *w = calloc(1, sizeof(*w));
	w->cfg = c;
	w->eng = sim_engine_new(c->seed);
	w->lb = loopback_new(w->eng);
	loopback_set_latency(w->lb, 1000);
	loopback_set_ns_per_kib(w->lb, 0);
	for (int i = 0; i < 2; i++) {
		w->h[i].w = w;
		sim_event_init(&w->h[i].timer, sim_kind("bench.timer"), (uint64_t)i, on_timer, &w->h[i]);
	}
	w->n = c->conns * 2;
	w->conns = calloc(w->n, sizeof(*w->conns));
	w->pattern = malloc(c->chunk);
	w->scratch = malloc(c->chunk);
	w->prefix = malloc((c->chunk + 1) * sizeof(*w->prefix));
	w->prefix[0] = 0;
	for (size_t i = 0; i < c->chunk; i++) {
		w->pattern[i] = (uint8_t)(i * 31 + 7);
		w->prefix[i + 1] = w->prefix[i] + w->pattern[i];
	}
	return w;
}

/* A core per host, each with one loopback port; false when one cannot be created. */
static bool cores_new(bench_world *w)
{
	smcr_settings set;
	smcr_settings_default(&set);
	set.rmb_size = set.sndbuf_size = (uint32_t)w->cfg->buffer_kib * 1024;
	set.max_links = 1; /* one link, one lgr */
	for (int i = 0; i < 2; i++) {
		bench_host *h = &w->h[i];
		w->dev[i] = loopback_dev_new(w->lb, i ? "lb1" : "lb0", host_wc, NULL, h);
		sim_engine_rng(w->eng, "bench.host", (uint64_t)i, &h->rng);
		if (smcr_ctx_new(&h->ctx, &set, &bench_cb, h, &loopback_ops, w->lb, NULL, 0))
			return false;
		smcr_port_desc pd;
		port_for(i, &pd, w->dev[i]);
		smcr_ctx_add_port(h->ctx, &pd, 0);
	}
	return true;
}

static void world_free(bench_world *w)
{
	for (int i = 0; i < 2; i++) {
		sim_event_cancel(w->eng, &w->h[i].timer);
		if (w->h[i].ctx)
			smcr_ctx_free(w->h[i].ctx);
	}
	loopback_free(w->lb);
	sim_engine_free(w->eng);
	free(w->pattern);
	free(w->prefix);
	free(w->scratch);
	free(w->conns);
	free(w);
}

/* Running ----------------------------------------------------------------------------- */

/* Every pair's handshake, one after the other like a client that connects one by one;
 * false when one fell back. */
static bool connect_all(bench_world *w)
{
	for (uint32_t i = 0; i < w->n; i += 2) {
		bench_conn *cc = &w->conns[i], *sc = &w->conns[i + 1];
		cc->w = sc->w = w;
		cc->to_send = w->cfg->mib << 20;
		smcr_tcp_info ci, si;
		tcp_for(0, &ci, (uint32_t)w->cfg->buffer_kib * 1024);
		tcp_for(1, &si, (uint32_t)w->cfg->buffer_kib * 1024);
		smcr_conn_accept(w->h[1].ctx, &si, sc, sim_now(w->eng), &sc->c);
		smcr_conn_connect(w->h[0].ctx, &ci, cc, sim_now(w->eng), &cc->c);
		sync_both(w);
		while (w->established < i + 2 && sim_engine_next_time(w->eng) != SIM_TIME_NEVER)
			sim_engine_run(w->eng, sim_engine_next_time(w->eng), 0);
	}
	return !w->failed;
}

static uint64_t delivered(const bench_world *w)
{
	uint64_t got = 0;
	for (uint32_t i = 1; i < w->n; i += 2)
		got += w->conns[i].received;
	return got;
}

/* The data phase: every client writes what it has; events run until all arrived or
 * nothing is left to run. */
static void stream_all(bench_world *w, core_bench_result *r)
{
	uint64_t calls0 = w->core_calls, ev0 = sim_engine_events_run(w->eng), sim0 = sim_now(w->eng);
	double t0 = bench_wall_seconds();
	w->go = true;
	for (uint32_t i = 0; i < w->n; i += 2)
		pump(&w->conns[i]);
	sync_both(w);
	while (sim_engine_next_time(w->eng) != SIM_TIME_NEVER) {
		sim_engine_run(w->eng, sim_engine_next_time(w->eng), 0);
		r->delivered = delivered(w);
		if (r->delivered >= r->total)
			break;
	}
	r->wall = bench_wall_seconds() - t0;
	r->core_calls = w->core_calls - calls0;
	r->events = sim_engine_events_run(w->eng) - ev0;
	r->simulated_ns = sim_now(w->eng) - sim0;
}

static void check_sums(const bench_world *w, core_bench_result *r)
{
	for (uint32_t i = 0; w->cfg->verify && i < w->n; i += 2)
		if (w->conns[i].sum_tx != w->conns[i + 1].sum_rx)
			r->bad[r->n_bad++] = (uint16_t)(i / 2);
}

int core_bench_run(const core_bench_config *c, core_bench_result *r, char *err, size_t errlen)
{
	memset(r, 0, sizeof(*r));
	r->total = (uint64_t)c->conns * c->mib << 20;
	bench_world *w = world_new(c);
	int rc = 1;
	if (!cores_new(w))
		snprintf(err, errlen, "cannot create the core");
	else if (!connect_all(w))
		snprintf(err, errlen, "the handshakes did not all succeed");
	else
		rc = 0;
	if (!rc) {
		stream_all(w, r);
		check_sums(w, r);
	}
	world_free(w);
	return rc;
}
