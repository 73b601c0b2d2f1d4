/* bench stacks: many pairs of virtual TCP/IP stacks in one run. Each pair is joined by
 * a point-to-point cable (engine-timed delivery); the client runs request/response
 * transactions against an echo server, every byte checked, then closes. Optionally one
 * extra pair moves a bulk transfer. Reports wall time, events/s, frames, memory per
 * stack, and the fingerprint (which must be the same on every repetition). */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/app/app_bulk.h"
#include "sim/app/app_echo.h"
#include "sim/app/app_rr.h"
#include "sim/engine/engine.h"
#include "sim/net/stack.h"
#include "tools/bench.h"
#include "tools/cli.h"

typedef struct cable cable;

typedef struct cable_end {
	cable *c;
	int side;
} cable_end;

struct cable {
	sim_engine *eng;
	netif *nif[2];
	cable_end end[2];
	sim_time latency;
	uint32_t kind;
	uint64_t *frames;
};

typedef struct in_flight {
	netif *to;
	size_t len;
	uint8_t data[];
} in_flight;

static void cable_deliver(sim_engine *eng, sim_event *ev)
{
	(void)eng;
	in_flight *f = ev->ctx;
	netif_input(f->to, f->data, f->len);
	free(f);
}

static void cable_output(void *ctx, netif *nif, const uint8_t *frame, size_t len)
{
	(void)nif;
	cable_end *e = ctx;
	cable *c = e->c;
	in_flight *f = malloc(sizeof *f + len);
	if (!f)
		return;
	f->to = c->nif[1 - e->side];
	f->len = len;
	memcpy(f->data, frame, len);
	(*c->frames)++;
	sim_post(c->eng, sim_now(c->eng) + c->latency, c->kind, f->to->entity, cable_deliver, f, 0);
}

static void cable_join(cable *c, sim_engine *eng, netif *a, netif *b, sim_time latency, uint64_t *frames)
{
	c->eng = eng;
	c->nif[0] = a;
	c->nif[1] = b;
	c->latency = latency;
	c->kind = sim_kind("bench.cable");
	c->frames = frames;
	for (int i = 0; i < 2; i++) {
		c->end[i] = (cable_end){ c, i };
		netif_set_link(c->nif[i], cable_output, &c->end[i]);
	}
}

typedef struct pair {
	stack *cli, *srv;
	cable link;
	app_echo *echo;
	app_rr *rr;
} pair;

typedef struct run_out {
	double wall;
	uint64_t events, frames, fingerprint, verified, bulk_bytes;
	uint64_t rss;
} run_out;

static int run_once(gint64 pairs, gint64 requests, gint64 size, gint64 bulk_mib, gint64 seed, run_out *o)
{
	sim_engine *eng = sim_engine_new((uint64_t)seed);
	pair *p = calloc((size_t)pairs, sizeof *p);
	if (!p)
		return 1;
	uint64_t frames = 0;
	double t0 = bench_wall_seconds();
	for (gint64 i = 0; i < pairs; i++) {
		char name[32];
		snprintf(name, sizeof name, "c%" G_GINT64_FORMAT, i);
		p[i].cli = stack_new(eng, name, STACK_LINUX, NULL);
		snprintf(name, sizeof name, "s%" G_GINT64_FORMAT, i);
		p[i].srv = stack_new(eng, name, STACK_ZOS, NULL);
		netif *a = stack_add_netif(p[i].cli, "eth0", NULL, 1500, 0);
		netif *b = stack_add_netif(p[i].srv, "eth0", NULL, 1500, 0);
		netif_set_ipv4(a, IPV4(10, 0, 0, 1), 24);
		netif_set_ipv4(b, IPV4(10, 0, 0, 2), 24);
		cable_join(&p[i].link, eng, a, b, 10 * SIM_US, &frames);
		int err;
		p[i].echo = app_echo_start(p[i].srv, NULL, 7, true, (uint64_t)i, &err);
		p[i].rr = app_rr_start(p[i].cli, NULL, IPV4(10, 0, 0, 2), 7, (uint32_t)size, (uint64_t)requests,
		                       (uint64_t)i, &err);
	}
	stack *bc = NULL, *bs = NULL;
	cable bl;
	app_bulk_sink *sink = NULL;
	app_bulk_sender *snd = NULL;
	if (bulk_mib > 0) {
		bc = stack_new(eng, "bulk-c", STACK_LINUX, NULL);
		bs = stack_new(eng, "bulk-s", STACK_LINUX, NULL);
		netif *a = stack_add_netif(bc, "eth0", NULL, 1500, 0);
		netif *b = stack_add_netif(bs, "eth0", NULL, 1500, 0);
		netif_set_ipv4(a, IPV4(10, 0, 0, 1), 24);
		netif_set_ipv4(b, IPV4(10, 0, 0, 2), 24);
		cable_join(&bl, eng, a, b, 50 * SIM_US, &frames);
		int err;
		sink = app_bulk_sink_start(bs, NULL, 9, 1, &err);
		snd = app_bulk_sender_start(bc, NULL, IPV4(10, 0, 0, 2), 9, (uint64_t)bulk_mib << 20, 1, &err);
	}
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
	o->wall = bench_wall_seconds() - t0;
	o->events = sim_engine_events_run(eng);
	o->frames = frames;
	o->fingerprint = sim_engine_fingerprint(eng);
	o->verified = 0;
	o->rss = bench_peak_rss();
	for (gint64 i = 0; i < pairs; i++) {
		const app_rr_stats *s = app_rr_stats_get(p[i].rr);
		if (s->done && !s->mismatches && !app_echo_stats_get(p[i].echo)->mismatches)
			o->verified++;
		app_rr_free(p[i].rr);
		app_echo_free(p[i].echo);
		stack_free(p[i].cli);
		stack_free(p[i].srv);
	}
	o->bulk_bytes = 0;
	if (snd) {
		const app_bulk_sink_stats *k = app_bulk_sink_stats_get(sink);
		if (app_bulk_sender_stats_get(snd)->done && !k->mismatches)
			o->bulk_bytes = k->bytes;
		app_bulk_sender_free(snd);
		app_bulk_sink_free(sink);
		stack_free(bc);
		stack_free(bs);
	}
	free(p);
	sim_engine_free(eng);
	return 0;
}

