/* The engine's packed queue entries: a one-shot in the wheel is a 32-byte unit whose time is
 * its slot's, whose sequence is a 30-bit offset from its block's base and whose entity and
 * argument are 32 bits (or whose argument is 0, with a 64-bit entity); anything that does
 * not fit takes a two-unit entry. These tests put values at and just past every packed
 * width and check that each event runs with exactly the fields it was posted with, in
 * (time, sequence) order. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "sim/engine/engine.h"

/* What ran: every field the handler saw. */
typedef struct seen {
	sim_time now, at;
	uint64_t entity, arg;
	uint32_t kind;
} seen;

typedef struct seen_log {
	seen *s;
	size_t n, cap;
} seen_log;

static void record(sim_engine *eng, sim_event *ev)
{
	seen_log *l = ev->ctx;
	cr_assert_lt(l->n, l->cap, "more events ran than were posted");
	l->s[l->n++] = (seen){ sim_now(eng), ev->at, ev->entity, ev->arg, ev->kind };
}

static seen_log seen_new(size_t cap)
{
	seen_log l = { calloc(cap, sizeof(seen)), 0, cap };
	cr_assert(l.s);
	return l;
}

/* Event i of the log has these fields. */
static void expect_seen(const seen_log *l, size_t i, sim_time at, uint32_t kind, uint64_t entity, uint64_t arg)
{
	cr_assert_lt(i, l->n, "event %zu did not run", i);
	const seen *s = &l->s[i];
	cr_assert_eq(s->now, at, "event %zu ran at %llu, expected %llu", i, (unsigned long long)s->now,
	             (unsigned long long)at);
	cr_assert_eq(s->at, at, "event %zu: ev->at %llu, expected %llu", i, (unsigned long long)s->at,
	             (unsigned long long)at);
	cr_assert_eq(s->kind, kind, "event %zu: kind %x, expected %x", i, s->kind, kind);
	cr_assert_eq(s->entity, entity, "event %zu: entity %llx, expected %llx", i, (unsigned long long)s->entity,
	             (unsigned long long)entity);
	cr_assert_eq(s->arg, arg, "event %zu: arg %llx, expected %llx", i, (unsigned long long)s->arg,
	             (unsigned long long)arg);
}

static const uint64_t limits[] = { 0, 1, 0xffffffffULL, 0x100000000ULL, 0x80000000ULL, UINT64_MAX, 0x123456789abcdefULL };
#define N_LIMITS (sizeof(limits) / sizeof(limits[0]))

Test(engine_units, entity_and_argument_at_and_past_32_bits)
{
	/* every pair of limit values at the current time, at a wheel slot and far ahead (a
	 * radix level), each with its own kind: all come back exactly, in posting order */
	sim_engine *eng = sim_engine_new(1);
	seen_log l = seen_new(3 * N_LIMITS * N_LIMITS);
	const sim_time at[3] = { 0, 1700, 1ULL << 36 };
	uint32_t kind = 0xfffffff0u;
	for (int t = 0; t < 3; t++)
		for (size_t a = 0; a < N_LIMITS; a++)
			for (size_t b = 0; b < N_LIMITS; b++)
				sim_post(eng, at[t], kind--, limits[a], record, &l, limits[b]);
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
	cr_assert_eq(l.n, 3 * N_LIMITS * N_LIMITS);
	size_t i = 0;
	kind = 0xfffffff0u;
	for (int t = 0; t < 3; t++)
		for (size_t a = 0; a < N_LIMITS; a++)
			for (size_t b = 0; b < N_LIMITS; b++)
				expect_seen(&l, i++, at[t], kind--, limits[a], limits[b]);
	free(l.s);
	sim_engine_free(eng);
}

Test(engine_units, packed_and_wide_entries_mix_in_one_slot_across_block_ends)
{
	/* slot 100 + k gets k compact postings, a wide one, then compact ones: the wide entry
	 * meets a block's last unit for some k (it pads and goes on in the next block) */
	enum { KMAX = 70 };
	sim_engine *eng = sim_engine_new(1);
	seen_log l = seen_new(KMAX * (KMAX + 6));
	for (uint32_t k = 0; k < KMAX; k++) {
		sim_time at = 100 + k;
		for (uint32_t i = 0; i < k; i++)
			sim_post(eng, at, k, i, record, &l, 0);
		sim_post(eng, at, k, 1ULL << 32 | k, record, &l, UINT64_MAX);
		for (uint32_t i = 0; i < 5; i++)
			sim_post(eng, at, k, 1000 + i, record, &l, i);
	}
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
	size_t n = 0;
	for (uint32_t k = 0; k < KMAX; k++) {
		sim_time at = 100 + k;
		for (uint32_t i = 0; i < k; i++)
			expect_seen(&l, n++, at, k, i, 0);
		expect_seen(&l, n++, at, k, 1ULL << 32 | k, UINT64_MAX);
		for (uint32_t i = 0; i < 5; i++)
			expect_seen(&l, n++, at, k, 1000 + i, i);
	}
	cr_assert_eq(l.n, n);
	free(l.s);
	sim_engine_free(eng);
}

