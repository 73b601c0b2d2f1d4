/* The event engine: ordering, tie-breaking, cancellation, run limits, fingerprints. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "sim/engine/engine.h"

typedef struct trace {
	uint64_t seen[64];
	sim_time when[64];
	int n;
} trace;

static void record(sim_engine *eng, sim_event *ev)
{
	trace *t = ev->ctx;
	cr_assert_lt(t->n, 64);
	t->when[t->n] = sim_now(eng);
	t->seen[t->n++] = ev->arg ? ev->arg : ev->entity;
}

Test(engine, runs_events_in_time_order)
{
	sim_engine *eng = sim_engine_new(1);
	trace t = { 0 };
	sim_post(eng, 300, 1, 0, record, &t, 3);
	sim_post(eng, 100, 1, 0, record, &t, 1);
	sim_post(eng, 200, 1, 0, record, &t, 2);
	cr_assert_eq(sim_engine_run(eng, SIM_TIME_NEVER, 0), SIM_RUN_IDLE);
	cr_assert_eq(t.n, 3);
	for (int i = 0; i < 3; i++) {
		cr_assert_eq(t.seen[i], (uint64_t)i + 1);
		cr_assert_eq(t.when[i], (sim_time)(i + 1) * 100);
	}
	sim_engine_free(eng);
}

Test(engine, equal_times_run_in_scheduling_order)
{
	sim_engine *eng = sim_engine_new(1);
	trace t = { 0 };
	for (uint64_t i = 1; i <= 20; i++)
		sim_post(eng, 500, 1, 0, record, &t, i);
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
	cr_assert_eq(t.n, 20);
	for (int i = 0; i < 20; i++)
		cr_assert_eq(t.seen[i], (uint64_t)i + 1, "position %d ran event %llu", i,
		             (unsigned long long)t.seen[i]);
	sim_engine_free(eng);
}

Test(engine, rearming_moves_an_event_behind_its_equal_time_peers)
{
	sim_engine *eng = sim_engine_new(1);
	trace t = { 0 };
	sim_event a, b;
	sim_event_init(&a, 1, 10, record, &t);
	sim_event_init(&b, 1, 20, record, &t);
	sim_event_schedule(eng, &a, 50);
	sim_event_schedule(eng, &b, 50);
	sim_event_schedule(eng, &a, 50); /* re-armed: now after b */
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
	cr_assert_eq(t.n, 2);
	cr_assert_eq(t.seen[0], 20);
	cr_assert_eq(t.seen[1], 10);
	sim_engine_free(eng);
}

Test(engine, cancelled_timer_never_runs)
{
	sim_engine *eng = sim_engine_new(1);
	trace t = { 0 };
	sim_event a, b;
	sim_event_init(&a, 1, 10, record, &t);
	sim_event_init(&b, 1, 20, record, &t);
	sim_event_schedule(eng, &a, 10);
	sim_event_schedule(eng, &b, 20);
	cr_assert(sim_event_pending(&a));
	sim_event_cancel(eng, &a);
	cr_assert_not(sim_event_pending(&a));
	sim_event_cancel(eng, &a); /* twice is harmless */
	cr_assert_eq(sim_engine_pending(eng), 1);
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
	cr_assert_eq(t.n, 1);
	cr_assert_eq(t.seen[0], 20);
	sim_engine_free(eng);
}

Test(engine, cancel_then_free_memory_is_safe)
{
	/* a stale queue entry must never touch the event's memory again */
	sim_engine *eng = sim_engine_new(1);
	trace t = { 0 };
	sim_event *a = malloc(sizeof(*a));
	sim_event_init(a, 1, 10, record, &t);
	sim_event_schedule(eng, a, 10);
	sim_event_cancel(eng, a);
	memset(a, 0xAA, sizeof(*a));
	free(a);
	sim_post(eng, 20, 1, 7, record, &t, 0);
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
	cr_assert_eq(t.n, 1);
	cr_assert_eq(t.seen[0], 7);
	sim_engine_free(eng);
}

static void rearm_self(sim_engine *eng, sim_event *ev)
{
	trace *t = ev->ctx;
	record(eng, ev);
	if (t->n < 5)
		sim_event_schedule_in(eng, ev, 7);
}

