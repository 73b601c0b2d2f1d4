/* Two SMC-R cores against each other (see duo.h). */
#include "tests/support/duo.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/smc/core_timer.h"

static duo_conn *dc(smcr_conn *c) { return smcr_conn_user(c); }

static void host_sync(duo_host *h);
static bool trace_on(void);

static void sync_both(duo *d)
{
	host_sync(&d->h[0]);
	host_sync(&d->h[1]);
}

/* Allocator with failure injection ------------------------------------------------------- */

static void *t_malloc(size_t n, void *user)
{
	duo_host *h = user;
	h->alloc_count++;
	if ((h->fail_at && h->alloc_count == h->fail_at) ||
	    (h->fail_every && h->alloc_count % h->fail_every == 0)) {
		h->allocs_failed++;
		return NULL;
	}
	return malloc(n);
}

static void t_free(void *p, void *user)
{
	(void)user;
	free(p);
}

static void *t_calloc(size_t nm, size_t n, void *user)
{
	void *p = t_malloc(nm * n, user);
	if (p)
		memset(p, 0, nm * n);
	return p;
}

/* Buffer hooks: page-aligned buffers, every call recorded ----------------------------------- */

static void buf_record(duo_host *h, duo_buf_call_kind kind, void *ptr, size_t size, uint64_t peer_bytes)
{
	if (h->n_buf_calls < DUO_MAX_BUF_CALLS)
		h->buf_calls[h->n_buf_calls] = (duo_buf_call){ kind, ptr, size, peer_bytes };
	h->n_buf_calls++;
}

static void *t_buf_alloc(size_t size, void *user)
{
	void *p = aligned_alloc(4096, (size + 4095) & ~(size_t)4095);
	if (p)
		memset(p, 0, size);
	buf_record(user, DUO_BUF_ALLOC, p, size, 0);
	return p;
}

static void t_buf_free(void *p, size_t size, void *user)
{
	buf_record(user, DUO_BUF_FREE, p, size, 0);
	free(p);
}

static void t_buf_reset(void *p, size_t size, void *user)
{
	memset(p, 0, size);
	buf_record(user, DUO_BUF_RESET, p, size, 0);
}

static void t_buf_idle(void *p, size_t size, bool idle, uint64_t peer_bytes, void *user)
{
	buf_record(user, idle ? DUO_BUF_IDLE : DUO_BUF_BUSY, p, size, peer_bytes);
}

static void t_buf_write(void *p, size_t size, void *user)
{
	duo_host *h = user;
	if (h->n_writes < DUO_MAX_BUF_CALLS) {
		h->write_ptr[h->n_writes] = p;
		h->write_size[h->n_writes] = size;
	}
	h->n_writes++;
	h->write_bytes += size;
}

/* Callbacks ------------------------------------------------------------------------------ */

static void cb_rand(void *user, uint8_t *dst, size_t len)
{
	duo_host *h = user;
	sim_rng_bytes(&h->rng, dst, len);
}

static void tcp_deliver(sim_engine *eng, sim_event *ev);

static void tcp_kick(duo_conn *c)
{
	duo *d = c->d;
	if (c->clc_in_flight || !c->clc_pending_len)
		return;
	c->clc_in_flight = true;
	sim_post(d->eng, sim_now(d->eng) + d->tcp_latency, d->kind_tcp, (uint64_t)c->index, tcp_deliver, c, 0);
}

static int cb_clc_send(void *user, smcr_conn *conn, const uint8_t *buf, size_t len)
{
	(void)user;
	duo_conn *c = dc(conn);
	if (!c || c->tcp_closed || c->tcp_aborted)
		return -1;
	if (trace_on()) {
		char text[256];
		smcr_clc_describe(buf, len, text, sizeof(text));
		fprintf(stderr, "%10.6f conn %d CLC %s\n", (double)sim_now(c->d->eng) / 1e9, c->index, text);
	}
	c->clc_sent_bytes += len;
	c->last_clc_len = len < sizeof(c->last_clc) ? len : sizeof(c->last_clc);
	memcpy(c->last_clc, buf, c->last_clc_len);
	if (c->drop_clc)
		return 0;
	c->clc_pending = realloc(c->clc_pending, c->clc_pending_len + len);
	memcpy(c->clc_pending + c->clc_pending_len, buf, len);
	c->clc_pending_len += len;
	tcp_kick(c);
	return 0;
}

