/* Memory through the host's allocator (ngtcp2_mem style). Every allocation carries a
 * small header with its size so the context can report the bytes it holds and a test can
 * count or fail allocations through its own smcr_mem. Buffers go to the host's buffer
 * hooks when it has them (no header: they stay page aligned) and the core tells it when
 * a buffer's bytes are no longer needed. */
#include "model/mem_int.h"

#include <stdlib.h>
#include <string.h>

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
	if (ctx->mem.free_sized)
		ctx->mem.free_sized(h, sizeof(mem_hdr) + h->size, ctx->mem.user);
	else
		ctx->mem.free(h, ctx->mem.user);
}

/* Buffers (RMBs, send buffers): the host's lazy store when it has one, else calloc. */

static bool lazy(const smcr_ctx *ctx)
{
	const smcr_mem *m = &ctx->mem;
	return m->buf_alloc && m->buf_free && m->buf_reset && m->buf_idle;
}

void *smcr_buf_mem_alloc(smcr_ctx *ctx, size_t n)
{
	if (!lazy(ctx))
		return smcr_alloc(ctx, n);
	void *p = ctx->mem.buf_alloc(n, ctx->mem.user);
	if (p)
		ctx->mem_bytes += n;
	return p;
}

void smcr_buf_mem_free(smcr_ctx *ctx, void *p, size_t n)
{
	if (!lazy(ctx)) {
		smcr_free(ctx, p);
		return;
	}
	if (!p)
		return;
	ctx->mem_bytes -= n;
	ctx->mem.buf_free(p, n, ctx->mem.user);
}

void smcr_buf_mem_reset(smcr_ctx *ctx, void *p, size_t n)
{
	if (lazy(ctx))
		ctx->mem.buf_reset(p, n, ctx->mem.user);
	else
		memset(p, 0, n);
}

void smcr_buf_mem_write(smcr_ctx *ctx, void *p, size_t n)
{
	if (ctx->mem.buf_write)
		ctx->mem.buf_write(p, n, ctx->mem.user);
}

bool smcr_buf_mem_idle(smcr_ctx *ctx, void *p, size_t n, bool idle, uint64_t peer_bytes)
{
	if (!lazy(ctx))
		return false;
	ctx->mem.buf_idle(p, n, idle, peer_bytes, ctx->mem.user);
	return true;
}
