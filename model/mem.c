/* Memory through the host's allocator (ngtcp2_mem style). Every allocation carries a
 * small header with its size so the context can report the bytes it holds and a test can
 * count or fail allocations through its own smcr_mem. */
#include "model/mem_int.h"

#include <stdlib.h>

#include "model/ctx_int.h"
#include "model/smcr.h"

typedef struct mem_hdr {
	size_t size;
	size_t pad; /* keeps the payload 16-byte aligned */
} mem_hdr;

static void *libc_malloc(size_t size, void *user)
{
	(void)user;
	return malloc(size);
}

static void libc_free(void *ptr, void *user)
{
	(void)user;
	free(ptr);
}

static void *libc_calloc(size_t nmemb, size_t size, void *user)
{
	(void)user;
	return calloc(nmemb, size);
}

static const smcr_mem libc_mem = { NULL, libc_malloc, libc_free, libc_calloc };

const smcr_mem *smcr_mem_default(void) { return &libc_mem; }

void *smcr_alloc(smcr_ctx *ctx, size_t n)
{
	if (n > SIZE_MAX - sizeof(mem_hdr))
		return NULL;
	mem_hdr *h = ctx->mem.calloc(1, sizeof(mem_hdr) + n, ctx->mem.user);
	if (!h)
		return NULL;
	h->size = n;
	ctx->mem_bytes += n;
	return h + 1;
}

void smcr_free(smcr_ctx *ctx, void *p)
{
	if (!p)
		return;
	mem_hdr *h = (mem_hdr *)p - 1;
	ctx->mem_bytes -= h->size;
	ctx->mem.free(h, ctx->mem.user);
}