Test(engine, handler_can_rearm_its_own_timer)
{
	sim_engine *eng = sim_engine_new(1);
	trace t = { 0 };
	sim_event a;
	sim_event_init(&a, 1, 3, rearm_self, &t);
	sim_event_schedule(eng, &a, 1);
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
	cr_assert_eq(t.n, 5);
	cr_assert_eq(t.when[4], 1 + 4 * 7);
	sim_engine_free(eng);
}

Test(engine, run_stops_at_time_limit_and_resumes)
{
	sim_engine *eng = sim_engine_new(1);
	trace t = { 0 };
	sim_post(eng, 100, 1, 1, record, &t, 0);
	sim_post(eng, 200, 1, 2, record, &t, 0);
	cr_assert_eq(sim_engine_run(eng, 150, 0), SIM_RUN_TIME);
	cr_assert_eq(sim_now(eng), 150);
	cr_assert_eq(t.n, 1);
	cr_assert_eq(sim_engine_next_time(eng), 200);
	/* scheduling below the time of a pending event after a peek is fine */
	sim_post(eng, 160, 1, 3, record, &t, 0);
	cr_assert_eq(sim_engine_run(eng, SIM_TIME_NEVER, 0), SIM_RUN_IDLE);
	cr_assert_eq(t.n, 3);
	cr_assert_eq(t.seen[1], 3);
	cr_assert_eq(t.seen[2], 2);
	sim_engine_free(eng);
}

Test(engine, run_stops_after_event_budget)
{
	sim_engine *eng = sim_engine_new(1);
	trace t = { 0 };
	for (int i = 0; i < 10; i++)
		sim_post(eng, (sim_time)i, 1, (uint64_t)i + 1, record, &t, 0);
	cr_assert_eq(sim_engine_run(eng, SIM_TIME_NEVER, 4), SIM_RUN_COUNT);
	cr_assert_eq(t.n, 4);
	cr_assert_eq(sim_engine_events_run(eng), 4);
	sim_engine_free(eng);
}

static void stopper(sim_engine *eng, sim_event *ev)
{
	record(eng, ev);
	sim_engine_stop(eng);
}

Test(engine, handler_can_stop_the_run)
{
	sim_engine *eng = sim_engine_new(1);
	trace t = { 0 };
	sim_post(eng, 1, 1, 1, stopper, &t, 0);
	sim_post(eng, 2, 1, 2, record, &t, 0);
	cr_assert_eq(sim_engine_run(eng, SIM_TIME_NEVER, 0), SIM_RUN_STOPPED);
	cr_assert_eq(t.n, 1);
	sim_engine_free(eng);
}

Test(engine, past_times_are_clamped_to_now)
{
	sim_engine *eng = sim_engine_new(1);
	trace t = { 0 };
	sim_post(eng, 100, 1, 1, record, &t, 0);
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
	sim_post(eng, 5, 1, 2, record, &t, 0);
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
	cr_assert_eq(t.when[1], 100);
	sim_engine_free(eng);
}

/* A random workload: timers armed, re-armed and cancelled, one-shots posting more. */
typedef struct churn {
	sim_rng rng;
	sim_event timers[64];
	uint64_t budget;
} churn;

static void churn_step(sim_engine *eng, sim_event *ev)
{
	churn *c = ev->ctx;
	if (c->budget == 0)
		return;
	c->budget--;
	uint64_t r = sim_rng_below(&c->rng, 4);
	sim_event *t = &c->timers[sim_rng_below(&c->rng, 64)];
	if (r == 0)
		sim_event_cancel(eng, t);
	else
		sim_event_schedule(eng, t, sim_now(eng) + sim_rng_below(&c->rng, 1000));
	sim_post(eng, sim_now(eng) + sim_rng_below(&c->rng, 500), sim_kind("churn.post"),
	         sim_rng_below(&c->rng, 1000), churn_step, c, 0);
}

