/* Event-free switch hops (sim/fabric/hop_int.h): a world with them and the same world with
 * every hop an event deliver the same frames at the same times in the same order among
 * everything else that happens, whatever comes in between: streams long enough to span
 * the wires' queue chunks, a frame from another port reaching the switch first, a timer
 * set for the very nanosecond a frame arrives, a wire's parameters changing, a wire going
 * down, a tap, a station moving. Only the number of events differs. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "sim/fabric/endpoint.h"
#include "sim/fabric/fabric.h"
#include "sim/fabric/switch.h"
#include "sim/fabric/wire.h"

#define NODES 4
#define LOG_MAX 4096

/* What happened, in the order it happened: a frame received (node, its number) or a
 * timer (node -1, its id). */
typedef struct happening {
	sim_time at;
	int node;
	uint32_t what;
} happening;

typedef struct world {
	sim_engine *eng;
	sim_fabric *fab;
	sim_switch *sw;
	sim_wire *wire[NODES];
	sim_endpoint ep[NODES];
	uint8_t mac[NODES][6];
	happening log[LOG_MAX];
	size_t n;
} world;

static void logit(world *w, int node, uint32_t what)
{
	cr_assert_lt(w->n, LOG_MAX);
	w->log[w->n++] = (happening){ sim_now(w->eng), node, what };
}

static void rx(sim_endpoint *ep, sim_frame *f)
{
	world *w = ep->ctx;
	uint32_t what;
	memcpy(&what, f->data + 14, 4);
	logit(w, (int)(ep - w->ep), what);
	sim_frame_free(f);
}

static void make(world *w, bool event_hops)
{
	memset(w, 0, sizeof(*w));
	w->eng = sim_engine_new(7);
	w->fab = sim_fabric_new(w->eng);
	sim_fabric_set_event_hops(w->fab, event_hops);
	sim_switch_params sp;
	sim_switch_params_default(&sp);
	sp.nports = NODES;
	w->sw = sim_switch_new(w->fab, "sw", &sp);
	/* node 2's wire is short and fast: what it sends later can reach the switch first */
	static const sim_time lat[NODES] = { 2000, 700, 100, 900 };
	static const uint64_t bps[NODES] = { 10000000000ULL, 25000000000ULL, 100000000000ULL, 25000000000ULL };
	for (int i = 0; i < NODES; i++) {
		uint8_t m[6] = { 2, 0, 0, 0, 0, (uint8_t)(i + 1) };
		memcpy(w->mac[i], m, 6);
		sim_wire_params wp;
		sim_wire_params_default(&wp);
		wp.latency = lat[i];
		wp.bandwidth_bps = bps[i];
		char name[16];
		snprintf(name, sizeof(name), "w%d", i);
		w->wire[i] = sim_wire_new(w->fab, name, &wp);
		snprintf(name, sizeof(name), "h%d", i);
		sim_endpoint_init(&w->ep[i], w->fab, name, m, rx, NULL, w);
		cr_assert_eq(sim_endpoint_attach(&w->ep[i], sim_wire_end(w->wire[i], 0)), 0);
		cr_assert_eq(sim_plug_connect(sim_wire_end(w->wire[i], 1), sim_switch_port(w->sw, (uint32_t)i)), 0);
	}
}

static void unmake(world *w)
{
	for (int i = 0; i < NODES; i++)
		sim_endpoint_destroy(&w->ep[i]);
	cr_expect_eq(sim_frame_pool_in_use(sim_fabric_frames(w->fab)), 0, "frames leaked");
	sim_fabric_free(w->fab);
	sim_engine_free(w->eng);
}

static void send(world *w, int from, const uint8_t *dst, uint32_t what, uint32_t len)
{
	sim_frame *f = sim_frame_alloc_data(sim_fabric_frames(w->fab), len);
	memcpy(f->data, dst, 6);
	memcpy(f->data + 6, w->mac[from], 6);
	f->data[12] = 0x88;
	f->data[13] = 0xB5;
	memset(f->data + 14, 0, len - 14);
	memcpy(f->data + 14, &what, 4);
	sim_endpoint_send(&w->ep[from], f);
}

/* --- what the script does at its times ------------------------------------------------ */

typedef enum step_kind {
	BURST,    /* arg frames of 1000 bytes from `from` to `to` */
	ONE,      /* one frame of arg bytes */
	TIMER,    /* post a timer for time arg */
	PARAMS,   /* wire `from` gets latency arg */
	DOWN,     /* wire `from` down (arg 0) or up (arg 1) */
	TAP,      /* a tap on the switch port of `from` (arg 1) or none (0) */
	IMPOSTOR, /* `from` sends a frame with `to`'s MAC as its source */
	PORT,     /* the switch port of `from` down (arg 0) or up (arg 1) */
} step_kind;

typedef struct step {
	sim_time at;
	step_kind kind;
	int from, to;
	uint64_t arg;
	uint32_t what;
} step;