static void app_rx_add(duo_conn *c, const uint8_t *buf, size_t len)
{
	if (!len)
		return;
	c->app_rx = realloc(c->app_rx, c->app_rx_len + len);
	memcpy(c->app_rx + c->app_rx_len, buf, len);
	c->app_rx_len += len;
}

static void tcp_deliver(sim_engine *eng, sim_event *ev)
{
	(void)eng;
	duo_conn *c = ev->ctx;
	duo_conn *p = c->peer;
	c->clc_in_flight = false;
	size_t n = c->clc_pending_len;
	if (c->clc_chunk && n > c->clc_chunk)
		n = c->clc_chunk;
	if (!p || p->tcp_closed || p->tcp_aborted || c->tcp_aborted) {
		c->clc_pending_len = 0;
		return;
	}
	uint8_t *seg = malloc(n);
	memcpy(seg, c->clc_pending, n);
	memmove(c->clc_pending, c->clc_pending + n, c->clc_pending_len - n);
	c->clc_pending_len -= n;
	if (p->fallback || !p->c) {
		app_rx_add(p, seg, n);
	} else {
		ssize_t took = smcr_conn_clc_input(p->c, seg, n, sim_now(c->d->eng));
		if (took >= 0 && (size_t)took < n)
			app_rx_add(p, seg + took, n - (size_t)took);
	}
	free(seg);
	tcp_kick(c);
	sync_both(c->d);
}

static void cb_established(void *user, smcr_conn *conn)
{
	(void)user;
	duo_conn *c = dc(conn);
	c->established = true;
	duo_pump(c);
}

static void cb_fallback(void *user, smcr_conn *conn, uint32_t reason, uint32_t peer_diag,
                        const uint8_t *app, size_t app_len)
{
	(void)user;
	duo_conn *c = dc(conn);
	c->fallback = true;
	c->fb_reason = reason;
	c->fb_peer_diag = peer_diag;
	app_rx_add(c, app, app_len);
}

static void cb_readable(void *user, smcr_conn *conn)
{
	(void)user;
	duo_conn *c = dc(conn);
	c->readable_calls++;
	if (c->auto_read)
		duo_read_all(c);
}

static void cb_writable(void *user, smcr_conn *conn)
{
	(void)user;
	duo_conn *c = dc(conn);
	c->writable_calls++;
	duo_pump(c);
}

static void cb_peer_closed(void *user, smcr_conn *conn)
{
	(void)user;
	duo_conn *c = dc(conn);
	c->peer_closed = true;
	if (c->auto_read)
		duo_read_all(c);
}

static void cb_tcp_control(void *user, smcr_conn *conn, smcr_tcp_action act)
{
	(void)user;
	duo_conn *c = dc(conn);
	switch (act) {
	case SMCR_TCP_SHUTDOWN:
		c->tcp_shutdown = true;
		break;
	case SMCR_TCP_SHUTDOWN_WR:
		c->tcp_shutdown_wr = true;
		break;
	case SMCR_TCP_CLOSE:
		c->tcp_closed = true;
		break;
	case SMCR_TCP_ABORT:
		c->tcp_aborted = true;
		break;
	}
}

static void cb_aborted(void *user, smcr_conn *conn, int err)
{
	(void)user;
	duo_conn *c = dc(conn);
	c->aborted = true;
	c->abort_err = err;
}

static void cb_conn_freed(void *user, smcr_conn *conn)
{
	(void)user;
	duo_conn *c = dc(conn);
	c->freed = true;
	c->c = NULL;
}

static bool trace_on(void)
{
	static int on = -1;
	if (on < 0)
		on = getenv("DUO_TRACE") != NULL;
	return on;
}

static void trace_send(void *arg, uint32_t src, uint32_t dst, const uint8_t *buf, uint32_t len)
{
	duo *d = arg;
	char text[256];
	if (len && buf[0] == SMCR_CDC_TYPE) {
		smcr_cdc_msg m;
		if (smcr_cdc_decode(&m, buf, len, NULL))
			snprintf(text, sizeof(text), "bad CDC");
		else
			smcr_cdc_describe(&m, text, sizeof(text));
	} else {
		smcr_llc_msg *m = calloc(1, sizeof(*m));
		smcr_decode_err e;
		if (smcr_llc_decode(m, buf, len, &e))
			smcr_decode_err_format(&e, text, sizeof(text));
		else
			smcr_llc_describe(m, text, sizeof(text));
		free(m);
	}
	fprintf(stderr, "%10.6f qp %x -> %x: %s\n", (double)sim_now(d->eng) / 1e9, src, dst, text);
}

