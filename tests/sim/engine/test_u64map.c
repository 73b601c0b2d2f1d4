/* The 64-bit-keyed hash map: put, get, replace, delete with backward shift, growth. */
#include <criterion/criterion.h>
#include <stdint.h>

#include "sim/engine/u64map.h"

static void *v(uint64_t k) { return (void *)(uintptr_t)(k * 8 + 8); }

Test(u64map, an_empty_map_finds_nothing)
{
	u64map m = { 0 };
	cr_assert_null(u64map_get(&m, 42));
	cr_assert_null(u64map_del(&m, 42));
	cr_assert_eq(u64map_count(&m), 0);
	u64map_free(&m);
}

Test(u64map, put_get_replace_delete)
{
	u64map m = { 0 };
	u64map_put(&m, 7, v(7));
	u64map_put(&m, 9, v(9));
	cr_assert_eq(u64map_get(&m, 7), v(7));
	cr_assert_eq(u64map_get(&m, 9), v(9));
	u64map_put(&m, 7, v(70));
	cr_assert_eq(u64map_count(&m), 2, "replacing does not add");
	cr_assert_eq(u64map_get(&m, 7), v(70));
	cr_assert_eq(u64map_del(&m, 7), v(70));
	cr_assert_null(u64map_get(&m, 7));
	cr_assert_eq(u64map_get(&m, 9), v(9));
	cr_assert_eq(u64map_count(&m), 1);
	u64map_free(&m);
}

/* Against a plain array as the model: many keys, deletions in the middle of probe runs
 * (keys that collide in a small table), growth, every key checked after every step. */
Test(u64map, agrees_with_a_model_through_growth_and_deletions)
{
	enum { N = 3000 };
	static uint8_t present[N];
	u64map m = { 0 };
	uint64_t x = 12345;
	for (int step = 0; step < 20000; step++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		uint64_t k = 1 + (x >> 33) % N;
		if ((x >> 20) & 1) {
			u64map_put(&m, k, v(k));
			present[k - 1] = 1;
		} else {
			void *got = u64map_del(&m, k);
			cr_assert_eq(got, present[k - 1] ? v(k) : NULL, "step %d key %llu", step, (unsigned long long)k);
			present[k - 1] = 0;
		}
		if (step % 997 == 0) {
			size_t n = 0;
			for (uint64_t j = 1; j <= N; j++) {
				cr_assert_eq(u64map_get(&m, j), present[j - 1] ? v(j) : NULL, "step %d key %llu", step,
				             (unsigned long long)j);
				n += present[j - 1];
			}
			cr_assert_eq(u64map_count(&m), n);
			cr_assert_leq(2 * u64map_count(&m), m.cap);
		}
	}
	u64map_free(&m);
}
