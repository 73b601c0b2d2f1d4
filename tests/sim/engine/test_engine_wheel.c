/* The engine's queue structure: the 1-ns timing wheel (4096 slots) in front of the radix
 * levels, its blocks of 31 units, the current time's out-of-order path, far-future
 * migration and huge times. Every test checks the run order against (time, sequence). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "sim/engine/engine.h"

/* What ran, in order: the event's id (its arg, or its entity for a timer) and the time. */
typedef struct run_log {
	uint64_t *id;
	sim_time *at;
	size_t n, cap;
} run_log;

static void log_run(sim_engine *eng, sim_event *ev)
{
	run_log *l = ev->ctx;
	cr_assert_lt(l->n, l->cap, "more events ran than were scheduled");
	l->at[l->n] = sim_now(eng);
	l->id[l->n++] = ev->owned ? ev->arg : ev->entity;
}

static run_log log_new(size_t cap)
{
	run_log l = { calloc(cap, sizeof(uint64_t)), calloc(cap, sizeof(sim_time)), 0, cap };
	cr_assert(l.id && l.at);
	return l;
}

static void log_free(run_log *l)
{
	free(l->id);
	free(l->at);
}

/* An expected event: its time and its order among equal times. */
typedef struct want {
	sim_time at;
	uint64_t seq;
	uint64_t id;
} want;