static void cb_event(void *user, const smcr_event *ev)
{
	duo_host *h = user;
	duo *d = h->d;
	if (trace_on())
		fprintf(stderr, "%10.6f host %d event %d lgr %llu conn %llu reason %x %s\n",
		        (double)sim_now(d->eng) / 1e9, h->idx, ev->type, (unsigned long long)ev->lgr_id,
		        (unsigned long long)ev->conn_id, ev->reason, ev->text ? ev->text : "");
	if (d->n_ev >= DUO_MAX_EVENTS)
		return;
	duo_event_rec *r = &d->ev[d->n_ev++];
	r->host = h->idx;
	r->type = ev->type;
	r->lgr_id = ev->lgr_id;
	r->conn_id = ev->conn_id;
	r->link_id = ev->link ? ev->link->id : 0;
	r->linkdown = ev->linkdown;
	r->reason = ev->reason;
	r->lgr_type = ev->lgr_type;
	r->lgr_end = ev->lgr_end;
	r->conn_state = ev->conn_state;
	r->at = sim_now(d->eng);
}

static const smcr_callbacks callbacks = {
	.rand = cb_rand,
	.clc_send = cb_clc_send,
	.established = cb_established,
	.fallback = cb_fallback,
	.readable = cb_readable,
	.writable = cb_writable,
	.peer_closed = cb_peer_closed,
	.tcp_control = cb_tcp_control,
	.aborted = cb_aborted,
	.conn_freed = cb_conn_freed,
	.event = cb_event,
};

/* Transport sinks and timers ------------------------------------------------------------- */

static void on_wc(void *owner, const smcr_wc *wc)
{
	duo_host *h = owner;
	smcr_ctx_on_completion(h->ctx, wc, sim_now(h->d->eng));
	sync_both(h->d);
}

static void on_async(void *owner, smcr_async_event ev, void *qp_ctx)
{
	duo_host *h = owner;
	smcr_ctx_on_async_event(h->ctx, ev, 0, qp_ctx, sim_now(h->d->eng));
	sync_both(h->d);
}

static void on_timer(sim_engine *eng, sim_event *ev)
{
	duo_host *h = ev->ctx;
	smcr_ctx_handle_expiry(h->ctx, sim_now(eng));
	sync_both(h->d);
}

static void host_sync(duo_host *h)
{
	if (h->ctx)
		sim_core_timer_sync(h->d->eng, &h->timer, h->ctx);
}

void duo_sync(duo *d) { sync_both(d); }
uint64_t duo_now(duo *d) { return sim_now(d->eng); }

/* Setup ----------------------------------------------------------------------------------- */

void duo_opts_default(duo_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->seed = 1;
	o->ports[0] = o->ports[1] = 1;
	o->same_pnet = true;
	smcr_settings_default(&o->set[0]);
	smcr_settings_default(&o->set[1]);
	o->v2_gids = true;
}

static void make_port(duo *d, duo_host *h, int i, smcr_port_desc *pd)
{
	memset(pd, 0, sizeof(*pd));
	char name[32];
	snprintf(name, sizeof(name), "roce%d_%d", h->idx, i);
	h->dev[i] = loopback_dev_new(d->lb, name, on_wc, on_async, h);
	pd->dev = h->dev[i];
	pd->port = 1;
	pd->pfid = (uint16_t)(0x10 + i);
	snprintf(pd->name, sizeof(pd->name), "%s", name);
	snprintf(pd->pnet_id, sizeof(pd->pnet_id), "%s", d->opts.same_pnet ? "NET1" : (i ? "NET2" : "NET1"));
	uint8_t mac[6] = { 0x02, 0x00, 0x00, (uint8_t)h->idx, 0x00, (uint8_t)(0x10 + i) };
	memcpy(pd->mac, mac, 6);
	pd->active_mtu = SMCR_MTU_1024;
	pd->state = SMCR_PORT_ACTIVE;
	/* RoCE v1 GID: fe80::<EUI-64 of the MAC> */
	smcr_gid_entry *g = &pd->gids[pd->n_gids++];
	g->gid[0] = 0xfe;
	g->gid[1] = 0x80;
	g->gid[8] = mac[0] ^ 0x02;
	g->gid[9] = mac[1];
	g->gid[10] = mac[2];
	g->gid[11] = 0xff;
	g->gid[12] = 0xfe;
	g->gid[13] = mac[3];
	g->gid[14] = mac[4];
	g->gid[15] = mac[5];
	g->index = 0;
	g->vlan_id = (uint16_t)d->opts.vlan;
	g->type = SMCR_GID_ROCE_V1;
	if (d->opts.v2_gids) {
		smcr_gid_entry *g2 = &pd->gids[pd->n_gids++];
		memset(g2, 0, sizeof(*g2));
		g2->gid[10] = 0xff;
		g2->gid[11] = 0xff;
		g2->gid[12] = 10;
		g2->gid[13] = (uint8_t)(i + 1);
		g2->gid[14] = 0;
		g2->gid[15] = (uint8_t)(h->idx + 1);
		g2->index = 1;
		g2->vlan_id = (uint16_t)d->opts.vlan;
		g2->type = SMCR_GID_ROCE_V2;
	}
}

