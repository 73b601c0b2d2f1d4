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