static uint64_t churn_fingerprint(uint64_t seed)
{
	sim_engine *eng = sim_engine_new(seed);
	churn c = { .budget = 20000 };
	sim_engine_rng(eng, "test.churn", 0, &c.rng);
	for (int i = 0; i < 64; i++)
		sim_event_init(&c.timers[i], sim_kind("churn.timer"), (uint64_t)i, churn_step, &c);
	for (int i = 0; i < 16; i++)
		sim_post(eng, (sim_time)i, sim_kind("churn.post"), (uint64_t)i, churn_step, &c, 0);
	sim_time last = 0;
	while (sim_engine_run(eng, SIM_TIME_NEVER, 1) == SIM_RUN_COUNT) {
		cr_assert_geq(sim_now(eng), last, "time went backwards");
		last = sim_now(eng);
	}
	uint64_t fp = sim_engine_fingerprint(eng);
	cr_assert_eq(sim_engine_pending(eng), 0);
	sim_engine_free(eng);
	return fp;
}

Test(engine, same_seed_same_fingerprint)
{
	cr_assert_eq(churn_fingerprint(42), churn_fingerprint(42));
	cr_assert_eq(churn_fingerprint(7), churn_fingerprint(7));
}

Test(engine, different_seed_different_fingerprint)
{
	cr_assert_neq(churn_fingerprint(42), churn_fingerprint(43));
}

Test(engine, fingerprint_covers_kind_and_entity)
{
	uint64_t fp[3];
	for (int v = 0; v < 3; v++) {
		sim_engine *eng = sim_engine_new(1);
		trace t = { 0 };
		sim_post(eng, 10, v == 1 ? 2 : 1, v == 2 ? 9 : 8, record, &t, 0);
		sim_engine_run(eng, SIM_TIME_NEVER, 0);
		fp[v] = sim_engine_fingerprint(eng);
		sim_engine_free(eng);
	}
	cr_assert_neq(fp[0], fp[1]);
	cr_assert_neq(fp[0], fp[2]);
}

Test(engine, kinds_are_stable_hashes)
{
	cr_assert_eq(sim_kind("tcp.rto"), sim_kind("tcp.rto"));
	cr_assert_neq(sim_kind("tcp.rto"), sim_kind("tcp.rtx"));
}

static void count_run(sim_engine *eng, sim_event *ev)
{
	(void)eng;
	uint64_t *n = ev->ctx;
	(*n)++;
}

Test(engine, many_cancelled_timers_leave_the_live_ones_in_order)
{
	sim_engine *eng = sim_engine_new(1);
	enum { N = 5000 };
	sim_event *ev = calloc(N, sizeof *ev);
	trace t = { 0 };
	uint64_t stray = 0;
	for (uint64_t i = 0; i < N; i++) {
		bool keep = i % 1000 == 999;
		sim_event_init(&ev[i], 1, i + 1, keep ? record : count_run, keep ? (void *)&t : (void *)&stray);
		sim_event_schedule(eng, &ev[i], 1000 + (N - i) * 3); /* later ones first in time */
	}
	for (uint64_t i = 0; i < N; i++)
		if (i % 1000 != 999)
			sim_event_cancel(eng, &ev[i]);
	cr_assert_eq(sim_engine_pending(eng), N / 1000);
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
	cr_assert_eq(stray, 0, "a cancelled timer ran");
	cr_assert_eq(t.n, N / 1000);
	for (int i = 1; i < t.n; i++)
		cr_assert_lt(t.when[i - 1], t.when[i]);
	cr_assert_eq(t.seen[0], N, "the latest-scheduled one is the earliest in time");
	cr_assert_eq(sim_engine_pending(eng), 0);
	free(ev);
	sim_engine_free(eng);
}

Test(engine, rearm_later_then_earlier_fires_once_at_the_last_time)
{
	sim_engine *eng = sim_engine_new(1);
	trace t = { 0 };
	sim_event a;
	sim_event_init(&a, 1, 10, record, &t);
	sim_event_schedule(eng, &a, 100);
	sim_event_schedule(eng, &a, 500); /* later: deferred re-file */
	sim_event_schedule(eng, &a, 300); /* earlier than 500 but later than the entry at 100 */
	sim_post(eng, 200, 1, 20, record, &t, 0);
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
	cr_assert_eq(t.n, 2);
	cr_assert_eq(t.seen[0], 20);
	cr_assert_eq(t.when[1], 300);
	sim_event_schedule(eng, &a, 1000);
	sim_event_schedule(eng, &a, 400); /* earlier than the queued entry: moved */
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
	cr_assert_eq(t.n, 3);
	cr_assert_eq(t.when[2], 400);
	cr_assert_eq(sim_engine_pending(eng), 0);
	sim_engine_free(eng);
}