duo *duo_new(const duo_opts *o)
{
	duo *d = calloc(1, sizeof(*d));
	d->opts = *o;
	d->eng = sim_engine_new(o->seed);
	d->lb = loopback_new(d->eng);
	if (trace_on())
		loopback_set_observer(d->lb, trace_send, d);
	d->tcp_latency = 10000;
	d->kind_tcp = sim_kind("duo.tcp");
	d->kind_timer = sim_kind("duo.timer");
	for (int i = 0; i < 2; i++) {
		duo_host *h = &d->h[i];
		h->d = d;
		h->idx = i;
		sim_engine_rng(d->eng, "duo.host", (uint64_t)i, &h->rng);
		sim_event_init(&h->timer, d->kind_timer, (uint64_t)i, on_timer, h);
		h->set = o->set[i];
		if (!h->set.rmb_size)
			smcr_settings_default(&h->set);
		h->mem.user = h;
		h->mem.malloc = t_malloc;
		h->mem.free = t_free;
		h->mem.calloc = t_calloc;
		if (o->buf_hooks[i]) {
			h->mem.buf_alloc = t_buf_alloc;
			h->mem.buf_free = t_buf_free;
			h->mem.buf_reset = t_buf_reset;
			h->mem.buf_idle = t_buf_idle;
			if (o->buf_write[i])
				h->mem.buf_write = t_buf_write;
		}
		int rc = smcr_ctx_new(&h->ctx, &h->set, &callbacks, h, &loopback_ops, d->lb, &h->mem, 0);
		if (rc) {
			fprintf(stderr, "smcr_ctx_new: %s\n", smcr_strerror(rc));
			abort();
		}
		h->n_ports = o->ports[i] ? o->ports[i] : 1;
		for (int p = 0; p < h->n_ports; p++) {
			smcr_port_desc pd;
			make_port(d, h, p, &pd);
			h->port_idx[p] = smcr_ctx_add_port(h->ctx, &pd, 0);
		}
	}
	return d;
}

void duo_free(duo *d)
{
	for (int i = 0; i < 2; i++) {
		sim_event_cancel(d->eng, &d->h[i].timer);
		smcr_ctx_free(d->h[i].ctx);
		d->h[i].ctx = NULL;
	}
	for (int i = 0; i < d->n_conns; i++) {
		free(d->conns[i].app_rx);
		free(d->conns[i].clc_pending);
	}
	/* Freed cores give back every memory region and QP they made (a leak here is a bug
	 * in the core's teardown, whatever the test was about). */
	loopback_stats st;
	loopback_get_stats(d->lb, &st);
	if (st.mrs_live || st.qps_live) {
		fprintf(stderr, "duo_free: the freed cores left %" PRIu64 " memory regions and %" PRIu64 " QPs\n",
		        st.mrs_live, st.qps_live);
		abort();
	}
	loopback_free(d->lb);
	sim_engine_free(d->eng);
	free(d);
}

void duo_tcp_info(duo *d, int h, smcr_tcp_info *out)
{
	memset(out, 0, sizeof(*out));
	out->peer_smc = true;
	out->family = 4;
	out->local_ipv4 = 0x0a000001u + (uint32_t)h; /* 10.0.0.1 / 10.0.0.2 */
	out->peer_ipv4 = 0x0a000001u + (uint32_t)(1 - h);
	out->vlan_id = d->opts.vlan;
	snprintf(out->pnet_id, sizeof(out->pnet_id), "NET1");
	out->netdev_port = 0;
	out->n_ipv4 = 1;
	out->ipv4[0].addr = out->local_ipv4;
	out->ipv4[0].prefix_len = 24;
}

