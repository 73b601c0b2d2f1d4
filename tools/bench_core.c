/* bench core: two SMC-R cores (model/) over the in-memory RC loopback on the event engine
 * (sim/rdma/loopback_transport.h, 1 us per message, no serialisation time): one link
 * group, N connections streaming from one stack to the other. Prints protocol events per
 * wall second (completions, timer expiries and socket calls that enter a core) and payload
 * bytes per wall second. */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/smcr.h"
#include "sim/smc/core_timer.h"
#include "sim/engine/engine.h"
#include "sim/rdma/loopback_transport.h"
#include "tools/bench.h"
#include "tools/cli.h"

typedef struct bench_world bench_world;

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
	loopback *lb;
	smcr_tp_dev *dev[2];
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

/* The two stacks ---------------------------------------------------------------------- */

static void host_wc(void *owner, const smcr_wc *wc)
{
	bench_host *h = owner;
	h->w->core_calls++;
	smcr_ctx_on_completion(h->ctx, wc, sim_now(h->w->eng));
	host_sync(&h->w->h[0]);
	host_sync(&h->w->h[1]);
}

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
	w->lb = loopback_new(w->eng);
	loopback_set_latency(w->lb, 1000);
	loopback_set_ns_per_kib(w->lb, 0);
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
		w->dev[i] = loopback_dev_new(w->lb, i ? "lb1" : "lb0", host_wc, NULL, h);
		sim_engine_rng(w->eng, "bench.host", (uint64_t)i, &h->rng);
		sim_event_init(&h->timer, sim_kind("bench.timer"), (uint64_t)i, on_timer, h);
		if (smcr_ctx_new(&h->ctx, &set, &bench_cb, h, &loopback_ops, w->lb, NULL, 0)) {
			fprintf(stderr, "%s: cannot create the core\n", argv[0]);
			return 1;
		}
		smcr_port_desc pd;
		port_for(i, &pd, w->dev[i]);
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
	loopback_free(w->lb);
	sim_engine_free(w->eng);
	free(w->pattern);
	free(w->prefix);
	free(w->scratch);
	free(w->conns);
	free(w);
	return rc;
}
