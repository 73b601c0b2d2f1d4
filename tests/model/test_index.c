/* The core's intrusive hash index (model/index_int.h): finding by key, equal keys in the
 * order they were added (also across growth), removal anywhere in a chain, collisions,
 * many entries, and an index that cannot grow because memory runs out. */
#include <criterion/criterion.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "model/index_int.h"
#include "model/smcr.h"
#include "model/smcr_transport.h"

typedef struct item {
	smcr_index_node node;
	uint64_t key;
	int seq;
	bool in;
} item;

static bool fail_allocs;

static void *t_malloc(size_t n, void *user)
{
	(void)user;
	return fail_allocs ? NULL : malloc(n);
}
static void t_free(void *p, void *user)
{
	(void)user;
	free(p);
}
static void *t_calloc(size_t m, size_t n, void *user)
{
	(void)user;
	return fail_allocs ? NULL : calloc(m, n);
}
static const smcr_mem t_mem = { NULL, t_malloc, t_free, t_calloc };

static void t_rand(void *user, uint8_t *dst, size_t len)
{
	(void)user;
	memset(dst, 7, len);
}
static int t_clc_send(void *user, smcr_conn *c, const uint8_t *b, size_t n)
{
	(void)user;
	(void)c;
	(void)b;
	(void)n;
	return 0;
}
static const smcr_transport_ops no_ops;

static smcr_ctx *ctx;

static void setup(void)
{
	fail_allocs = false;
	smcr_settings s;
	smcr_settings_default(&s);
	smcr_callbacks cb;
	memset(&cb, 0, sizeof(cb));
	cb.rand = t_rand;
	cb.clc_send = t_clc_send;
	cr_assert_eq(smcr_ctx_new(&ctx, &s, &cb, NULL, &no_ops, NULL, &t_mem, 0), 0);
}

static void teardown(void)
{
	fail_allocs = false;
	smcr_ctx_free(ctx);
}

#define ITEM_OF(n) ((item *)(void *)((char *)(n)-offsetof(item, node)))

static item *found(const smcr_index *ix, uint64_t key)
{
	smcr_index_node *n = smcr_index_find(ix, key);
	return n ? ITEM_OF(n) : NULL;
}

TestSuite(index, .init = setup, .fini = teardown);

Test(index, finds_what_was_added_and_nothing_else)
{
	smcr_index ix;
	smcr_index_init(&ix);
	item a = { .key = 1 }, b = { .key = 2 }, c = { .key = 0xFFFFFFFFFFFFFFFFull };
	smcr_index_add(ctx, &ix, &a.node, a.key);
	smcr_index_add(ctx, &ix, &b.node, b.key);
	smcr_index_add(ctx, &ix, &c.node, c.key);
	cr_assert_eq(found(&ix, 1), &a);
	cr_assert_eq(found(&ix, 2), &b);
	cr_assert_eq(found(&ix, 0xFFFFFFFFFFFFFFFFull), &c);
	cr_assert_null(found(&ix, 3));
	cr_assert_null(found(&ix, 0));
	cr_assert_eq(smcr_index_count(&ix), 3);
	smcr_index_clear(ctx, &ix);
}

Test(index, removal_of_head_middle_and_tail_of_a_chain)
{
	/* four nodes under one key: one chain */
	smcr_index ix;
	smcr_index_init(&ix);
	item it[4];
	for (int i = 0; i < 4; i++) {
		it[i] = (item){ .key = 5 };
		smcr_index_add(ctx, &ix, &it[i].node, 5);
	}
	smcr_index_del(&ix, &it[1].node); /* middle */
	smcr_index_node *n = smcr_index_find(&ix, 5);
	cr_assert_eq(n, &it[0].node);
	cr_assert_eq(smcr_index_next(n), &it[2].node);
	smcr_index_del(&ix, &it[0].node); /* head */
	cr_assert_eq(smcr_index_find(&ix, 5), &it[2].node);
	smcr_index_del(&ix, &it[3].node); /* tail */
	n = smcr_index_find(&ix, 5);
	cr_assert_eq(n, &it[2].node);
	cr_assert_null(smcr_index_next(n));
	smcr_index_del(&ix, &it[3].node); /* not in the index any more: no effect */
	cr_assert_eq(smcr_index_count(&ix), 1);
	smcr_index_del(&ix, &it[2].node);
	cr_assert_null(smcr_index_find(&ix, 5));
	cr_assert_eq(smcr_index_count(&ix), 0);
	smcr_index_clear(ctx, &ix);
}