duo_conn *duo_connect_tcp(duo *d, int client, const smcr_tcp_info *ci, const smcr_tcp_info *si)
{
	if (d->n_conns + 2 > DUO_MAX_CONNS)
		return NULL;
	duo_conn *cc = &d->conns[d->n_conns];
	duo_conn *sc = &d->conns[d->n_conns + 1];
	memset(cc, 0, sizeof(*cc));
	memset(sc, 0, sizeof(*sc));
	cc->index = d->n_conns;
	sc->index = d->n_conns + 1;
	d->n_conns += 2;
	cc->d = sc->d = d;
	cc->host = &d->h[client];
	sc->host = &d->h[1 - client];
	cc->peer = sc;
	sc->peer = cc;
	cc->is_client = true;
	cc->auto_read = sc->auto_read = true;
	cc->pattern_seed = (uint64_t)cc->index * 7919u + 1;
	sc->pattern_seed = (uint64_t)sc->index * 7919u + 1;
	uint64_t now = sim_now(d->eng);
	smcr_conn_accept(sc->host->ctx, si, sc, now, &sc->c);
	smcr_conn_connect(cc->host->ctx, ci, cc, now, &cc->c);
	sync_both(d);
	return cc;
}

duo_conn *duo_connect(duo *d, int client)
{
	smcr_tcp_info ci, si;
	duo_tcp_info(d, client, &ci);
	duo_tcp_info(d, 1 - client, &si);
	return duo_connect_tcp(d, client, &ci, &si);
}

void duo_run(duo *d, uint64_t until)
{
	sync_both(d);
	sim_engine_run(d->eng, until, 0);
}

bool duo_run_until(duo *d, bool (*pred)(void *arg), void *arg, uint64_t limit)
{
	uint64_t end = sim_now(d->eng) + limit;
	sync_both(d);
	while (!pred(arg)) {
		uint64_t next = sim_engine_next_time(d->eng);
		if (next == SIM_TIME_NEVER || next > end)
			return pred(arg);
		sim_engine_run(d->eng, next, 0);
	}
	return true;
}

/* Streaming -------------------------------------------------------------------------------- */

uint8_t duo_pattern_byte(uint64_t seed, uint64_t i)
{
	uint64_t x = (i / 8) * 0x9E3779B97F4A7C15ull + seed * 0xBF58476D1CE4E5B9ull;
	x ^= x >> 31;
	x *= 0x94D049BB133111EBull;
	x ^= x >> 29;
	return (uint8_t)(x >> (8 * (i % 8)));
}

/* In-place writing and reading: the pattern from a stream offset, span by span. */
typedef struct duo_span {
	duo_conn *c;
	uint64_t seed, off;
	uint32_t spans;
} duo_span;

static void duo_fill(void *ctx, uint8_t *dst, size_t len)
{
	duo_span *s = ctx;
	for (size_t i = 0; i < len; i++)
		dst[i] = duo_pattern_byte(s->seed, s->off + i);
	s->off += len;
	s->spans++;
}

static void duo_check(void *ctx, const uint8_t *src, size_t len)
{
	duo_span *s = ctx;
	for (size_t i = 0; i < len; i++) {
		if (src[i] != duo_pattern_byte(s->seed, s->off + i) && !s->c->rx_bad) {
			s->c->rx_bad = true;
			s->c->rx_bad_at = s->off + i;
		}
	}
	s->off += len;
	s->spans++;
}