typedef struct run_ctx {
	world *w;
	const step *s;
} run_ctx;

static void timer_fires(sim_engine *eng, sim_event *ev)
{
	(void)eng;
	logit(ev->ctx, -1, (uint32_t)ev->arg);
}

static void tap_fn(void *ctx, const sim_plug *plug, sim_tap_dir dir, sim_time at, const sim_frame *f)
{
	(void)plug;
	(void)dir;
	(void)f;
	logit(ctx, -2, (uint32_t)at);
}

static void do_step(world *w, const step *s)
{
	switch (s->kind) {
	case BURST:
		for (uint32_t k = 0; k < s->arg; k++)
			send(w, s->from, w->mac[s->to], s->what + k, 1000);
		break;
	case ONE:
		send(w, s->from, w->mac[s->to], s->what, (uint32_t)s->arg);
		break;
	case TIMER:
		sim_post(w->eng, s->arg, sim_kind("test.timer"), 1, timer_fires, w, s->what);
		break;
	case PARAMS: {
		sim_wire_params p = *sim_wire_params_get(w->wire[s->from]);
		p.latency = s->arg;
		sim_wire_set_params(w->wire[s->from], &p);
		break;
	}
	case DOWN: sim_wire_set_up(w->wire[s->from], s->arg != 0); break;
	case PORT: sim_switch_port_set_up(w->sw, (uint32_t)s->from, s->arg != 0); break;
	case TAP: sim_plug_set_tap(sim_switch_port(w->sw, (uint32_t)s->from), s->arg ? tap_fn : NULL, w); break;
	case IMPOSTOR: {
		sim_frame *f = sim_frame_alloc_data(sim_fabric_frames(w->fab), 60);
		memset(f->data, 0, 60);
		memcpy(f->data, w->mac[0], 6);
		memcpy(f->data + 6, w->mac[s->to], 6);
		f->data[12] = 0x88;
		f->data[13] = 0xB5;
		memcpy(f->data + 14, &s->what, 4);
		sim_endpoint_send(&w->ep[s->from], f);
		break;
	}
	}
}

static void step_fires(sim_engine *eng, sim_event *ev)
{
	(void)eng;
	do_step(ev->ctx, (const step *)(uintptr_t)ev->arg);
}

/* Every node says hello (broadcast: the switch learns them all), then the script. */
static uint64_t run_script(world *w, bool event_hops, const step *script, size_t n)
{
	make(w, event_hops);
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	for (int i = 0; i < NODES; i++)
		send(w, i, bcast, 900000u + (uint32_t)i, 60);
	for (size_t i = 0; i < n; i++)
		sim_post(w->eng, script[i].at, sim_kind("test.step"), 2, step_fires, w, (uint64_t)(uintptr_t)&script[i]);
	sim_engine_run(w->eng, SIM_TIME_NEVER, 0);
	return sim_engine_events_run(w->eng);
}

/* The script with event hops and with early hops: the same happenings, the same counters. */
static void same_both_ways(const step *script, size_t n, bool fewer_events)
{
	static world a, b;
	uint64_t ea = run_script(&a, true, script, n);
	uint64_t eb = run_script(&b, false, script, n);
	cr_assert_eq(a.n, b.n, "%zu happenings with event hops, %zu without", a.n, b.n);
	for (size_t i = 0; i < a.n; i++)
		cr_assert(a.log[i].at == b.log[i].at && a.log[i].node == b.log[i].node && a.log[i].what == b.log[i].what,
		          "happening %zu: %lu node %d #%u with event hops, %lu node %d #%u without", i,
		          (unsigned long)a.log[i].at, a.log[i].node, a.log[i].what, (unsigned long)b.log[i].at,
		          b.log[i].node, b.log[i].what);
	for (uint32_t p = 0; p < NODES; p++) {
		const sim_switch_port_stats *x = sim_switch_port_stats_get(a.sw, p), *y = sim_switch_port_stats_get(b.sw, p);
		cr_assert_eq(x->rx_frames, y->rx_frames, "port %u", p);
		cr_assert_eq(x->tx_frames, y->tx_frames, "port %u", p);
		for (unsigned side = 0; side < 2; side++) {
			const sim_wire_stats *u = sim_wire_stats_get(a.wire[p], side), *v = sim_wire_stats_get(b.wire[p], side);
			cr_assert(u->frames_in == v->frames_in && u->bytes_in == v->bytes_in && u->delivered == v->delivered &&
			                  u->down_drops == v->down_drops,
			          "wire %u side %u", p, side);
		}
	}
	cr_assert_eq(sim_switch_stats_get(a.sw)->forwarded, sim_switch_stats_get(b.sw)->forwarded);
	if (fewer_events)
		cr_assert_lt(eb, ea, "hops without events: %lu events against %lu", (unsigned long)eb, (unsigned long)ea);
	unmake(&a);
	unmake(&b);
}

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

