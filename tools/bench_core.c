/* bench core: two SMC-R cores (model/) over a lean in-memory RC loopback on the event
 * engine: one link group, N connections streaming from one stack to the other. Prints
 * protocol events per wall second (completions, timer expiries and socket calls that enter
 * a core) and payload bytes per wall second. The loopback copies RDMA WRITE data once,
 * from the sender's send buffer straight into the peer RMB, as an RNIC would. */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/smcr.h"
#include "sim/smc/core_timer.h"
#include "sim/engine/engine.h"
#include "tools/bench.h"
#include "tools/cli.h"

/* Loopback transport ------------------------------------------------------------------- */

#define LB_MAX_MR 2048
#define LB_MAX_QP 16
#define LB_KEY_BASE 0x1000u

struct smcr_tp_dev {
	int host;
};
struct smcr_tp_mr {
	int idx;
};
struct smcr_tp_qp {
	int idx;
};

typedef struct lb_wr {
	smcr_send_wr wr;
} lb_wr;

typedef struct lb_qp {
	struct smcr_tp_qp h;
	int host;
	void *qp_ctx;
	uint32_t qpn, dest_qpn;
	smcr_qp_state state;
	smcr_recv_wr *rq;
	uint32_t rq_cap, rq_head, rq_len;
	lb_wr *sq;
	uint32_t sq_cap, sq_head, sq_len;
	bool scheduled;
} lb_qp;

typedef struct lb_mr {
	struct smcr_tp_mr h;
	bool live;
	uint8_t *addr;
	size_t len;
	smcr_mr_info info;
} lb_mr;

typedef struct bench_world bench_world;

typedef struct lb {
	sim_engine *eng;
	bench_world *w;
	struct smcr_tp_dev dev[2];
	lb_mr mr[LB_MAX_MR];
	int n_mr;
	lb_qp qp[LB_MAX_QP];
	int n_qp;
	uint32_t kind_run, kind_wc;
	uint64_t latency;
} lb;

typedef struct bench_host {
	smcr_ctx *ctx;
	sim_rng rng;
	sim_event timer;
	bench_world *w;
	int idx;
} bench_host;

typedef struct bench_conn {
	smcr_conn *c;
	bench_world *w;
	bool client;
	bool up;
	uint64_t to_send, sent, received;
	uint64_t sum_tx, sum_rx; /* byte sums: what was sent arrives */
} bench_conn;

struct bench_world {
	sim_engine *eng;
	lb t;
	bench_host h[2];
	bench_conn *conns;
	int n;
	uint8_t *pattern;
	uint64_t *prefix; /* prefix[n] = sum of pattern[0..n) */
	uint8_t *scratch;
	size_t chunk;
	uint64_t core_calls;
	int established;
	bool go; /* data phase started */
	bool verify;
	bool failed;
};

static void host_sync(bench_host *h);

static smcr_tp_mr *lb_reg_mr(void *tp, smcr_tp_dev *dev, void *addr, size_t len, uint32_t access,
                             smcr_mr_info *out)
{
	lb *t = tp;
	(void)dev;
	(void)access;
	int i;
	for (i = 0; i < t->n_mr; i++)
		if (!t->mr[i].live)
			break;
	if (i == t->n_mr) {
		if (t->n_mr == LB_MAX_MR)
			return NULL;
		t->n_mr++;
	}
	lb_mr *m = &t->mr[i];
	m->live = true;
	m->h.idx = i;
	m->addr = addr;
	m->len = len;
	m->info.lkey = LB_KEY_BASE + (uint32_t)i * 2;
	m->info.rkey = LB_KEY_BASE + (uint32_t)i * 2 + 1;
	m->info.iova = 0x100000000000ull + ((uint64_t)i << 32);
	*out = m->info;
	return &m->h;
}

static void lb_dereg_mr(void *tp, smcr_tp_mr *mr) { ((lb *)tp)->mr[mr->idx].live = false; }

