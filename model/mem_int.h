/* Memory (mem.c): zeroed allocations from the host's allocator, counted in the context's
 * mem_bytes. */
#ifndef SMCR_MEM_INT_H
#define SMCR_MEM_INT_H

#include <stddef.h>

typedef struct smcr_ctx smcr_ctx;

void *smcr_alloc(smcr_ctx *ctx, size_t n);
void smcr_free(smcr_ctx *ctx, void *p);

#endif