static int want_cmp(const void *pa, const void *pb)
{
	const want *a = pa, *b = pb;
	if (a->at != b->at)
		return a->at < b->at ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* The log ran exactly `w` in (time, sequence) order. */
static void expect_order(const run_log *l, want *w, size_t n)
{
	qsort(w, n, sizeof(*w), want_cmp);
	cr_assert_eq(l->n, n, "%zu events ran, %zu expected", l->n, n);
	for (size_t i = 0; i < n; i++) {
		cr_assert_eq(l->id[i], w[i].id, "run %zu: event %llu, expected %llu", i, (unsigned long long)l->id[i],
		             (unsigned long long)w[i].id);
		cr_assert_eq(l->at[i], w[i].at, "run %zu at %llu, expected %llu", i, (unsigned long long)l->at[i],
		             (unsigned long long)w[i].at);
	}
}

Test(engine_wheel, times_across_many_wheel_turns_run_in_order)
{
	/* times spread over 40 turns of the 4096-ns wheel, posted in a scrambled order, several
	 * per time, and some exactly on turn boundaries */
	enum { N = 20000 };
	sim_engine *eng = sim_engine_new(1);
	run_log l = log_new(N);
	want *w = calloc(N, sizeof(*w));
	for (uint64_t i = 0; i < N; i++) {
		sim_time at = (i * 7919) % (40 * 4096);
		if (i % 97 == 0)
			at = (i % 40) * 4096; /* a boundary */
		sim_post(eng, at, 1, 0, log_run, &l, i);
		w[i] = (want){ at, i, i };
	}
	cr_assert_eq(sim_engine_run(eng, SIM_TIME_NEVER, 0), SIM_RUN_IDLE);
	expect_order(&l, w, N);
	free(w);
	log_free(&l);
	sim_engine_free(eng);
}

Test(engine_wheel, a_slot_of_many_blocks_runs_in_posting_order)
{
	/* 100 events at one future time (several blocks: wide units in the radix level, then compact
	 * ones in the wheel), and 100 more posted at that time while it runs (appended to the
	 * current bucket as it is taken) */
	sim_engine *eng = sim_engine_new(1);
	run_log l = log_new(200);
	for (uint64_t i = 0; i < 100; i++)
		sim_post(eng, 5000, 1, 0, log_run, &l, i);
	sim_engine_run(eng, 4999, 0);
	cr_assert_eq(l.n, 0);
	for (uint64_t i = 100; i < 200; i++)
		sim_post(eng, 5000, 1, 0, log_run, &l, i);
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
	cr_assert_eq(l.n, 200);
	for (uint64_t i = 0; i < 200; i++)
		cr_assert_eq(l.id[i], i, "position %llu ran %llu", (unsigned long long)i, (unsigned long long)l.id[i]);
	log_free(&l);
	sim_engine_free(eng);
}

/* Each event posts the next one a little ahead (8 chains), so the wheel wraps while it is
 * in use. */
typedef struct chain {
	run_log *log;
	want *w;
	size_t n, max;
	uint64_t seq;
	sim_rng rng;
} chain;

static void chain_step(sim_engine *eng, sim_event *ev)
{
	chain *c = ev->ctx;
	log_run(eng, &(sim_event){ .ctx = c->log, .arg = ev->arg, .owned = 1 });
	if (c->n < c->max) {
		/* mostly within the wheel, now and then on the same time or past its turn */
		uint64_t r = sim_rng_below(&c->rng, 10);
		sim_time at = sim_now(eng) + (r == 0 ? 0 : r == 1 ? 4096 + sim_rng_below(&c->rng, 9000) : sim_rng_below(&c->rng, 3000));
		uint64_t id = c->n;
		c->w[c->n++] = (want){ at, ++c->seq, id };
		sim_post(eng, at, 1, 0, chain_step, c, id);
	}
}

Test(engine_wheel, the_wheel_wraps_while_events_post_ahead)
{
	enum { N = 60000 };
	sim_engine *eng = sim_engine_new(1);
	run_log l = log_new(N);
	chain c = { .log = &l, .w = calloc(N, sizeof(want)), .max = N };
	sim_engine_rng(eng, "test.wheel", 0, &c.rng);
	for (int i = 0; i < 8; i++) {
		uint64_t id = c.n;
		c.w[c.n++] = (want){ (sim_time)i * 1000, ++c.seq, id };
		sim_post(eng, (sim_time)i * 1000, 1, 0, chain_step, &c, id);
	}
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
	cr_assert_gt(sim_now(eng), 100 * 4096, "the run covered many turns");
	expect_order(&l, c.w, N);
	free(c.w);
	log_free(&l);
	sim_engine_free(eng);
}

Test(engine_wheel, far_future_events_come_down_in_order)
{
	/* events a microsecond to years ahead land in the radix levels and move down into the
	 * wheel as time gets there; near events posted later run between them */
	sim_engine *eng = sim_engine_new(1);
	run_log l = log_new(256);
	want w[256];
	size_t n = 0;
	uint64_t seq = 0;
	const sim_time far[] = { 5000, 70000, SIM_MS, SIM_MS + 1, SIM_S, 3 * SIM_S, 1ULL << 40, (1ULL << 40) + 4095,
		                 (1ULL << 52) + 12345, 1ULL << 60, (1ULL << 63) + 1 };
	for (size_t i = 0; i < sizeof(far) / sizeof(far[0]); i++) {
		for (int k = 0; k < 3; k++) { /* ties at each far time */
			sim_post(eng, far[i], 1, 0, log_run, &l, n);
			w[n] = (want){ far[i], ++seq, n };
			n++;
		}
	}
	/* walk time forward in steps, posting near events each time */
	sim_time step[] = { 4000, 69999, SIM_MS, SIM_S - 1, 1ULL << 40, 1ULL << 60 };
	for (size_t s = 0; s < sizeof(step) / sizeof(step[0]); s++) {
		sim_engine_run(eng, step[s], 0);
		cr_assert_eq(sim_now(eng), step[s]);
		for (int k = 0; k < 4; k++) {
			sim_time at = step[s] + (sim_time)k * 1500;
			sim_post(eng, at, 1, 0, log_run, &l, n);
			w[n] = (want){ at, ++seq, n };
			n++;
		}
	}
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
	expect_order(&l, w, n);
	log_free(&l);
	sim_engine_free(eng);
}

Test(engine_wheel, huge_times_up_to_never)
{
	sim_engine *eng = sim_engine_new(1);
	run_log l = log_new(64);
	sim_event t1, t2;
	sim_event_init(&t1, 1, 100, log_run, &l);
	sim_event_init(&t2, 1, 101, log_run, &l);
	sim_post(eng, SIM_TIME_NEVER - 1, 1, 0, log_run, &l, 1);
	sim_post(eng, SIM_TIME_NEVER, 1, 0, log_run, &l, 2);
	sim_event_schedule(eng, &t1, SIM_TIME_NEVER - 1); /* after 1 at the same time */
	sim_event_schedule_in(eng, &t2, SIM_TIME_NEVER);  /* clamped to NEVER: after 2 */
	sim_post(eng, SIM_TIME_NEVER - 4096, 1, 0, log_run, &l, 3);
	sim_post(eng, 1ULL << 63, 1, 0, log_run, &l, 4);
	cr_assert_eq(sim_engine_next_time(eng), 1ULL << 63);
	sim_engine_run(eng, SIM_TIME_NEVER - 2, 0);
	cr_assert_eq(l.n, 2);
	cr_assert_eq(sim_now(eng), SIM_TIME_NEVER - 2);
	sim_post(eng, SIM_TIME_NEVER - 1, 1, 0, log_run, &l, 5); /* after t1 */
	cr_assert_eq(sim_engine_run(eng, SIM_TIME_NEVER, 0), SIM_RUN_IDLE);
	uint64_t order[] = { 4, 3, 1, 100, 5, 2, 101 };
	cr_assert_eq(l.n, sizeof(order) / sizeof(order[0]));
	for (size_t i = 0; i < l.n; i++)
		cr_assert_eq(l.id[i], order[i], "run %zu: %llu", i, (unsigned long long)l.id[i]);
	cr_assert_eq(sim_now(eng), SIM_TIME_NEVER);
	log_free(&l);
	sim_engine_free(eng);
}

Test(engine_wheel, cancel_inside_a_slot_leaves_its_neighbours_in_order)
{
	/* 40 timers in one wheel slot (three blocks), every third cancelled, two re-armed into
	 * the same slot (they go last) and one re-armed earlier, into another slot */
	enum { N = 40 };
	sim_engine *eng = sim_engine_new(1);
	run_log l = log_new(N);
	sim_event t[N];
	for (uint64_t i = 0; i < N; i++) {
		sim_event_init(&t[i], 1, i, log_run, &l);
		sim_event_schedule(eng, &t[i], 777);
	}
	sim_post(eng, 5, 1, 0, log_run, &l, 1000);
	for (int i = 0; i < N; i += 3)
		sim_event_cancel(eng, &t[i]);
	sim_event_schedule(eng, &t[4], 777);
	sim_event_schedule(eng, &t[1], 777);
	sim_event_schedule(eng, &t[7], 700);
	cr_assert_eq(sim_engine_pending(eng), 1 + N - (N + 2) / 3);
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
	size_t k = 0;
	cr_assert_eq(l.id[k++], 1000);
	cr_assert_eq(l.id[k++], 7);
	for (uint64_t i = 0; i < N; i++)
		if (i % 3 && i != 1 && i != 4 && i != 7) {
			cr_assert_eq(l.id[k], i, "position %zu: %llu, expected %llu", k, (unsigned long long)l.id[k],
			             (unsigned long long)i);
			k++;
		}
	cr_assert_eq(l.id[k++], 4);
	cr_assert_eq(l.id[k++], 1);
	cr_assert_eq(l.n, k);
	cr_assert_eq(sim_engine_pending(eng), 0);
	log_free(&l);
	sim_engine_free(eng);
}

/* Handlers that cancel a timer of the time being run. */
typedef struct canceller {
	run_log *log;
	sim_event *victim;
} canceller;

static void cancel_victim(sim_engine *eng, sim_event *ev)
{
	canceller *c = ev->ctx;
	log_run(eng, &(sim_event){ .ctx = c->log, .arg = ev->arg, .owned = 1 });
	sim_event_cancel(eng, c->victim);
}

Test(engine_wheel, cancel_in_the_current_slot)
{
	sim_engine *eng = sim_engine_new(1);
	run_log l = log_new(8);
	sim_event victim;
	sim_event_init(&victim, 1, 99, log_run, &l);
	canceller c = { &l, &victim };
	sim_post(eng, 50, 1, 0, cancel_victim, &c, 1);
	sim_event_schedule(eng, &victim, 50);
	sim_post(eng, 50, 1, 0, log_run, &l, 2);
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
	cr_assert_eq(l.n, 2);
	cr_assert_eq(l.id[0], 1);
	cr_assert_eq(l.id[1], 2);
	log_free(&l);
	sim_engine_free(eng);
}

/* A long same-time chain: each event posts another at now, and at the start a wire-like
 * FIFO posts older sequences at now too. */
typedef struct tie_chain {
	run_log *log;
	want *w;
	size_t n, max;
	uint64_t *taken; /* sequences taken in advance */
	size_t n_taken;
	uint64_t seq_shadow;
} tie_chain;

static void tie_step(sim_engine *eng, sim_event *ev)
{
	tie_chain *c = ev->ctx;
	log_run(eng, &(sim_event){ .ctx = c->log, .arg = ev->arg, .owned = 1 });
	if (ev->arg < 4) {
		/* the first events post earlier-taken sequences at the current time (each a
		 * share, from the latest down: every one out of order); they run before every
		 * event posted since they were taken, and after the one running (the contract of
		 * sim_post_seq) */
		size_t share = c->n_taken / 4;
		for (size_t k = share; k-- > 0;) {
			uint64_t s = c->taken[ev->arg * share + k];
			uint64_t id = c->n;
			c->w[c->n++] = (want){ sim_now(eng), s, id };
			sim_post_seq(eng, sim_now(eng), s, 1, 0, tie_step, c, id);
		}
	}
	if (c->n >= c->max)
		return;
	uint64_t id = c->n;
	c->w[c->n++] = (want){ sim_now(eng), ++c->seq_shadow, id };
	sim_post(eng, sim_now(eng), 1, 0, tie_step, c, id);
}

Test(engine_wheel, same_time_ties_in_long_chains_and_earlier_sequences)
{
	/* more same-time events than fit the current bucket's flat array's first growth,
	 * with earlier-taken sequences mixed in (the out-of-order path) */
	enum { N = 12000, TAKEN = 2000 };
	sim_engine *eng = sim_engine_new(1);
	run_log l = log_new(N + TAKEN);
	tie_chain c = { .log = &l, .w = calloc(N + TAKEN, sizeof(want)), .max = N, .taken = calloc(TAKEN, sizeof(uint64_t)) };
	/* the engine's sequence numbers count from 1, one per scheduling; mirror them */
	for (int i = 0; i < 4; i++) {
		uint64_t id = c.n;
		c.w[c.n++] = (want){ 1000, ++c.seq_shadow, id };
		sim_post(eng, 1000, 1, 0, tie_step, &c, id);
	}
	for (size_t i = 0; i < TAKEN; i++) {
		c.taken[i] = sim_engine_take_seq(eng);
		cr_assert_eq(c.taken[i], ++c.seq_shadow);
	}
	c.n_taken = TAKEN;
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
	cr_assert_eq(sim_now(eng), 1000);
	expect_order(&l, c.w, c.n);
	free(c.taken);
	free(c.w);
	log_free(&l);
	sim_engine_free(eng);
}

Test(engine_wheel, earlier_sequences_into_a_future_slot)
{
	/* a future slot filled by new postings, then given earlier-taken sequences (a wire's
	 * frames in flight): the slot is put in order before it runs */
	sim_engine *eng = sim_engine_new(1);
	run_log l = log_new(64);
	want w[64];
	size_t n = 0;
	uint64_t early[10];
	for (int i = 0; i < 10; i++)
		early[i] = sim_engine_take_seq(eng);
	for (int i = 0; i < 20; i++) {
		uint64_t s = sim_engine_take_seq(eng);
		sim_post_seq(eng, 300, s, 1, 0, log_run, &l, n); /* newest: plain append */
		w[n] = (want){ 300, s, n };
		n++;
	}
	for (int i = 9; i >= 0; i--) { /* older ones, in reverse */
		sim_post_seq(eng, 300, early[i], 1, 0, log_run, &l, n);
		w[n] = (want){ 300, early[i], n };
		n++;
	}
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
	expect_order(&l, w, n);
	log_free(&l);
	sim_engine_free(eng);
}

Test(engine_wheel, posting_before_a_peeked_base)
{
	/* a peek moves the queue's base to the next event; postings between now and it (in
	 * the same wheel turn, and turns or levels before it) must run first */
	sim_engine *eng = sim_engine_new(1);
	run_log l = log_new(64);
	want w[64];
	size_t n = 0;
	uint64_t seq = 0;
#define POST(t)                                           \
	do {                                                  \
		sim_post(eng, (t), 1, 0, log_run, &l, n);         \
		w[n] = (want){ (t), ++seq, n };                   \
		n++;                                              \
	} while (0)
	POST(3000);
	POST(3000);
	POST(9000);
	POST(SIM_S);
	cr_assert_eq(sim_engine_next_time(eng), 3000);
	POST(2000); /* same turn as the base */
	cr_assert_eq(sim_engine_next_time(eng), 2000);
	cr_assert_eq(sim_engine_run(eng, 2500, 0), SIM_RUN_TIME);
	cr_assert_eq(sim_engine_next_time(eng), 3000);
	POST(2600);
	POST(2600);
	sim_engine_run(eng, 5000, 0);
	cr_assert_eq(sim_engine_next_time(eng), 9000);
	POST(5000); /* at now, before the base */
	POST(6000);
	sim_engine_run(eng, 10000, 0);
	cr_assert_eq(sim_engine_next_time(eng), SIM_S);
	POST(10000 + 5 * 4096); /* turns before the far base */
	POST(SIM_MS);
	POST(SIM_S);
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
#undef POST
	expect_order(&l, w, n);
	log_free(&l);
	sim_engine_free(eng);
}

static void noop(sim_engine *eng, sim_event *ev)
{
	(void)eng;
	(void)ev;
}

Test(engine_wheel, memory_is_reused_across_bursts)
{
	/* the block pool keeps what a burst needed and reuses it: the same burst again does
	 * not grow it, and a queue of 1e5 events stays near 40 bytes an event. Each burst
	 * starts at a wheel turn: one that crosses a turn holds its far part in the radix
	 * level's wide entries until it comes down, and needs more blocks */
	enum { BURST = 100000 };
	sim_engine *eng = sim_engine_new(1);
	sim_rng rng;
	sim_engine_rng(eng, "test.burst", 0, &rng);
	size_t after_first = 0;
	for (int round = 0; round < 5; round++) {
		sim_time base = (sim_now(eng) / 4096 + 1) * 4096;
		sim_post(eng, base, 1, 0, noop, NULL, 0);
		sim_engine_run(eng, SIM_TIME_NEVER, 0); /* now at the turn's start */
		for (int i = 0; i < BURST; i++)
			sim_post(eng, base + sim_rng_below(&rng, 3000), 1, 0, noop, NULL, 0);
		size_t held = sim_engine_memory(eng);
		cr_assert_lt(held, (size_t)BURST * 50 + 2 * 1024 * 1024, "round %d: %zu bytes", round, held);
		sim_engine_run(eng, SIM_TIME_NEVER, 0);
		if (round == 0)
			after_first = sim_engine_memory(eng);
		else
			cr_assert_eq(sim_engine_memory(eng), after_first, "round %d grew the pool", round);
	}
	sim_engine_free(eng);
}

/* The queue against a plain model over wide times: ties, the wheel's turns, the radix
 * levels and huge times; timers armed, re-armed and cancelled; one-shots posted with new
 * and with earlier-taken sequences; peeks and runs stopped at limits in between. */
enum { WM_TIMERS = 32,
       WM_STEPS = 6000,
       WM_ITEMS = WM_TIMERS + WM_STEPS };

typedef struct wm_item {
	bool pending;
	sim_time at;
	uint64_t seq;
} wm_item;

typedef struct wide_model {
	wm_item item[WM_ITEMS];
	uint32_t n;
	uint64_t seq; /* mirrors the engine's sequence counter */
	uint64_t taken[64];
	uint32_t n_taken;
	run_log log;
} wide_model;

static int wm_next(const wide_model *m, sim_time until)
{
	int best = -1;
	for (uint32_t i = 0; i < m->n; i++) {
		const wm_item *it = &m->item[i];
		if (!it->pending || it->at > until)
			continue;
		if (best < 0 || it->at < m->item[best].at || (it->at == m->item[best].at && it->seq < m->item[best].seq))
			best = (int)i;
	}
	return best;
}

static void wm_ran(sim_engine *eng, sim_event *ev)
{
	wide_model *m = ev->ctx;
	cr_assert_lt(m->log.n, m->log.cap);
	/* the low 32 bits of the entity are the id; a posting carries it in its argument too,
	 * with high bits set now and then (the two-unit entries) */
	uint64_t id = ev->entity & 0xffffffffu;
	if (ev->owned)
		cr_assert_eq(ev->arg & 0xffffffffu, id, "argument %llx for id %llu", (unsigned long long)ev->arg,
		             (unsigned long long)id);
	m->log.at[m->log.n] = sim_now(eng);
	m->log.id[m->log.n++] = id;
}

/* A posting's entity and argument for id: plain, or with high bits in one of them. */
static void wm_fields(sim_rng *rng, uint32_t id, uint64_t *entity, uint64_t *arg)
{
	uint64_t wide = sim_rng_below(rng, 3);
	*entity = id | (wide == 1 ? 1ULL << 40 : 0);
	*arg = id | (wide == 2 ? 1ULL << 63 : 0);
}

static sim_time wm_time(sim_rng *rng, sim_time now)
{
	sim_time d;
	switch (sim_rng_below(rng, 10)) {
	case 0: d = 0; break;
	case 1: d = sim_rng_below(rng, 8); break;
	case 2: case 3: case 4: d = sim_rng_below(rng, 4096); break;
	case 5: d = 4096 - (now & 4095) + sim_rng_below(rng, 3) - 1; break; /* about the turn's end */
	case 6: d = sim_rng_below(rng, 1u << 20); break;
	case 7: d = sim_rng_below(rng, 1ULL << 36); break;
	case 8: d = sim_rng_below(rng, 1ULL << 62); break;
	default: { /* huge */
		sim_time t = SIM_TIME_NEVER - sim_rng_below(rng, 5000);
		return t < now ? now : t;
	}
	}
	return d > SIM_TIME_NEVER - now ? SIM_TIME_NEVER : now + d;
}

Test(engine_wheel, order_matches_a_plain_model_over_wide_times)
{
	sim_engine *eng = sim_engine_new(3);
	wide_model *m = calloc(1, sizeof(*m));
	m->log = log_new(WM_ITEMS * 2);
	sim_rng rng;
	sim_engine_rng(eng, "test.wide_model", 0, &rng);
	sim_event timers[WM_TIMERS];
	for (uint32_t i = 0; i < WM_TIMERS; i++)
		sim_event_init(&timers[i], 1, i, wm_ran, m);
	m->n = WM_TIMERS;
	size_t checked = 0;
	sim_time now = 0;
	for (int step = 0; step < WM_STEPS; step++) {
		uint64_t op = sim_rng_below(&rng, 12);
		sim_time at = wm_time(&rng, now);
		if (op <= 2) {
			uint32_t k = (uint32_t)sim_rng_below(&rng, WM_TIMERS);
			sim_event_schedule(eng, &timers[k], at);
			m->item[k] = (wm_item){ true, at, ++m->seq };
		} else if (op == 3) {
			uint32_t k = (uint32_t)sim_rng_below(&rng, WM_TIMERS);
			sim_event_cancel(eng, &timers[k]);
			m->item[k].pending = false;
		} else if (op <= 5) {
			uint32_t id = m->n++;
			uint64_t entity, arg;
			wm_fields(&rng, id, &entity, &arg);
			sim_post(eng, at, 1, entity, wm_ran, m, arg);
			m->item[id] = (wm_item){ true, at, ++m->seq };
		} else if (op == 6 && m->n_taken < 64) {
			m->taken[m->n_taken++] = sim_engine_take_seq(eng);
			cr_assert_eq(m->taken[m->n_taken - 1], ++m->seq);
		} else if (op == 7 && m->n_taken) {
			/* an earlier-taken sequence, any one of them */
			uint32_t j = (uint32_t)sim_rng_below(&rng, m->n_taken);
			uint64_t s = m->taken[j];
			m->taken[j] = m->taken[--m->n_taken];
			uint32_t id = m->n++;
			uint64_t entity, arg;
			wm_fields(&rng, id, &entity, &arg);
			sim_post_seq(eng, at, s, 1, entity, wm_ran, m, arg);
			m->item[id] = (wm_item){ true, at, s };
		} else if (op == 8) {
			int b = wm_next(m, SIM_TIME_NEVER);
			sim_time t = sim_engine_next_time(eng);
			if (b < 0)
				cr_assert_eq(t, SIM_TIME_NEVER);
			else
				cr_assert_leq(t, m->item[b].at); /* a timer re-armed later shows its old time */
		} else {
			/* mostly short runs; now and then a long one */
			sim_time until = sim_rng_below(&rng, 4) ? wm_time(&rng, now) : SIM_TIME_NEVER;
			if (until > now + (1ULL << 40) && sim_rng_below(&rng, 2))
				until = now + sim_rng_below(&rng, 100000);
			sim_run_result rr = sim_engine_run(eng, until, 0);
			sim_time expect = now;
			int b;
			while ((b = wm_next(m, until)) >= 0) {
				m->item[b].pending = false;
				cr_assert_lt(checked, m->log.n, "step %d: the engine ran too little", step);
				cr_assert_eq(m->log.id[checked], (uint64_t)b, "step %d: run %zu: %llu, expected %d", step, checked,
				             (unsigned long long)m->log.id[checked], b);
				cr_assert_eq(m->log.at[checked], m->item[b].at, "step %d: item %d ran at %llu, expected %llu (seq %llu)", step, b, (unsigned long long)m->log.at[checked], (unsigned long long)m->item[b].at, (unsigned long long)m->item[b].seq);
				if (m->item[b].at > expect)
					expect = m->item[b].at;
				checked++;
			}
			cr_assert_eq(checked, m->log.n, "step %d: the engine ran too much", step);
			if (rr == SIM_RUN_TIME && until > expect)
				expect = until;
			cr_assert_eq(sim_now(eng), expect, "step %d", step);
			now = expect;
		}
		size_t pending = 0;
		for (uint32_t i = 0; i < m->n; i++)
			pending += m->item[i].pending;
		cr_assert_eq(sim_engine_pending(eng), pending, "step %d", step);
	}
	cr_assert_gt(checked, WM_STEPS / 8);
	for (uint32_t i = 0; i < WM_TIMERS; i++)
		sim_event_cancel(eng, &timers[i]);
	log_free(&m->log);
	free(m);
	sim_engine_free(eng);
}