Test(hop, a_long_stream_crosses_without_events)
{
	static const step s[] = {
		{ 10000, BURST, 0, 1, 60, 1 },
		{ 10000, BURST, 3, 2, 30, 100 }, /* elsewhere: both cross without events */
	};
	same_both_ways(s, N_OF(s), true);
}

Test(hop, a_frame_from_another_port_that_reaches_the_switch_first_goes_first)
{
	/* node 0's 60 frames take 2 us to reach the switch; node 2's, sent later on a fast
	 * short wire, overtake the last ones of them there: the early crossings of those go
	 * again, behind it (more than a queue chunk's worth) */
	static const step s[] = {
		{ 10000, BURST, 0, 1, 60, 1 },
		{ 12100, ONE, 2, 1, 64, 500 },
		{ 20000, BURST, 0, 1, 40, 600 },
		{ 20300, BURST, 2, 1, 5, 700 },
		{ 20310, BURST, 3, 1, 5, 800 },
	};
	same_both_ways(s, N_OF(s), true);
}

Test(hop, however_many_go_again_the_queue_stays_whole)
{
	/* node 2's frame overtakes a different number of node 0's at each delay: the crossings
	 * undone end anywhere in the queue's chunks */
	for (sim_time d = 0; d < 60; d++) {
		step s[] = {
			{ 10000, BURST, 0, 1, 64, 1 },
			{ 11000 + d * 300, ONE, 2, 1, 64, 500 },
			{ 80000, BURST, 0, 1, 30, 600 },
			{ 80100 + d * 300, ONE, 2, 1, 64, 700 },
			{ 200000, BURST, 0, 1, 3, 800 },
		};
		same_both_ways(s, N_OF(s), false);
	}
	/* node 0's port goes down while its frames are crossing: those still before the switch
	 * go again (and are dropped there), the queue beyond drains what it has, and fills
	 * again once the port is back: wherever in the chunks the undoing ended */
	for (sim_time d = 0; d < 70; d++) {
		step s[] = {
			{ 10000, BURST, 0, 1, 64, 1 },
			{ 12000 + d * 819, PORT, 0, 0, 0, 0 },
			{ 100000, PORT, 0, 0, 1, 0 },
			{ 110000, BURST, 0, 1, 25, 100 },
		};
		same_both_ways(s, N_OF(s), false);
	}
}

/* Where a single 1000-byte frame from node 0 to node 1 sent at `at` arrives (event hops). */
static sim_time arrival_of_one(sim_time at)
{
	static world w;
	step s[] = { { at, ONE, 0, 1, 1000, 7 } };
	run_script(&w, true, s, 1);
	sim_time t = 0;
	for (size_t i = 0; i < w.n; i++)
		if (w.log[i].what == 7)
			t = w.log[i].at;
	unmake(&w);
	cr_assert_gt(t, at);
	return t;
}

Test(hop, something_set_for_the_very_nanosecond_of_an_arrival_keeps_its_place)
{
	sim_time t2 = arrival_of_one(10000);
	/* one timer posted while the frame is still before the switch (its event would come
	 * after the timer's), one after (its event was already queued) */
	step s[] = {
		{ 10000, ONE, 0, 1, 1000, 7 },
		{ 10500, TIMER, 0, 0, t2, 1 },
		{ t2 - 10, TIMER, 0, 0, t2, 2 },
	};
	same_both_ways(s, N_OF(s), false);
	/* and a burst whose every frame has a timer set for its arrival at some point */
	step t[] = {
		{ 10000, ONE, 0, 1, 1000, 7 },
		{ 10000, TIMER, 0, 0, t2, 3 },
		{ 11000, TIMER, 0, 0, t2, 4 },
		{ 12000, TIMER, 0, 0, t2 + 1, 5 },
		{ 12000, BURST, 3, 1, 10, 40 },
	};
	same_both_ways(t, N_OF(t), false);
}

Test(hop, a_change_of_the_fabric_in_between_is_seen)
{
	static const step s[] = {
		{ 10000, BURST, 0, 1, 20, 1 },
		{ 10900, PARAMS, 1, 0, 3000, 0 },   /* the wire beyond gets slower */
		{ 20000, BURST, 0, 1, 20, 100 },
		{ 20500, DOWN, 0, 0, 0, 0 },        /* the wire before goes down ... */
		{ 21000, DOWN, 0, 0, 1, 0 },        /* ... and up */
		{ 30000, BURST, 0, 1, 20, 200 },
		{ 30100, TAP, 1, 0, 1, 0 },         /* a tap at the way out */
		{ 40000, TAP, 1, 0, 0, 0 },
		{ 50000, BURST, 0, 1, 20, 300 },
		{ 50100, IMPOSTOR, 3, 1, 0, 999 },  /* node 1's MAC moves to node 3's port */
		{ 60000, BURST, 0, 1, 10, 400 },
		{ 60500, IMPOSTOR, 1, 1, 0, 998 },  /* and back */
		{ 70000, BURST, 2, 1, 10, 500 },
	};
	same_both_ways(s, N_OF(s), false);
}