Test(engine, deferred_rearm_does_not_count_as_an_event)
{
	sim_engine *eng = sim_engine_new(1);
	trace t = { 0 };
	sim_event a;
	sim_event_init(&a, 1, 10, record, &t);
	sim_event_schedule(eng, &a, 100);
	for (sim_time k = 1; k <= 50; k++)
		sim_event_schedule(eng, &a, 100 + k * 10);
	cr_assert_eq(sim_engine_run(eng, SIM_TIME_NEVER, 1), SIM_RUN_COUNT);
	cr_assert_eq(t.n, 1);
	cr_assert_eq(t.when[0], 600);
	cr_assert_eq(sim_engine_events_run(eng), 1);
	sim_engine_free(eng);
}

/* Sequences taken in one order and posted in another, as wire FIFOs do: events of one
 * time posted as several interleaved sorted runs (and, separately, a reversed block) still
 * run in sequence order. */
enum { RUNS_N = 600 };

typedef struct seq_log {
	uint64_t seen[RUNS_N];
	uint32_t n;
} seq_log;

static void log_seq(sim_engine *eng, sim_event *ev)
{
	(void)eng;
	seq_log *l = ev->ctx;
	cr_assert_lt(l->n, RUNS_N);
	l->seen[l->n++] = ev->arg;
}

Test(engine, interleaved_runs_of_old_sequences_run_in_sequence_order)
{
	for (uint32_t groups = 1; groups <= 40; groups += 13) {
		sim_engine *eng = sim_engine_new(1);
		seq_log *l = calloc(1, sizeof(*l));
		uint64_t seq[RUNS_N];
		for (uint32_t i = 0; i < RUNS_N; i++)
			seq[i] = sim_engine_take_seq(eng);
		/* group g holds seq[g], seq[g + groups], ...; the groups are posted last first */
		for (uint32_t g = groups; g-- > 0;)
			for (uint32_t i = g; i < RUNS_N; i += groups)
				sim_post_seq(eng, 1000, seq[i], 1, 0, log_seq, l, seq[i]);
		cr_assert_eq(sim_engine_run(eng, SIM_TIME_NEVER, 0), SIM_RUN_IDLE);
		cr_assert_eq(l->n, RUNS_N);
		for (uint32_t i = 0; i < RUNS_N; i++)
			cr_assert_eq(l->seen[i], seq[i], "%u groups: position %u", groups, i);
		free(l);
		sim_engine_free(eng);
	}
	/* every run a single entry: the sequences posted in reverse */
	sim_engine *eng = sim_engine_new(1);
	seq_log *l = calloc(1, sizeof(*l));
	uint64_t first = sim_engine_take_seq(eng);
	for (uint32_t i = 1; i < RUNS_N; i++)
		sim_engine_take_seq(eng);
	for (uint32_t i = RUNS_N; i-- > 0;)
		sim_post_seq(eng, 77, first + i, 1, 0, log_seq, l, first + i);
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
	cr_assert_eq(l->n, RUNS_N);
	for (uint32_t i = 0; i < RUNS_N; i++)
		cr_assert_eq(l->seen[i], first + i, "reversed: position %u", i);
	free(l);
	sim_engine_free(eng);
}

/* The queue against a plain model: timers armed, re-armed (later and earlier) and
 * cancelled, one-shots posted, runs stopped at time limits and peeks in between (which
 * spread the queue ahead of time, so later postings land before its radix base). The
 * engine must run exactly the model's (time, latest arming) order. */
enum { MODEL_TIMERS = 48,
       MODEL_RUNS = 8192 };

typedef struct model_item {
	bool pending;
	sim_time at;
	uint64_t seq;
} model_item;

typedef struct model {
	model_item item[MODEL_TIMERS + MODEL_RUNS * 2];
	uint32_t n; /* items in use: timers first, then one-shots */
	uint64_t seq;
	uint64_t ran[MODEL_RUNS * 4];
	sim_time ran_at[MODEL_RUNS * 4];
	uint32_t nran;
} model;

