/* Memory (mem.c): zeroed allocations from the host's allocator, counted in the context's
 * mem_bytes; buffers through its optional buffer hooks. */
#ifndef SMCR_MEM_INT_H
#define SMCR_MEM_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct smcr_ctx smcr_ctx;

void *smcr_alloc(smcr_ctx *ctx, size_t n);
void smcr_free(smcr_ctx *ctx, void *p);

/* RMBs and send buffers (smcr_mem's buffer hooks, or the allocation above), counted in
 * mem_bytes too: zeroed memory, zeroed again for reuse, and the news that its bytes are
 * no longer needed or are about to be written (smcr_mem buf_idle; false: no hooks). */
void *smcr_buf_mem_alloc(smcr_ctx *ctx, size_t n);
void smcr_buf_mem_free(smcr_ctx *ctx, void *p, size_t n);
void smcr_buf_mem_reset(smcr_ctx *ctx, void *p, size_t n);
bool smcr_buf_mem_idle(smcr_ctx *ctx, void *p, size_t n, bool idle, uint64_t peer_bytes);
/* The core is about to write n bytes at p of a send buffer (smcr_mem buf_write). */
void smcr_buf_mem_write(smcr_ctx *ctx, void *p, size_t n);

#endif
