/* Two TCP/IP stacks on one wire: bulk or request/response (see tcp_bench.h). */
#include "sim/bench/tcp_bench.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "sim/app/app.h"
#include "sim/engine/bench_measure.h"
#include "sim/engine/engine.h"
#include "sim/fabric/fabric.h"
#include "sim/fabric/wire.h"
#include "sim/net/netif_fabric.h"
#include "sim/net/stack.h"

#define TCP_BENCH_PORT 5001

typedef struct testbed {
	sim_engine *eng;
	sim_fabric *fab;
	sim_wire *wire;
	stack *cli, *srv;
	netif_fabric_port port[2];
	unsigned attached; /* ports attached so far */
} testbed;

/* Client 10.0.0.1 and server 10.0.0.2, one wire between them; 0 or -1. */
static int testbed_build(testbed *t, const tcp_bench_config *c)
{
	t->eng = sim_engine_new(c->seed);
	t->fab = sim_fabric_new(t->eng);
	sim_wire_params wp;
	sim_wire_params_default(&wp);
	wp.latency = c->latency_ns;
	wp.bandwidth_bps = c->rate_bps;
	wp.mtu = c->mtu;
	t->wire = sim_wire_new(t->fab, "cli-srv", &wp);
	t->cli = stack_new(t->eng, "cli", STACK_LINUX, NULL);
	t->srv = stack_new(t->eng, "srv", STACK_LINUX, NULL);
	stack *st[2] = { t->cli, t->srv };
	for (unsigned i = 0; i < 2; i++) {
		netif *n = st[i] ? stack_add_netif(st[i], "eth0", NULL, c->mtu, 0) : NULL;
		if (!n || netif_set_ipv4(n, IPV4(10, 0, 0, 1 + i), 24) ||
		    netif_fabric_attach(&t->port[i], n, t->fab, sim_wire_end(t->wire, i)))
			return -1;
		t->attached++;
	}
	return 0;
}

static void testbed_free(testbed *t)
{
	for (unsigned i = 0; i < t->attached; i++)
		netif_fabric_detach(&t->port[i]);
	if (t->cli)
		stack_free(t->cli);
	if (t->srv)
		stack_free(t->srv);
	sim_fabric_free(t->fab);
	sim_engine_free(t->eng);
}

/* Runs the engine dry and takes the common figures. */
static void run_and_measure(testbed *t, tcp_bench_result *o)
{
	double t0 = bench_wall_seconds(), c0 = bench_cpu_seconds();
	sim_engine_run(t->eng, SIM_TIME_NEVER, 0);
	o->wall = bench_wall_seconds() - t0;
	o->cpu = bench_cpu_seconds() - c0;
	o->events = sim_engine_events_run(t->eng);
	o->fingerprint = sim_engine_fingerprint(t->eng);
	o->virtual_ns = sim_now(t->eng);
	o->frames = sim_wire_stats_get(t->wire, 0)->delivered + sim_wire_stats_get(t->wire, 1)->delivered;
}

static int run_bulk(testbed *t, const tcp_bench_config *c, tcp_bench_result *o)
{
	int err = 0;
	app_spec spec = { .kind = APP_BULK, .bytes = c->bytes, .close_after = true };
	app_listener *sink = app_serve(t->srv, NULL, TCP_BENCH_PORT, APP_SINK, NULL, c->seed, &err);
	app_flow *snd = sink ? app_connect(t->cli, NULL, IPV4(10, 0, 0, 2), TCP_BENCH_PORT, &spec, c->seed, &err) : NULL;
	if (snd)
		run_and_measure(t, o);
	if (snd) {
		app_serve_stats k = app_serve_stats_get(sink);
		const app_end *ss = &snd->c;
		bool done = app_end_done(ss);
		o->ok = done && !k.mismatches && k.verified == c->bytes;
		o->transfer_ns = done ? ss->t_ended - ss->t_connected : 0;
		o->bytes = o->ok ? k.verified : 0;
		app_connect_free(snd);
	}
	if (sink)
		app_listener_close(sink);
	return snd ? 0 : -1;
}

static int run_rr(testbed *t, const tcp_bench_config *c, tcp_bench_result *o)
{
	int err = 0;
	app_spec spec = { .kind = APP_RR, .request = c->size, .response = c->size, .count = c->count, .close_after = true };
	app_flow **rr = calloc(c->conns, sizeof *rr);
	app_listener *echo = rr ? app_serve(t->srv, NULL, TCP_BENCH_PORT, APP_RESPONDER, &spec, c->seed, &err) : NULL;
	uint64_t started = 0;
	while (echo && started < c->conns) {
		rr[started] = app_connect(t->cli, NULL, IPV4(10, 0, 0, 2), TCP_BENCH_PORT, &spec, c->seed, &err);
		if (!rr[started])
			break;
		started++;
	}
	bool all = echo && started == c->conns;
	if (all)
		run_and_measure(t, o);
	for (uint64_t i = 0; i < started; i++) {
		const app_end *s = &rr[i]->c;
		o->transactions += s->txns;
		o->conns_ok += app_end_done(s);
		app_connect_free(rr[i]);
	}
	o->ok = all && o->conns_ok == c->conns && !app_serve_stats_get(echo).mismatches;
	if (echo)
		app_listener_close(echo);
	free(rr);
	return all ? 0 : -1;
}

static int run_once(const tcp_bench_config *c, tcp_bench_result *o, char *err, size_t errlen)
{
	*o = (tcp_bench_result){ 0 };
	testbed t = { 0 };
	int rc = testbed_build(&t, c);
	if (rc)
		snprintf(err, errlen, "cannot build the two stacks and their wire");
	else if ((c->mode == TCP_BENCH_BULK ? run_bulk : run_rr)(&t, c, o)) {
		snprintf(err, errlen, "cannot start the applications");
		rc = -1;
	}
	testbed_free(&t);
	return rc;
}

int tcp_bench_run(const tcp_bench_config *c, tcp_bench_result *r, char *err, size_t errlen)
{
	tcp_bench_result o;
	*r = (tcp_bench_result){ 0 };
	for (uint64_t k = 0; k < c->repeat; k++) {
		if (run_once(c, &o, err, errlen))
			return 1;
		if (k && o.fingerprint != r->fingerprint) {
			snprintf(err, errlen, "fingerprint differs between runs (determinism bug)");
			return 1;
		}
		if (!k || o.wall < r->wall)
			*r = o;
	}
	return 0;
}