static void model_ran(sim_engine *eng, sim_event *ev)
{
	model *m = ev->ctx;
	cr_assert_lt(m->nran, MODEL_RUNS * 4);
	m->ran_at[m->nran] = sim_now(eng);
	m->ran[m->nran++] = ev->entity;
}

/* The model's next item at or before `until`, or -1. */
static int model_next(const model *m, sim_time until)
{
	int best = -1;
	for (uint32_t i = 0; i < m->n; i++) {
		const model_item *it = &m->item[i];
		if (!it->pending || it->at > until)
			continue;
		if (best < 0 || it->at < m->item[best].at ||
		    (it->at == m->item[best].at && it->seq < m->item[best].seq))
			best = (int)i;
	}
	return best;
}

Test(engine, order_matches_a_plain_model)
{
	sim_engine *eng = sim_engine_new(7);
	model *m = calloc(1, sizeof(*m));
	sim_rng rng;
	sim_engine_rng(eng, "test.model", 0, &rng);
	sim_event timers[MODEL_TIMERS];
	for (uint32_t i = 0; i < MODEL_TIMERS; i++)
		sim_event_init(&timers[i], 1, i, model_ran, m);
	m->n = MODEL_TIMERS;
	uint32_t checked = 0;
	sim_time now = 0;
	for (int step = 0; step < MODEL_RUNS; step++) {
		uint64_t op = sim_rng_below(&rng, 8);
		/* times near now with many ties, and now and then far ahead */
		sim_time at = now + (sim_rng_below(&rng, 16) == 0 ? sim_rng_below(&rng, 1u << 20)
		                                                  : sim_rng_below(&rng, 40));
		if (op <= 2) {
			uint32_t k = (uint32_t)sim_rng_below(&rng, MODEL_TIMERS);
			sim_event_schedule(eng, &timers[k], at);
			m->item[k] = (model_item){ .pending = true, .at = at, .seq = ++m->seq };
		} else if (op == 3) {
			uint32_t k = (uint32_t)sim_rng_below(&rng, MODEL_TIMERS);
			sim_event_cancel(eng, &timers[k]);
			m->item[k].pending = false;
		} else if (op <= 5) {
			uint32_t id = m->n++;
			sim_post(eng, at, 1, id, model_ran, m, 0);
			m->item[id] = (model_item){ .pending = true, .at = at, .seq = ++m->seq };
		} else if (op == 6) {
			int b = model_next(m, SIM_TIME_NEVER);
			/* a timer re-armed later reports its queued (earlier) time until it surfaces */
			if (b < 0)
				cr_assert_eq(sim_engine_next_time(eng), SIM_TIME_NEVER);
			else
				cr_assert_leq(sim_engine_next_time(eng), m->item[b].at);
		} else {
			sim_time until = now + sim_rng_below(&rng, 60);
			sim_run_result rr = sim_engine_run(eng, until, 0);
			sim_time expect = now;
			int b;
			while ((b = model_next(m, until)) >= 0) {
				m->item[b].pending = false;
				cr_assert_lt(checked, m->nran, "step %d: the engine ran too little", step);
				cr_assert_eq(m->ran[checked], (uint64_t)b, "step %d: run %u", step, checked);
				cr_assert_eq(m->ran_at[checked], m->item[b].at);
				if (m->item[b].at > expect)
					expect = m->item[b].at;
				checked++;
			}
			cr_assert_eq(checked, m->nran, "step %d: the engine ran too much", step);
			/* stopped by the limit: time is the limit; out of events: the last one's */
			if (rr == SIM_RUN_TIME && until > expect)
				expect = until;
			cr_assert_eq(sim_now(eng), expect, "step %d", step);
			now = expect;
		}
		size_t pending = 0;
		for (uint32_t i = 0; i < m->n; i++)
			pending += m->item[i].pending;
		cr_assert_eq(sim_engine_pending(eng), pending);
	}
	cr_assert_gt(checked, MODEL_RUNS / 4);
	for (uint32_t i = 0; i < MODEL_TIMERS; i++)
		sim_event_cancel(eng, &timers[i]);
	sim_engine_free(eng);
	free(m);
}

