/* An intrusive hash index (index.c): objects embed a smcr_index_node and are found by a
 * 64-bit key in constant expected time, for lookups on per-frame and per-completion paths
 * that would otherwise walk every object of a context.
 *
 * For finding only: the index has no iteration, so nothing ordered by hash reaches an
 * output. Nodes with the same key are found in the order they were added (creation order
 * where callers add at creation), which lets a caller keep "the first match in creation
 * order" semantics with a key that narrows the candidates.
 *
 * Adding never fails: the table starts in the index itself and grows when memory allows;
 * when it cannot grow, chains get longer and everything stays correct. */
#ifndef SMCR_INDEX_INT_H
#define SMCR_INDEX_INT_H

#include <stdbool.h>
#include <stdint.h>

typedef struct smcr_ctx smcr_ctx;

typedef struct smcr_index_node {
	struct smcr_index_node *next; /* the bucket's chain */
	uint64_t key;
} smcr_index_node;

#define SMCR_INDEX_SMALL 8 /* buckets held inside the index (a power of two) */

typedef struct smcr_index {
	smcr_index_node **buckets; /* NULL: the small table below */
	uint32_t mask;             /* buckets - 1 */
	uint32_t count;
	smcr_index_node *small[SMCR_INDEX_SMALL];
} smcr_index;

void smcr_index_init(smcr_index *ix);
/* Frees a grown table (the nodes are the caller's); the index is empty afterwards. */
void smcr_index_clear(smcr_ctx *ctx, smcr_index *ix);
/* Adds n under key after any nodes already there with the same key. n must not be in an
 * index. ctx supplies memory for growing. */
void smcr_index_add(smcr_ctx *ctx, smcr_index *ix, smcr_index_node *n, uint64_t key);
/* Removes n; a node that is not in the index is left alone. */
void smcr_index_del(smcr_index *ix, smcr_index_node *n);
/* The first node added under key, or NULL; then the next one under the same key. */
smcr_index_node *smcr_index_find(const smcr_index *ix, uint64_t key);
smcr_index_node *smcr_index_next(const smcr_index_node *n);
uint32_t smcr_index_count(const smcr_index *ix);

#endif