/* Hand out `n` sequences without posting anything. */
static void burn_seqs(sim_engine *eng, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		(void)sim_engine_take_seq(eng);
}

#define PAST_OFFSET ((1ULL << 29) + 100) /* more than a compact unit's sequence offset holds */

Test(engine_units, sequence_offsets_past_the_packed_width_in_a_wheel_slot, .timeout = 60)
{
	/* slot 300: X opens a block; Y and Z come 2^29 sequences later (too far from the
	 * block's base for a compact unit); W (older than X) and V (between Y and Z) come with
	 * earlier-taken sequences, so the slot is sorted by sequence before it runs: a
	 * truncated offset would put Y, V or Z before X. Slot 400: P opens a block, Q comes
	 * with a sequence 2^29 older (a negative offset too far). */
	sim_engine *eng = sim_engine_new(1);
	seen_log l = seen_new(8);
	uint64_t s_w = sim_engine_take_seq(eng);
	uint64_t s_q = sim_engine_take_seq(eng);
	burn_seqs(eng, PAST_OFFSET);
	sim_post(eng, 400, 0, 'P', record, &l, 0);
	sim_post(eng, 300, 0, 'X', record, &l, 0);
	burn_seqs(eng, PAST_OFFSET);
	sim_post(eng, 300, 0, 'Y', record, &l, 0);
	uint64_t s_v = sim_engine_take_seq(eng);
	sim_post(eng, 300, 0, 'Z', record, &l, 0);
	sim_post_seq(eng, 300, s_w, 0, 'W', record, &l, 0);
	sim_post_seq(eng, 300, s_v, 0, 'V', record, &l, 0);
	sim_post_seq(eng, 400, s_q, 0, 'Q', record, &l, 0);
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
	const char want[] = "WXYVZQP";
	cr_assert_eq(l.n, sizeof(want) - 1);
	for (size_t i = 0; i < l.n; i++)
		expect_seen(&l, i, i < 5 ? 300 : 400, 0, (uint64_t)want[i], 0);
	free(l.s);
	sim_engine_free(eng);
}

/* The current-bucket case: E1's handler, at 500, hands out 2^29 sequences and posts F at
 * now, then G at now with a sequence taken between E2 and F: the bucket is put in
 * sequence order (E2, G, F) from what its units hold. */
typedef struct cur_case {
	seen_log *l;
	uint64_t s_g;
} cur_case;

static void cur_case_first(sim_engine *eng, sim_event *ev)
{
	cur_case *c = ev->ctx;
	record(eng, &(sim_event){ .at = ev->at, .ctx = c->l, .entity = ev->entity, .kind = ev->kind });
	burn_seqs(eng, PAST_OFFSET);
	sim_post(eng, sim_now(eng), 0, 'F', record, c->l, 0);
	sim_post_seq(eng, sim_now(eng), c->s_g, 0, 'G', record, c->l, 0);
}

Test(engine_units, sequence_offsets_past_the_packed_width_at_the_current_time, .timeout = 60)
{
	sim_engine *eng = sim_engine_new(1);
	seen_log l = seen_new(8);
	cur_case c = { &l, 0 };
	burn_seqs(eng, PAST_OFFSET); /* so that a truncated offset cannot wrap below zero */
	sim_post(eng, 500, 0, 'A', cur_case_first, &c, 0);
	sim_post(eng, 500, 0, 'B', record, &l, 0);
	c.s_g = sim_engine_take_seq(eng);
	sim_engine_run(eng, SIM_TIME_NEVER, 0);
	const char want[] = "ABGF";
	cr_assert_eq(l.n, sizeof(want) - 1);
	for (size_t i = 0; i < l.n; i++)
		expect_seen(&l, i, 500, 0, (uint64_t)want[i], 0);
	free(l.s);
	sim_engine_free(eng);
}

/* Near the end of time: the handler of an event at T posts compact and wide events just
 * ahead (wheel slots whose time is implied) and at T itself. */
static void post_near(sim_engine *eng, sim_event *ev)
{
	seen_log *l = ev->ctx;
	sim_time t = sim_now(eng);
	for (uint64_t d = 0; d < 8; d++) {
		sim_post(eng, t + d * 517, 7, d, record, l, d);
		sim_post(eng, t + d * 517, 7, UINT64_MAX - d, record, l, d);
	}
}

Test(engine_units, implied_times_near_the_end_of_time)
{
	const sim_time far[] = { (1ULL << 63) + 3, SIM_TIME_NEVER - 10000, (1ULL << 40) - 2 };
	for (size_t f = 0; f < sizeof(far) / sizeof(far[0]); f++) {
		sim_engine *eng = sim_engine_new(1);
		seen_log l = seen_new(16);
		sim_post(eng, far[f], 0, 0, post_near, &l, 0);
		sim_engine_run(eng, SIM_TIME_NEVER, 0);
		cr_assert_eq(l.n, 16);
		for (uint64_t d = 0; d < 8; d++) {
			expect_seen(&l, 2 * d, far[f] + d * 517, 7, d, d);
			expect_seen(&l, 2 * d + 1, far[f] + d * 517, 7, UINT64_MAX - d, d);
		}
		free(l.s);
		sim_engine_free(eng);
	}
}