static smcr_tp_qp *lb_create_qp(void *tp, smcr_tp_dev *dev, uint8_t port, const smcr_qp_caps *caps,
                                void *qp_ctx, uint32_t *qpn)
{
	lb *t = tp;
	(void)port;
	if (t->n_qp == LB_MAX_QP)
		return NULL;
	lb_qp *q = &t->qp[t->n_qp];
	memset(q, 0, sizeof(*q));
	q->h.idx = t->n_qp++;
	q->host = dev->host;
	q->qp_ctx = qp_ctx;
	q->qpn = 0x200u + (uint32_t)q->h.idx;
	q->rq_cap = caps->max_recv_wr;
	q->rq = calloc(q->rq_cap, sizeof(*q->rq));
	q->sq_cap = caps->max_send_wr + 8;
	q->sq = calloc(q->sq_cap, sizeof(*q->sq));
	*qpn = q->qpn;
	return &q->h;
}

static int lb_modify_qp(void *tp, smcr_tp_qp *h, const smcr_qp_attr *a)
{
	lb_qp *q = &((lb *)tp)->qp[h->idx];
	if (a->state == SMCR_QPS_RTR)
		q->dest_qpn = a->dest_qpn;
	if (a->state == SMCR_QPS_RESET)
		q->sq_len = q->rq_len = 0;
	q->state = a->state;
	return 0;
}

static smcr_qp_state lb_query(void *tp, smcr_tp_qp *h) { return ((lb *)tp)->qp[h->idx].state; }

static void lb_destroy_qp(void *tp, smcr_tp_qp *h)
{
	lb_qp *q = &((lb *)tp)->qp[h->idx];
	q->state = SMCR_QPS_RESET;
	q->sq_len = q->rq_len = 0;
	q->qpn = 0;
}

static void lb_run(sim_engine *eng, sim_event *ev);

static int lb_post_send(void *tp, smcr_tp_qp *h, const smcr_send_wr *wr)
{
	lb *t = tp;
	lb_qp *q = &t->qp[h->idx];
	if (q->state != SMCR_QPS_RTS || q->sq_len == q->sq_cap)
		return -1;
	q->sq[(q->sq_head + q->sq_len) % q->sq_cap].wr = *wr;
	q->sq_len++;
	if (!q->scheduled) {
		q->scheduled = true;
		sim_post(t->eng, sim_now(t->eng) + t->latency, t->kind_run, q->qpn, lb_run, t, (uint64_t)h->idx);
	}
	return 0;
}

static int lb_post_recv(void *tp, smcr_tp_qp *h, const smcr_recv_wr *wr)
{
	lb_qp *q = &((lb *)tp)->qp[h->idx];
	if (q->rq_len == q->rq_cap)
		return -1;
	q->rq[(q->rq_head + q->rq_len) % q->rq_cap] = *wr;
	q->rq_len++;
	return 0;
}

static const smcr_transport_ops lb_ops = {
	.reg_mr = lb_reg_mr,
	.dereg_mr = lb_dereg_mr,
	.create_qp = lb_create_qp,
	.modify_qp = lb_modify_qp,
	.query_qp_state = lb_query,
	.destroy_qp = lb_destroy_qp,
	.post_send = lb_post_send,
	.post_recv = lb_post_recv,
};

static void deliver_wc(bench_world *w, int host, const smcr_wc *wc)
{
	w->core_calls++;
	smcr_ctx_on_completion(w->h[host].ctx, wc, sim_now(w->eng));
}

/* Execute everything queued on one QP: WRITEs land in the peer RMB, SENDs in its receive
 * buffers; completions go to the cores at once (the peer's first). */