int bench_stacks(int argc, char **argv)
{
	gint64 pairs = 1000, requests = 10, size = 1000, bulk = 0, seed = 1, repeat = 2;
	GOptionEntry entries[] = {
		{ "pairs", 'p', 0, G_OPTION_ARG_INT64, &pairs, "pairs of stacks (1000)", "N" },
		{ "requests", 'n', 0, G_OPTION_ARG_INT64, &requests, "transactions per pair (10)", "N" },
		{ "size", 'z', 0, G_OPTION_ARG_INT64, &size, "request and response size in bytes (1000)", "BYTES" },
		{ "bulk", 'b', 0, G_OPTION_ARG_INT64, &bulk, "also one bulk transfer of this many MiB (0)", "MIB" },
		{ "seed", 's', 0, G_OPTION_ARG_INT64, &seed, "random seed (1)", "N" },
		{ "repeat", 'r', 0, G_OPTION_ARG_INT64, &repeat, "runs; the best is reported (2)", "N" },
		{ NULL },
	};
	cli_options opts = { .params = "- many virtual TCP/IP stacks in one run", .entries = entries };
	if (cli_parse_options(&opts, &argc, &argv))
		return 2;
	if (argc > 1) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", argv[0], argv[1]);
		return 2;
	}
	if (pairs <= 0 || requests < 0 || size <= 0 || size > 1 << 24 || bulk < 0 || repeat <= 0) {
		fprintf(stderr, "%s: need pairs > 0, requests >= 0, 0 < size <= 16 MiB, bulk >= 0, repeat > 0\n",
		        argv[0]);
		return 2;
	}
	run_out best = { 0 }, o;
	for (gint64 r = 0; r < repeat; r++) {
		if (run_once(pairs, requests, size, bulk, seed, &o))
			return 1;
		if (r && o.fingerprint != best.fingerprint) {
			fprintf(stderr, "%s: fingerprint differs between runs (determinism bug)\n", argv[0]);
			return 1;
		}
		if (!r || o.wall < best.wall)
			best = o;
	}
	uint64_t stacks = (uint64_t)pairs * 2 + (bulk ? 2 : 0);
	printf("bench stacks: %" G_GINT64_FORMAT " pairs, %" G_GINT64_FORMAT " transactions of %" G_GINT64_FORMAT
	       " B each per pair, bulk %" G_GINT64_FORMAT " MiB, seed %" G_GINT64_FORMAT "\n",
	       pairs, requests, size, bulk, seed);
	printf("  wall (best of %" G_GINT64_FORMAT "):     %.3f s\n", repeat, best.wall);
	printf("  events:               %" G_GUINT64_FORMAT " (%.2f M events/s)\n", best.events,
	       (double)best.events / best.wall / 1e6);
	printf("  frames:               %" G_GUINT64_FORMAT " (%.2f M frames/s)\n", best.frames,
	       (double)best.frames / best.wall / 1e6);
	printf("  pairs verified:       %" G_GUINT64_FORMAT " of %" G_GINT64_FORMAT "\n", best.verified, pairs);
	if (bulk)
		printf("  bulk verified:        %" G_GUINT64_FORMAT " bytes\n", best.bulk_bytes);
	printf("  peak RSS (process):   %.1f MiB (%.1f KiB per stack)\n", (double)best.rss / (1024.0 * 1024.0),
	       (double)best.rss / 1024.0 / (double)stacks);
	printf("  fingerprint:          %016" G_GINT64_MODIFIER "x\n", best.fingerprint);
	return best.verified == (uint64_t)pairs && (!bulk || best.bulk_bytes == (uint64_t)bulk << 20) ? 0 : 1;
}
