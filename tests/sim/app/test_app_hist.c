/* The applications' distributions (sim/app/app_hist.h): exact count, min, max and mean,
 * percentiles within 1/128 of the value at their rank, merging the same as recording
 * everything in one, memory bounded whatever is recorded. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "sim/app/app_hist.h"
#include "sim/engine/rng.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The value at rank ceil(n * num / den) of sorted v. */
static uint64_t exact_rank(const uint64_t *v, size_t n, uint64_t num, uint64_t den)
{
	uint64_t r = (n * num + den - 1) / den;
	return v[(r ? r : 1) - 1];
}

Test(app_hist, empty_reports_zero_and_holds_nothing)
{
	app_hist h = { 0 };
	cr_assert_eq(app_hist_stat(&h, APP_STAT_P99), 0);
	cr_assert_eq(app_hist_mean(&h), 0);
	cr_assert_null(h.b);
	app_hist_free(&h);
}

Test(app_hist, small_values_are_exact)
{
	app_hist h = { 0 };
	for (uint64_t v = 0; v < 128; v++)
		app_hist_add(&h, v);
	cr_assert_eq(app_hist_quantile(&h, 1, 2), 63);
	cr_assert_eq(app_hist_quantile(&h, 99, 100), 126);
	cr_assert_eq(app_hist_stat(&h, APP_STAT_MIN), 0);
	cr_assert_eq(app_hist_stat(&h, APP_STAT_MAX), 127);
	cr_assert_eq(app_hist_mean(&h), 63);
	app_hist_free(&h);
}

Test(app_hist, percentiles_within_one_128th_of_the_sorted_values)
{
	enum { N = 20000 };
	static uint64_t v[N];
	sim_rng rng;
	sim_rng_seed(&rng, 77);
	app_hist h = { 0 };
	uint64_t sum = 0;
	for (int i = 0; i < N; i++) {
		/* latencies from 1 us to about 4 ms, spread over many powers of two */
		v[i] = 1000 + (sim_rng_u64(&rng) >> (52 + i % 12));
		sum += v[i];
		app_hist_add(&h, v[i]);
	}
	qsort(v, N, sizeof(v[0]), cmp_u64);
	static const uint64_t q[][2] = { { 1, 2 }, { 9, 10 }, { 99, 100 }, { 999, 1000 }, { 1, 1000 }, { 1, 1 } };
	for (size_t k = 0; k < sizeof(q) / sizeof(q[0]); k++) {
		uint64_t want = exact_rank(v, N, q[k][0], q[k][1]);
		uint64_t got = app_hist_quantile(&h, q[k][0], q[k][1]);
		uint64_t diff = got > want ? got - want : want - got;
		cr_assert_leq(diff * APP_HIST_PRECISION, want, "%llu/%llu: %llu for %llu", (unsigned long long)q[k][0],
		              (unsigned long long)q[k][1], (unsigned long long)got, (unsigned long long)want);
	}
	cr_assert_eq(h.count, N);
	cr_assert_eq(h.min, v[0]);
	cr_assert_eq(h.max, v[N - 1]);
	cr_assert_eq(app_hist_mean(&h), sum / N);
	cr_assert_leq(h.n, 3776u);
	app_hist_free(&h);
}

Test(app_hist, merging_equals_recording_in_one)
{
	app_hist a = { 0 }, b = { 0 }, all = { 0 };
	for (uint64_t i = 1; i < 5000; i++) {
		uint64_t v = i * i * 37 % 900001;
		app_hist_add(i % 3 ? &a : &b, v);
		app_hist_add(&all, v);
	}
	app_hist_merge(&a, &b);
	for (int s = 0; s < APP_NSTATS; s++)
		cr_assert_eq(app_hist_stat(&a, (app_stat)s), app_hist_stat(&all, (app_stat)s), "%s", app_stat_name((app_stat)s));
	cr_assert_eq(a.count, all.count);
	app_hist_free(&a);
	app_hist_free(&b);
	app_hist_free(&all);
}

Test(app_hist, memory_is_bounded_whatever_comes)
{
	app_hist h = { 0 };
	app_hist_add(&h, 5000);
	cr_assert_leq(h.n, 32u, "one value: a few buckets (%u)", h.n);
	app_hist_add(&h, 0);
	app_hist_add(&h, UINT64_MAX);
	cr_assert_leq(h.n, 3776u);
	cr_assert_eq(app_hist_stat(&h, APP_STAT_MAX), UINT64_MAX);
	uint64_t mid = app_hist_quantile(&h, 1, 2);
	cr_assert_leq((mid > 5000 ? mid - 5000 : 5000 - mid) * APP_HIST_PRECISION, 5000, "the middle one: %llu",
	              (unsigned long long)mid);
	app_hist_free(&h);
}