static void lb_run(sim_engine *eng, sim_event *ev)
{
	lb *t = ev->ctx;
	bench_world *w = t->w;
	lb_qp *q = &t->qp[ev->arg];
	q->scheduled = false;
	lb_qp *d = NULL;
	for (int i = 0; i < t->n_qp; i++)
		if (t->qp[i].qpn == q->dest_qpn && t->qp[i].qpn)
			d = &t->qp[i];
	while (q->sq_len && d) {
		smcr_send_wr wr = q->sq[q->sq_head].wr;
		q->sq_head = (q->sq_head + 1) % q->sq_cap;
		q->sq_len--;
		if (wr.opcode == SMCR_WR_RDMA_WRITE) {
			lb_mr *m = &t->mr[(wr.rkey - LB_KEY_BASE) / 2];
			uint8_t *dst = m->addr + (wr.remote_addr - m->info.iova);
			for (uint32_t i = 0; i < wr.num_sge; i++) {
				memcpy(dst, wr.sg_list[i].addr, wr.sg_list[i].length);
				dst += wr.sg_list[i].length;
			}
			continue;
		}
		if (!d->rq_len)
			break;
		smcr_recv_wr *r = &d->rq[d->rq_head];
		d->rq_head = (d->rq_head + 1) % d->rq_cap;
		d->rq_len--;
		uint32_t len = wr.sg_list[0].length;
		memcpy(r->sg_list[0].addr, wr.sg_list[0].addr, len);
		smcr_wc rwc = { .wr_id = r->wr_id, .qp_ctx = d->qp_ctx, .status = SMCR_WC_SUCCESS,
		                .opcode = SMCR_WC_RECV, .byte_len = len, .qp_num = d->qpn, .solicited = 1 };
		smcr_wc swc = { .wr_id = wr.wr_id, .qp_ctx = q->qp_ctx, .status = SMCR_WC_SUCCESS,
		                .opcode = SMCR_WC_SEND, .qp_num = q->qpn };
		deliver_wc(w, d->host, &rwc);
		if (wr.send_flags & SMCR_SEND_SIGNALED)
			deliver_wc(w, q->host, &swc);
	}
	if (q->sq_len && !q->scheduled) {
		q->scheduled = true;
		sim_post(eng, sim_now(eng) + t->latency, t->kind_run, q->qpn, lb_run, t, ev->arg);
	}
	host_sync(&w->h[0]);
	host_sync(&w->h[1]);
}

/* The two stacks ---------------------------------------------------------------------- */

static void cb_rand(void *user, uint8_t *dst, size_t len) { sim_rng_bytes(&((bench_host *)user)->rng, dst, len); }

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
	host_sync(&w->h[0]);
	host_sync(&w->h[1]);
}

static int cb_clc_send(void *user, smcr_conn *conn, const uint8_t *buf, size_t len)
{
	bench_host *h = user;
	bench_conn *bc = smcr_conn_user(conn);
	bench_world *w = h->w;
	int i = (int)(bc - w->conns);
	bench_conn *to = &w->conns[i ^ 1];
	pipe_seg *s = malloc(sizeof(*s) + len);
	s->w = w;
	s->to = to;
	s->len = len;
	memcpy(s->data, buf, len);
	sim_post(w->eng, sim_now(w->eng) + 10000, 0, (uint64_t)i, pipe_deliver, s, 0);
	return 0;
}

static void pump(bench_conn *bc)
{
	bench_world *w = bc->w;
	if (!w->go)
		return;
	while (bc->sent < bc->to_send) {
		uint64_t left = bc->to_send - bc->sent;
		size_t n = left < w->chunk ? (size_t)left : w->chunk;
		w->core_calls++;
		ssize_t r = smcr_conn_send(bc->c, w->pattern, n, 0, sim_now(w->eng));
		if (r <= 0)
			break;
		bc->sent += (uint64_t)r;
		bc->sum_tx += w->prefix[r];
	}
}

static void drain(bench_conn *bc)
{
	bench_world *w = bc->w;
	for (;;) {
		w->core_calls++;
		ssize_t r = smcr_conn_recv(bc->c, w->scratch, w->chunk, 0, sim_now(w->eng));
		if (r <= 0)
			break;
		bc->received += (uint64_t)r;
		if (w->verify) {
			uint64_t sum = 0;
			for (ssize_t i = 0; i < r; i++)
				sum += w->scratch[i];
			bc->sum_rx += sum;
		}
	}
}

static void cb_established(void *user, smcr_conn *conn)
{
	bench_host *h = user;
	bench_conn *bc = smcr_conn_user(conn);
	bc->up = true;
	h->w->established++;
	pump(bc);
}