Test(index, equal_keys_come_back_in_the_order_added_across_growth)
{
	enum { N = 3000,
	       GROUPS = 7 };
	smcr_index ix;
	smcr_index_init(&ix);
	item *it = calloc(N, sizeof(*it));
	for (int i = 0; i < N; i++) {
		it[i].key = (uint64_t)(i % GROUPS) << 40; /* seven keys, interleaved */
		it[i].seq = i;
		smcr_index_add(ctx, &ix, &it[i].node, it[i].key);
	}
	for (int g = 0; g < GROUPS; g++) {
		int last = -1, count = 0;
		for (smcr_index_node *n = smcr_index_find(&ix, (uint64_t)g << 40); n; n = smcr_index_next(n)) {
			item *x = ITEM_OF(n);
			cr_assert_eq(x->key, (uint64_t)g << 40);
			cr_assert_gt(x->seq, last, "key %d: %d after %d", g, x->seq, last);
			last = x->seq;
			count++;
		}
		cr_assert_eq(count, (N - g + GROUPS - 1) / GROUPS);
	}
	smcr_index_clear(ctx, &ix);
	free(it);
}

/* Many entries, removed and added again at random, checked against what is in. */
static void churn(int n, int rounds)
{
	smcr_index ix;
	smcr_index_init(&ix);
	item *it = calloc((size_t)n, sizeof(*it));
	uint64_t x = 88172645463325252ull;
	for (int i = 0; i < n; i++)
		it[i].key = (uint64_t)i * 1000003u + 17; /* distinct */
	for (int r = 0; r < rounds; r++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		item *p = &it[x % (uint64_t)n];
		if (p->in)
			smcr_index_del(&ix, &p->node);
		else
			smcr_index_add(ctx, &ix, &p->node, p->key);
		p->in = !p->in;
	}
	uint32_t in = 0;
	for (int i = 0; i < n; i++) {
		item *f = found(&ix, it[i].key);
		cr_assert_eq(f, it[i].in ? &it[i] : NULL, "item %d", i);
		if (f)
			cr_assert_null(smcr_index_next(&f->node));
		in += it[i].in;
	}
	cr_assert_eq(smcr_index_count(&ix), in);
	smcr_index_clear(ctx, &ix);
	free(it);
}

Test(index, many_entries_added_and_removed_at_random)
{
	churn(100000, 400000);
}

Test(index, without_memory_to_grow_it_stays_correct_in_its_small_table)
{
	fail_allocs = true;
	churn(2000, 8000);
}

Test(index, growth_stops_when_memory_runs_out_and_goes_on_when_it_is_back)
{
	enum { N = 500 };
	smcr_index ix;
	smcr_index_init(&ix);
	item *it = calloc(N, sizeof(*it));
	for (int i = 0; i < N; i++) {
		fail_allocs = i >= 100 && i < 300;
		it[i].key = (uint64_t)i;
		smcr_index_add(ctx, &ix, &it[i].node, it[i].key);
	}
	fail_allocs = false;
	for (int i = 0; i < N; i++)
		cr_assert_eq(found(&ix, (uint64_t)i), &it[i]);
	cr_assert_geq(ix.mask + 1, N, "grew again once memory was back");
	smcr_index_clear(ctx, &ix);
	free(it);
}