void duo_pump(duo_conn *c)
{
	if (!c->c || !c->established || c->tx_done >= c->tx_total || c->closed_by_app)
		return;
	uint8_t buf[16384];
	for (;;) {
		uint64_t left = c->tx_total - c->tx_done;
		if (!left)
			break;
		size_t n = left < sizeof(buf) ? (size_t)left : sizeof(buf);
		if (c->tx_chunk && n > c->tx_chunk)
			n = c->tx_chunk;
		ssize_t w;
		if (c->in_place) {
			duo_span s = { .c = c, .seed = c->pattern_seed, .off = c->tx_done };
			w = smcr_conn_send_fill(c->c, n, 0, sim_now(c->d->eng), duo_fill, &s);
			if (w > 0 && (ssize_t)(s.off - c->tx_done) != w)
				c->in_place_bad++; /* fill wrote other than what was accepted */
			c->in_place_spans += s.spans;
		} else {
			for (size_t i = 0; i < n; i++)
				buf[i] = duo_pattern_byte(c->pattern_seed, c->tx_done + i);
			w = smcr_conn_send(c->c, buf, n, 0, sim_now(c->d->eng));
		}
		if (w <= 0)
			break;
		c->tx_done += (uint64_t)w;
	}
	if (c->close_when_done && c->tx_done >= c->tx_total && c->c) {
		c->closed_by_app = true;
		smcr_conn_close(c->c, sim_now(c->d->eng));
	}
}

void duo_read_all(duo_conn *c)
{
	if (!c->c)
		return;
	duo_conn *p = c->peer;
	uint8_t buf[16384];
	for (;;) {
		if (c->in_place) {
			duo_span s = { .c = c, .seed = p->pattern_seed, .off = c->rx_done };
			ssize_t n = smcr_conn_recv_visit(c->c, sizeof(buf), 0, sim_now(c->d->eng), duo_check, &s);
			if (n <= 0)
				break;
			if ((ssize_t)(s.off - c->rx_done) != n)
				c->in_place_bad++; /* visit saw other than what was read */
			c->in_place_spans += s.spans;
			c->rx_done += (uint64_t)n;
			continue;
		}
		ssize_t n = smcr_conn_recv(c->c, buf, sizeof(buf), 0, sim_now(c->d->eng));
		if (n <= 0)
			break;
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] != duo_pattern_byte(p->pattern_seed, c->rx_done + (uint64_t)i) && !c->rx_bad) {
				c->rx_bad = true;
				c->rx_bad_at = c->rx_done + (uint64_t)i;
			}
		}
		c->rx_done += (uint64_t)n;
	}
}

void duo_stream(duo_conn *from, uint64_t bytes)
{
	from->tx_total += bytes;
	from->peer->rx_total += bytes;
	duo_pump(from);
	sync_both(from->d);
}

bool duo_stream_done(duo_conn *from)
{
	return from->tx_done >= from->tx_total && from->peer->rx_done >= from->peer->rx_total;
}

/* Events and introspection ---------------------------------------------------------------- */

int duo_count(const duo *d, int host, smcr_event_type type)
{
	int n = 0;
	for (int i = 0; i < d->n_ev; i++)
		if (d->ev[i].type == type && (host < 0 || d->ev[i].host == host))
			n++;
	return n;
}

const duo_event_rec *duo_find(const duo *d, int host, smcr_event_type type, int nth)
{
	for (int i = 0; i < d->n_ev; i++)
		if (d->ev[i].type == type && (host < 0 || d->ev[i].host == host) && nth-- == 0)
			return &d->ev[i];
	return NULL;
}

static void count_lgr(void *arg, const smcr_lgr_info *i)
{
	(void)i;
	(*(int *)arg)++;
}

int duo_lgr_count(duo *d, int host)
{
	int n = 0;
	smcr_ctx_foreach_lgr(d->h[host].ctx, count_lgr, &n);
	return n;
}

typedef struct link_q {
	int state;
	int want_nth, seen;
	smcr_link_info out;
	bool found;
	int count;
} link_q;

static void link_cb(void *arg, const smcr_link_info *i)
{
	link_q *q = arg;
	if (q->state >= 0 && (int)i->state != q->state)
		return;
	q->count++;
	if (!q->found && q->seen++ == q->want_nth) {
		q->out = *i;
		q->found = true;
	}
}

int duo_link_count(duo *d, int host, smcr_link_state state)
{
	link_q q = { .state = (int)state, .want_nth = -1 };
	smcr_ctx_foreach_link(d->h[host].ctx, link_cb, &q);
	return q.count;
}

bool duo_link_nth(duo *d, int host, int nth, smcr_link_info *out)
{
	link_q q = { .state = -1, .want_nth = nth };
	smcr_ctx_foreach_link(d->h[host].ctx, link_cb, &q);
	if (q.found)
		*out = q.out;
	return q.found;
}

bool duo_first_link(duo *d, int host, smcr_link_info *out) { return duo_link_nth(d, host, 0, out); }
