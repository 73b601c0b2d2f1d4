/* Test wire: a hub with latency, rate, seeded loss and a drop hook. */
#include "tests/support/wire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WIRE_MAX_PORTS 16

typedef struct wire_port {
	struct test_wire *w;
	netif *nif;
	sim_time busy_until;
} wire_port;

typedef struct wire_frame {
	struct wire_frame *next;
	sim_time at;
	size_t from;
	size_t len;
	uint8_t data[];
} wire_frame;

struct test_wire {
	sim_engine *eng;
	char name[32];
	sim_time latency;
	sim_ratio loss;
	sim_rng rng;
	uint64_t rate;
	wire_port ports[WIRE_MAX_PORTS];
	size_t n_ports;
	wire_frame *head;
	sim_event ev;
	test_wire_drop_fn drop;
	void *drop_ctx;
	uint64_t frames, dropped, hash;
};

static void deliver(sim_engine *eng, sim_event *ev)
{
	test_wire *w = ev->ctx;
	wire_frame *f = w->head;
	if (!f)
		return;
	w->head = f->next;
	if (w->head)
		sim_event_schedule(eng, &w->ev, w->head->at);
	for (size_t i = 0; i < w->n_ports; i++)
		if (i != f->from)
			netif_input(w->ports[i].nif, f->data, f->len);
	free(f);
}

/* The producer's flags are not passed on: every frame on a test wire is verified. */
static void wire_output(void *ctx, netif *nif, const uint8_t *frame, size_t len, unsigned flags)
{
	(void)flags;
	wire_port *p = ctx;
	test_wire *w = p->w;
	sim_time now = sim_now(w->eng);
	uint64_t index = w->frames++;
	uint64_t h = sim_mix64(w->hash ^ now);
	h = sim_mix64(h ^ (uint64_t)(p - w->ports));
	for (size_t i = 0; i < len; i++)
		h = (h ^ frame[i]) * 0x100000001b3ull;
	w->hash = sim_mix64(h ^ len);
	sim_engine_fold(w->eng, w->hash);
	if ((w->drop && w->drop(w->drop_ctx, nif, frame, len, index)) ||
	    (w->loss.num && sim_rng_chance(&w->rng, w->loss))) {
		w->dropped++;
		return;
	}
	sim_time depart = now;
	if (w->rate) {
		if (p->busy_until > depart)
			depart = p->busy_until;
		depart += (sim_time)len * SIM_S / w->rate;
		p->busy_until = depart;
	}
	wire_frame *f = malloc(sizeof *f + len);
	if (!f)
		return;
	f->next = NULL;
	f->at = depart + w->latency;
	f->from = (size_t)(p - w->ports);
	f->len = len;
	memcpy(f->data, frame, len);
	/* sorted by time; equal times keep sending order */
	wire_frame **pp = &w->head;
	while (*pp && (*pp)->at <= f->at)
		pp = &(*pp)->next;
	f->next = *pp;
	*pp = f;
	if (w->head == f)
		sim_event_schedule(w->eng, &w->ev, f->at);
}

test_wire *test_wire_new(sim_engine *eng, const char *name, sim_time latency, sim_ratio loss)
{
	test_wire *w = calloc(1, sizeof *w);
	if (!w)
		return NULL;
	w->eng = eng;
	snprintf(w->name, sizeof w->name, "%s", name);
	w->latency = latency;
	w->loss = loss;
	uint64_t id = sim_hash_str(w->name);
	sim_engine_rng(eng, "wire.loss", id, &w->rng);
	sim_event_init(&w->ev, sim_kind("wire.deliver"), id, deliver, w);
	return w;
}

void test_wire_free(test_wire *w)
{
	if (!w)
		return;
	sim_event_cancel(w->eng, &w->ev);
	while (w->head) {
		wire_frame *f = w->head;
		w->head = f->next;
		free(f);
	}
	for (size_t i = 0; i < w->n_ports; i++)
		netif_set_link(w->ports[i].nif, NULL, NULL);
	free(w);
}

void test_wire_attach(test_wire *w, netif *nif)
{
	if (w->n_ports == WIRE_MAX_PORTS)
		abort();
	wire_port *p = &w->ports[w->n_ports++];
	p->w = w;
	p->nif = nif;
	netif_set_link(nif, wire_output, p);
}

void test_wire_set_drop(test_wire *w, test_wire_drop_fn fn, void *ctx)
{
	w->drop = fn;
	w->drop_ctx = ctx;
}

void test_wire_set_rate(test_wire *w, uint64_t bytes_per_second)
{
	w->rate = bytes_per_second;
}

uint64_t test_wire_frames(const test_wire *w)
{
	return w->frames;
}

uint64_t test_wire_dropped(const test_wire *w)
{
	return w->dropped;
}

uint64_t test_wire_hash(const test_wire *w)
{
	return w->hash;
}
