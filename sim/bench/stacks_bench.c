/* Many TCP/IP stack pairs in one run (see stacks_bench.h). */
#include "sim/bench/stacks_bench.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "sim/app/app.h"
#include "sim/bench/bench_cable.h"
#include "sim/engine/bench_measure.h"
#include "sim/engine/engine.h"
#include "sim/net/stack.h"

typedef struct pair {
	stack *cli, *srv;
	bench_cable link;
	app_spec spec;
	app_listener *resp;
	app_flow *rr;
} pair;

typedef struct bulk_pair {
	stack *cli, *srv;
	bench_cable link;
	app_spec spec;
	app_listener *sink;
	app_flow *snd;
} bulk_pair;

/* Two stacks 10.0.0.1 and 10.0.0.2 on one cable. */
static void join(sim_engine *eng, stack *a, stack *b, bench_cable *link, sim_time latency, uint64_t *frames)
{
	netif *na = stack_add_netif(a, "eth0", NULL, 1500, 0);
	netif *nb = stack_add_netif(b, "eth0", NULL, 1500, 0);
	netif_set_ipv4(na, IPV4(10, 0, 0, 1), 24);
	netif_set_ipv4(nb, IPV4(10, 0, 0, 2), 24);
	bench_cable_join(link, eng, na, nb, latency, frames);
}

static void pair_start(pair *p, sim_engine *eng, const stacks_bench_config *c, uint64_t i, uint64_t *frames)
{
	char name[32];
	snprintf(name, sizeof name, "c%" PRIu64, i);
	p->cli = stack_new(eng, name, STACK_LINUX, NULL);
	snprintf(name, sizeof name, "s%" PRIu64, i);
	p->srv = stack_new(eng, name, STACK_ZOS, NULL);
	join(eng, p->cli, p->srv, &p->link, 10 * SIM_US, frames);
	int err;
	p->spec = (app_spec){ .kind = APP_RR, .request = c->size, .response = c->size,
	                      .count = c->requests, .close_after = true };
	p->resp = app_serve(p->srv, NULL, 7, APP_RESPONDER, &p->spec, i, &err);
	p->rr = app_connect(p->cli, NULL, IPV4(10, 0, 0, 2), 7, &p->spec, i, &err);
}

/* Whether the pair's transactions all completed intact; frees it. */
static bool pair_finish(pair *p)
{
	bool ok = p->rr && app_end_done(&p->rr->c) && !app_serve_stats_get(p->resp).mismatches;
	app_connect_free(p->rr);
	app_listener_close(p->resp);
	stack_free(p->cli);
	stack_free(p->srv);
	return ok;
}

static void bulk_start(bulk_pair *b, sim_engine *eng, uint64_t mib, uint64_t *frames)
{
	b->cli = stack_new(eng, "bulk-c", STACK_LINUX, NULL);
	b->srv = stack_new(eng, "bulk-s", STACK_LINUX, NULL);
	join(eng, b->cli, b->srv, &b->link, 50 * SIM_US, frames);
	int err;
	b->spec = (app_spec){ .kind = APP_BULK, .bytes = mib << 20, .close_after = true };
	b->sink = app_serve(b->srv, NULL, 9, APP_SINK, NULL, 1, &err);
	b->snd = app_connect(b->cli, NULL, IPV4(10, 0, 0, 2), 9, &b->spec, 1, &err);
}

/* The bytes the sink received when the transfer completed intact, else 0; frees it. */
static uint64_t bulk_finish(bulk_pair *b)
{
	app_serve_stats k = app_serve_stats_get(b->sink);
	uint64_t bytes = b->snd && app_end_done(&b->snd->c) && !k.mismatches ? k.verified : 0;
	app_connect_free(b->snd);
	app_listener_close(b->sink);
	stack_free(b->cli);
	stack_free(b->srv);
	return bytes;
}

static int run_once(const stacks_bench_config *c, stacks_bench_result *o)
{
	sim_engine *eng = sim_engine_new(c->seed);
	pair *p = calloc(c->pairs, sizeof *p);
	if (!p) {
		sim_engine_free(eng);
		return 1;
	}
	uint64_t frames = 0;
	bulk_pair bulk;
	double t0 = bench_wall_seconds();
	for (uint64_t i = 0; i < c->pairs; i++)
		pair_start(&p[i], eng, c, i, &frames);
	if (c->bulk_mib)
		bulk_start(&bulk, eng, c->bulk_mib, &frames);
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
	o->wall = bench_wall_seconds() - t0;
	o->events = sim_engine_events_run(eng);
	o->frames = frames;
	o->fingerprint = sim_engine_fingerprint(eng);
	o->rss = bench_peak_rss();
	o->verified = 0;
	for (uint64_t i = 0; i < c->pairs; i++)
		o->verified += pair_finish(&p[i]);
	o->bulk_bytes = c->bulk_mib ? bulk_finish(&bulk) : 0;
	free(p);
	sim_engine_free(eng);
	return 0;
}

int stacks_bench_run(const stacks_bench_config *c, stacks_bench_result *r, char *err, size_t errlen)
{
	stacks_bench_result o;
	*r = (stacks_bench_result){ 0 };
	for (uint64_t k = 0; k < c->repeat; k++) {
		if (run_once(c, &o)) {
			snprintf(err, errlen, "out of memory for %" PRIu64 " stack pairs", c->pairs);
			return 1;
		}
		if (k && o.fingerprint != r->fingerprint) {
			snprintf(err, errlen, "fingerprint differs between runs (determinism bug)");
			return 1;
		}
		if (!k || o.wall < r->wall)
			*r = o;
	}
	r->stacks = c->pairs * 2 + (c->bulk_mib ? 2 : 0);
	return 0;
}
