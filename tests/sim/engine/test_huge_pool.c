/* The pool of fixed-size blocks on huge-page slabs: distinct, aligned, writable blocks
 * across several slabs, reuse of a block given back, counts, destroy. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim/engine/huge_pool.h"

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t) * (void *const *)a, y = (uintptr_t) * (void *const *)b;
	return x < y ? -1 : x > y;
}

Test(huge_pool, blocks_are_distinct_aligned_and_span_slabs)
{
	sim_huge_pool p;
	sim_huge_pool_init(&p, 1088, "test blocks");
	enum { N = 5000 }; /* 5000 x 1088 bytes: three 2 MiB slabs */
	void **b = malloc(N * sizeof(*b));
	for (size_t i = 0; i < N; i++) {
		b[i] = sim_huge_pool_get(&p);
		cr_assert_eq((uintptr_t)b[i] % 64, 0, "block %zu aligned to a cache line", i);
		memset(b[i], (int)(i & 0xff), 1088);
	}
	cr_assert_eq(p.in_use, N);
	/* nothing overwrote another block */
	for (size_t i = 0; i < N; i++) {
		const unsigned char *c = b[i];
		cr_assert(c[0] == (i & 0xff) && c[1087] == (i & 0xff), "block %zu kept its bytes", i);
	}
	qsort(b, N, sizeof(*b), cmp_ptr);
	for (size_t i = 1; i < N; i++)
		cr_assert_geq((uintptr_t)b[i] - (uintptr_t)b[i - 1], 1088, "blocks %zu and %zu overlap", i - 1, i);
	cr_assert_geq(sim_huge_pool_bytes(&p), (size_t)N * 1088);
	free(b);
	sim_huge_pool_destroy(&p);
	cr_assert_eq(sim_huge_pool_bytes(&p), 0);
}

Test(huge_pool, a_block_given_back_is_the_next_one_out)
{
	sim_huge_pool p;
	sim_huge_pool_init(&p, 512, "test blocks");
	void *a = sim_huge_pool_get(&p), *b = sim_huge_pool_get(&p);
	cr_assert_neq(a, b);
	sim_huge_pool_put(&p, a);
	sim_huge_pool_put(&p, NULL); /* nothing */
	cr_assert_eq(p.in_use, 1);
	void *c = sim_huge_pool_get(&p);
	cr_assert_eq(c, a, "the block just given back (still in cache) comes out first");
	cr_assert_eq(p.in_use, 2);
	sim_huge_pool_put(&p, b);
	sim_huge_pool_put(&p, c);
	cr_assert_eq(p.in_use, 0);
	sim_huge_pool_destroy(&p);
}
