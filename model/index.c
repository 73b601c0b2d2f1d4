/* The intrusive hash index (index_int.h): chained buckets, a power of two of them, the
 * bucket chosen by the high bits of a multiplicative hash of the key. Chains keep the
 * order nodes were added in, and growing keeps it too (nodes with one key always share a
 * bucket), so equal keys come back in the order they went in. */
#include "model/index_int.h"

#include <stddef.h>

#include "model/mem_int.h"

#define INDEX_MAX_BUCKETS (1u << 30)

static smcr_index_node **table(const smcr_index *ix)
{
	return ix->buckets ? ix->buckets : (smcr_index_node **)ix->small;
}

static uint32_t bucket_of(uint64_t key, uint32_t mask)
{
	/* Fibonacci hashing: sequential ids spread over the whole table. */
	uint64_t h = key * 0x9E3779B97F4A7C15ull;
	return (uint32_t)(h >> 32) & mask;
}

void smcr_index_init(smcr_index *ix)
{
	ix->buckets = NULL;
	ix->mask = SMCR_INDEX_SMALL - 1;
	ix->count = 0;
	for (uint32_t i = 0; i < SMCR_INDEX_SMALL; i++)
		ix->small[i] = NULL;
}

void smcr_index_clear(smcr_ctx *ctx, smcr_index *ix)
{
	smcr_free(ctx, ix->buckets);
	smcr_index_init(ix);
}

static void append(smcr_index_node **slot, smcr_index_node *n)
{
	while (*slot)
		slot = &(*slot)->next;
	n->next = NULL;
	*slot = n;
}

/* Doubles the table when memory allows; without it the index carries on as it is. */
static void grow(smcr_ctx *ctx, smcr_index *ix)
{
	uint32_t old_n = ix->mask + 1;
	if (old_n >= INDEX_MAX_BUCKETS)
		return;
	uint32_t new_n = old_n * 2;
	smcr_index_node **nb = smcr_alloc(ctx, (size_t)new_n * sizeof(*nb));
	if (!nb)
		return;
	smcr_index_node **ob = table(ix);
	for (uint32_t i = 0; i < old_n; i++) {
		smcr_index_node *n = ob[i];
		while (n) {
			smcr_index_node *next = n->next;
			append(&nb[bucket_of(n->key, new_n - 1)], n);
			n = next;
		}
	}
	smcr_free(ctx, ix->buckets);
	ix->buckets = nb;
	ix->mask = new_n - 1;
}

void smcr_index_add(smcr_ctx *ctx, smcr_index *ix, smcr_index_node *n, uint64_t key)
{
	if (ix->count >= ix->mask + 1)
		grow(ctx, ix);
	n->key = key;
	append(&table(ix)[bucket_of(key, ix->mask)], n);
	ix->count++;
}

void smcr_index_del(smcr_index *ix, smcr_index_node *n)
{
	smcr_index_node **pp = &table(ix)[bucket_of(n->key, ix->mask)];
	while (*pp && *pp != n)
		pp = &(*pp)->next;
	if (!*pp)
		return;
	*pp = n->next;
	n->next = NULL;
	ix->count--;
}

smcr_index_node *smcr_index_find(const smcr_index *ix, uint64_t key)
{
	smcr_index_node *n = table(ix)[bucket_of(key, ix->mask)];
	while (n && n->key != key)
		n = n->next;
	return n;
}

smcr_index_node *smcr_index_next(const smcr_index_node *n)
{
	uint64_t key = n->key;
	for (n = n->next; n; n = n->next)
		if (n->key == key)
			return (smcr_index_node *)n;
	return NULL;
}

uint32_t smcr_index_count(const smcr_index *ix) { return ix->count; }
