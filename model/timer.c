/* Pulled timers: one binary min-heap per context, ordered by (expiry, arm sequence) so
 * timers due at the same time fire in the order they were armed, never by address. The
 * host asks smcr_ctx_next_expiry() and calls smcr_ctx_handle_expiry(); timers live inside
 * the objects they belong to and are cancelled before those are freed. */
#include "model/timer_int.h"

#include <string.h>

#include "model/ctx_int.h"
#include "model/mem_int.h"
#include "model/smcr.h"
#include "model/smcr_err.h"

void smcr_timer_init(smcr_timer *t, smcr_timer_kind kind, void *obj)
{
	t->at = 0;
	t->seq = 0;
	t->pos = 0;
	t->kind = (uint8_t)kind;
	t->obj = obj;
}

static bool before(const smcr_timer *a, const smcr_timer *b)
{
	return a->at < b->at || (a->at == b->at && a->seq < b->seq);
}

static void place(smcr_ctx *ctx, smcr_timer *t, uint32_t i)
{
	ctx->heap[i] = t;
	t->pos = i + 1;
}

static void sift_up(smcr_ctx *ctx, uint32_t i)
{
	smcr_timer *t = ctx->heap[i];
	while (i > 0) {
		uint32_t p = (i - 1) / 2;
		if (!before(t, ctx->heap[p]))
			break;
		place(ctx, ctx->heap[p], i);
		i = p;
	}
	place(ctx, t, i);
}

static void sift_down(smcr_ctx *ctx, uint32_t i)
{
	smcr_timer *t = ctx->heap[i];
	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, m = i;
		const smcr_timer *best = t;
		if (l < ctx->heap_len && before(ctx->heap[l], best)) {
			m = l;
			best = ctx->heap[l];
		}
		if (r < ctx->heap_len && before(ctx->heap[r], best))
			m = r;
		if (m == i)
			break;
		place(ctx, ctx->heap[m], i);
		i = m;
	}
	place(ctx, t, i);
}

static void remove_at(smcr_ctx *ctx, uint32_t i)
{
	smcr_timer *t = ctx->heap[i];
	t->pos = 0;
	ctx->heap_len--;
	if (i == ctx->heap_len)
		return;
	place(ctx, ctx->heap[ctx->heap_len], i);
	sift_down(ctx, i);
	sift_up(ctx, ctx->heap[i]->pos - 1);
}

void smcr_timer_cancel(smcr_ctx *ctx, smcr_timer *t)
{
	if (t->pos)
		remove_at(ctx, t->pos - 1);
}

int smcr_timer_reserve(smcr_ctx *ctx, int delta)
{
	/* Every object reserves heap room for its timers when it is created, so arming a
	 * timer never allocates and never fails. */
	if (delta < 0) {
		ctx->timers_reserved -= (uint32_t)-delta;
		return 0;
	}
	uint32_t need = ctx->timers_reserved + (uint32_t)delta;
	if (need > ctx->heap_cap) {
		uint32_t cap = ctx->heap_cap ? ctx->heap_cap : 64;
		while (cap < need)
			cap *= 2;
		smcr_timer **h = smcr_alloc(ctx, cap * sizeof(*h));
		if (!h)
			return SMCR_ERR_NOMEM;
		if (ctx->heap_len)
			memcpy(h, ctx->heap, ctx->heap_len * sizeof(*h));
		smcr_free(ctx, ctx->heap);
		ctx->heap = h;
		ctx->heap_cap = cap;
	}
	ctx->timers_reserved = need;
	return 0;
}

void smcr_timer_arm(smcr_ctx *ctx, smcr_timer *t, uint64_t at)
{
	smcr_timer_cancel(ctx, t);
	if (ctx->heap_len == ctx->heap_cap)
		return; /* cannot happen when every owner reserved its timers */
	t->at = at;
	t->seq = ++ctx->timer_seq;
	uint32_t i = ctx->heap_len++;
	place(ctx, t, i);
	sift_up(ctx, i);
}

smcr_timer *smcr_timer_pop_due(smcr_ctx *ctx, uint64_t now)
{
	if (!ctx->heap_len || ctx->heap[0]->at > now)
		return NULL;
	smcr_timer *t = ctx->heap[0];
	remove_at(ctx, 0);
	return t;
}

uint64_t smcr_timer_next(const smcr_ctx *ctx)
{
	return ctx->heap_len ? ctx->heap[0]->at : SMCR_NEVER;
}
