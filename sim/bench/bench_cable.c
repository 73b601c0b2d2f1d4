/* Point-to-point cables for the stacks benchmark (see bench_cable.h). */
#include "sim/bench/bench_cable.h"

#include <stdlib.h>
#include <string.h>

typedef struct in_flight {
	netif *to;
	size_t len;
	unsigned flags; /* the producer's (the bytes are copied once and never written) */
	uint8_t data[];
} in_flight;

static void cable_deliver(sim_engine *eng, sim_event *ev)
{
	(void)eng;
	in_flight *f = ev->ctx;
	netif_input_flags(f->to, f->data, f->len, f->flags);
	free(f);
}

static void cable_output(void *ctx, netif *nif, const uint8_t *frame, size_t len, unsigned flags)
{
	(void)nif;
	bench_cable_end *e = ctx;
	bench_cable *c = e->c;
	in_flight *f = malloc(sizeof *f + len);
	if (!f)
		return;
	f->to = c->nif[1 - e->side];
	f->len = len;
	f->flags = flags;
	memcpy(f->data, frame, len);
	(*c->frames)++;
	sim_post(c->eng, sim_now(c->eng) + c->latency, c->kind, f->to->entity, cable_deliver, f, 0);
}

void bench_cable_join(bench_cable *c, sim_engine *eng, netif *a, netif *b, sim_time latency, uint64_t *frames)
{
	c->eng = eng;
	c->nif[0] = a;
	c->nif[1] = b;
	c->latency = latency;
	c->kind = sim_kind("bench.cable");
	c->frames = frames;
	for (int i = 0; i < 2; i++) {
		c->end[i] = (bench_cable_end){ c, i };
		netif_set_link(c->nif[i], cable_output, &c->end[i]);
	}
}