static void cb_fallback(void *user, smcr_conn *conn, uint32_t reason, uint32_t diag, const uint8_t *d,
                        size_t n)
{
	bench_host *h = user;
	(void)conn;
	(void)d;
	(void)n;
	fprintf(stderr, "bench core: a connection fell back (reason 0x%08x, peer 0x%08x)\n", reason, diag);
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

static void on_timer(sim_engine *eng, sim_event *ev)
{
	bench_host *h = ev->ctx;
	h->w->core_calls++;
	smcr_ctx_handle_expiry(h->ctx, sim_now(eng));
	host_sync(&h->w->h[0]);
	host_sync(&h->w->h[1]);
}

static void host_sync(bench_host *h) { sim_core_timer_sync(h->w->eng, &h->timer, h->ctx); }

static const smcr_callbacks bench_cb = {
	.rand = cb_rand,
	.clc_send = cb_clc_send,
	.established = cb_established,
	.fallback = cb_fallback,
	.readable = cb_readable,
	.writable = cb_writable,
};

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

int bench_core(int argc, char **argv)
{
	gint64 conns = 64, mib = 16, bufkib = 64, chunk = 65536, seed = 1;
	gboolean verify = FALSE;
	GOptionEntry entries[] = {
		{ "conns", 'c', 0, G_OPTION_ARG_INT64, &conns, "connections streaming (64)", "N" },
		{ "mib", 'm', 0, G_OPTION_ARG_INT64, &mib, "MiB each connection sends (16)", "N" },
		{ "buffer", 'b', 0, G_OPTION_ARG_INT64, &bufkib, "RMB and send buffer size in KiB (64)", "KIB" },
		{ "chunk", 'k', 0, G_OPTION_ARG_INT64, &chunk, "bytes per send/recv call (65536)", "N" },
		{ "seed", 's', 0, G_OPTION_ARG_INT64, &seed, "random seed (1)", "N" },
		{ "verify", 'v', 0, G_OPTION_ARG_NONE, &verify, "check the content (byte sums; slows the run down)", NULL },
		{ NULL },
	};
	cli_options opts = { .params = "- SMC-R protocol core throughput", .entries = entries };
	if (cli_parse_options(&opts, &argc, &argv))
		return 2;
	if (argc > 1 || conns < 1 || conns > 250 || mib < 1 || bufkib < 16 || chunk < 1) {
		fprintf(stderr, "%s: need 1 <= conns <= 250, mib >= 1, buffer >= 16, chunk >= 1\n", argv[0]);
		return 2;
	}
	bench_world *w = calloc(1, sizeof(*w));
	w->eng = sim_engine_new((uint64_t)seed);
	w->t.eng = w->eng;
	w->t.w = w;
	w->t.kind_run = sim_kind("bench.qp");
	w->t.latency = 1000;
	w->n = (int)conns * 2;
	w->conns = calloc((size_t)w->n, sizeof(*w->conns));
	w->chunk = (size_t)chunk;
	w->verify = verify;
	w->pattern = malloc(w->chunk);
	w->scratch = malloc(w->chunk);
	w->prefix = malloc((w->chunk + 1) * sizeof(*w->prefix));
	w->prefix[0] = 0;
	for (size_t i = 0; i < w->chunk; i++) {
		w->pattern[i] = (uint8_t)(i * 31 + 7);
		w->prefix[i + 1] = w->prefix[i] + w->pattern[i];
	}
	smcr_settings set;
	smcr_settings_default(&set);
	set.rmb_size = set.sndbuf_size = (uint32_t)bufkib * 1024;
	set.max_links = 1; /* one link, one lgr */
	for (int i = 0; i < 2; i++) {
		bench_host *h = &w->h[i];
		h->w = w;
		h->idx = i;
		w->t.dev[i].host = i;
		sim_engine_rng(w->eng, "bench.host", (uint64_t)i, &h->rng);
		sim_event_init(&h->timer, sim_kind("bench.timer"), (uint64_t)i, on_timer, h);
		if (smcr_ctx_new(&h->ctx, &set, &bench_cb, h, &lb_ops, &w->t, NULL, 0)) {
			fprintf(stderr, "%s: cannot create the core\n", argv[0]);
			return 1;
		}
		smcr_port_desc pd;
		port_for(i, &pd, &w->t.dev[i]);
		smcr_ctx_add_port(h->ctx, &pd, 0);
	}
	uint64_t total = (uint64_t)conns * (uint64_t)mib << 20;
	for (int i = 0; i < w->n; i += 2) {
		bench_conn *cc = &w->conns[i], *sc = &w->conns[i + 1];
		cc->w = sc->w = w;
		cc->client = true;
		cc->to_send = (uint64_t)mib << 20;
		smcr_tcp_info ci, si;
		tcp_for(0, &ci, (uint32_t)bufkib * 1024);
		tcp_for(1, &si, (uint32_t)bufkib * 1024);
		smcr_conn_accept(w->h[1].ctx, &si, sc, sim_now(w->eng), &sc->c);
		smcr_conn_connect(w->h[0].ctx, &ci, cc, sim_now(w->eng), &cc->c);
		host_sync(&w->h[0]);
		host_sync(&w->h[1]);
		/* serialise the handshakes like a client that connects one by one */
		while (w->established < i + 2 && sim_engine_next_time(w->eng) != SIM_TIME_NEVER)
			sim_engine_run(w->eng, sim_engine_next_time(w->eng), 0);
	}
	if (w->failed) {
		fprintf(stderr, "%s: the handshakes did not all succeed\n", argv[0]);
		return 1;
	}
	uint64_t calls0 = w->core_calls, ev0 = sim_engine_events_run(w->eng);
	double t0 = bench_wall_seconds();
	uint64_t sim0 = sim_now(w->eng);
	w->go = true;
	for (int i = 0; i < w->n; i += 2)
		pump(&w->conns[i]);
	host_sync(&w->h[0]);
	host_sync(&w->h[1]);
	uint64_t got = 0;
	while (sim_engine_next_time(w->eng) != SIM_TIME_NEVER) {
		sim_engine_run(w->eng, sim_engine_next_time(w->eng), 0);
		got = 0;
		for (int i = 1; i < w->n; i += 2)
			got += w->conns[i].received;
		if (got >= total)
			break;
	}
	double dt = bench_wall_seconds() - t0;
	uint64_t calls = w->core_calls - calls0, events = sim_engine_events_run(w->eng) - ev0;
	smcr_stats st;
	smcr_ctx_get_stats(w->h[0].ctx, &st);
	printf("bench core: %" G_GINT64_FORMAT " connections x %" G_GINT64_FORMAT " MiB, buffers %" G_GINT64_FORMAT " KiB, 1 link group\n",
	       conns, mib, bufkib);
	printf("  payload delivered:      %.1f MiB of %.1f MiB in %.3f s wall (%.3f ms simulated)\n",
	       (double)got / 1048576.0, (double)total / 1048576.0, dt, (double)(sim_now(w->eng) - sim0) / 1e6);
	printf("  payload bytes/s:        %.2f GB/s\n", (double)got / dt / 1e9);
	printf("  protocol events/s:      %.2f M (core entries: completions, timers, socket calls)\n",
	       (double)calls / dt / 1e6);
	printf("  engine events/s:        %.2f M\n", (double)events / dt / 1e6);
	printf("  link groups:            %d\n", 1);
	printf("  peak RSS (process):     %.1f MiB\n", (double)bench_peak_rss() / (1024.0 * 1024.0));
	printf("  targets: >= 2 M protocol events/s, >= 2 GB/s\n");
	int rc = got >= total ? 0 : 1;
	if (rc)
		fprintf(stderr, "%s: transfer did not complete\n", argv[0]);
	for (int i = 0; verify && i < w->n; i += 2) {
		if (w->conns[i].sum_tx != w->conns[i + 1].sum_rx) {
			fprintf(stderr, "%s: connection %d: byte sums differ\n", argv[0], i / 2);
			rc = 1;
		}
	}
	if (verify)
		printf("  content check:          %s\n", rc ? "FAILED" : "byte sums match on every connection");
	for (int i = 0; i < 2; i++) {
		sim_event_cancel(w->eng, &w->h[i].timer);
		smcr_ctx_free(w->h[i].ctx);
	}
	for (int i = 0; i < w->t.n_qp; i++) {
		free(w->t.qp[i].rq);
		free(w->t.qp[i].sq);
	}
	sim_engine_free(w->eng);
	free(w->pattern);
	free(w->prefix);
	free(w->scratch);
	free(w->conns);
	free(w);
	return rc;
}