/* sim_engine_ahead: what a handler sees of the one-shots queued after it, checked against
 * the order they then run in, across the queue's 15-entry blocks and in the sorted
 * (flat) form a time takes when postings of older sequences join it. */
typedef struct ahead_probe {
	int objs[64];
	int ran[64];
	int n;
	int lookup[64][6]; /* what each event's look saw, as object numbers (-1: nothing) */
} ahead_probe;

static ahead_probe *the_probe;

static void other_kind(sim_engine *eng, sim_event *ev)
{
	(void)eng;
	ahead_probe *p = the_probe;
	p->ran[p->n] = -1 - (int)(uintptr_t)ev->arg;
	p->n++;
}

static void look_ahead(sim_engine *eng, sim_event *ev)
{
	ahead_probe *p = the_probe;
	int i = (int)((int *)ev->ctx - p->objs);
	void *ctx[6];
	sim_engine_ahead(eng, look_ahead, ctx, 6);
	for (int k = 0; k < 6; k++)
		p->lookup[p->n][k] = ctx[k] ? (int)((int *)ctx[k] - p->objs) : -1;
	p->ran[p->n++] = i;
}

static void check_lookups(const ahead_probe *p)
{
	for (int j = 0; j < p->n; j++)
		for (int k = 0; k < 6; k++) {
			int want = j + 1 + k < p->n && p->ran[j + 1 + k] >= 0 ? p->ran[j + 1 + k] : -1;
			int got = p->lookup[j][k];
			if (p->ran[j] < 0)
				continue;
			/* a look may see less than is there (the end of what it reaches), never
			 * something else */
			cr_assert(got == want || got == -1, "event %d, %d ahead: saw %d, %d ran there", j, k, got, want);
		}
}

Test(engine, ahead_names_the_one_shots_that_run_next)
{
	static ahead_probe p;
	memset(&p, 0, sizeof p);
	the_probe = &p;
	sim_engine *eng = sim_engine_new(1);
	/* 40 at one time (three blocks), one of another handler in between, 3 later */
	for (int i = 0; i < 40; i++) {
		sim_post(eng, 100, 1, (uint64_t)i, look_ahead, &p.objs[i], 0);
		if (i == 20)
			sim_post(eng, 100, 2, 0, other_kind, NULL, 7);
	}
	for (int i = 40; i < 43; i++)
		sim_post(eng, 200, 1, (uint64_t)i, look_ahead, &p.objs[i], 0);
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
	cr_assert_eq(p.n, 44);
	check_lookups(&p);
	/* the first saw the five after it; inside the run a look reaches over block ends */
	for (int k = 0; k < 6; k++)
		cr_assert_eq(p.lookup[0][k], k + 1);
	for (int k = 0; k < 6; k++)
		cr_assert_eq(p.lookup[12][k], p.ran[13 + k] >= 0 ? p.ran[13 + k] : -1);
	/* the last at time 100 sees nothing of time 200's (another bucket) */
	cr_assert_eq(p.lookup[40][0], -1);
	sim_engine_free(eng);
}

Test(engine, ahead_sees_a_time_put_in_sequence_order)
{
	static ahead_probe p;
	memset(&p, 0, sizeof p);
	the_probe = &p;
	sim_engine *eng = sim_engine_new(1);
	/* sequences taken in one order, posted in another: the time is sorted before it runs */
	uint64_t seq[30];
	for (int i = 0; i < 30; i++)
		seq[i] = sim_engine_take_seq(eng);
	for (int i = 29; i >= 0; i--)
		sim_post_seq(eng, 50, seq[i], 1, (uint64_t)i, look_ahead, &p.objs[i], 0);
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
	cr_assert_eq(p.n, 30);
	for (int i = 0; i < 30; i++)
		cr_assert_eq(p.ran[i], i);
	check_lookups(&p);
	for (int j = 0; j < 24; j++)
		for (int k = 0; k < 6; k++)
			cr_assert_eq(p.lookup[j][k], j + 1 + k, "event %d, %d ahead", j, k);
	sim_engine_free(eng);
}
