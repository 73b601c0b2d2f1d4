/* The core's allocator hooks (model/mem.c, smcr_mem): every block it takes from the host
 * goes back, through free_sized with the size it was asked for when the host gives that
 * hook (so the host keeps its count without a header of its own), else through free. */
#include <criterion/criterion.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "model/smcr.h"
#include "model/smcr_transport.h"

typedef struct counting {
	size_t allocs, frees, sized_frees;
	size_t outstanding; /* bytes asked for and not given back (sized frees only) */
	size_t bad_sizes;   /* sized frees whose size was not the block's */
} counting;

/* Each block remembers its size out of band (a small table), so that a wrong size given
 * back is seen. */
#define MAX_BLOCKS 4096
static struct {
	void *p;
	size_t n;
} blocks[MAX_BLOCKS];

static void remember(void *p, size_t n)
{
	for (size_t i = 0; i < MAX_BLOCKS; i++)
		if (!blocks[i].p) {
			blocks[i].p = p;
			blocks[i].n = n;
			return;
		}
	cr_assert_fail("more blocks than the test's table holds");
}

static size_t forget(void *p)
{
	for (size_t i = 0; i < MAX_BLOCKS; i++)
		if (blocks[i].p == p) {
			blocks[i].p = NULL;
			return blocks[i].n;
		}
	cr_assert_fail("a block given back that the host never handed out");
	return 0;
}

static void *c_calloc(size_t m, size_t n, void *user)
{
	counting *c = user;
	void *p = calloc(m, n);
	c->allocs++;
	c->outstanding += m * n;
	remember(p, m * n);
	return p;
}
static void *c_malloc(size_t n, void *user) { return c_calloc(1, n, user); }
static void c_free(void *p, void *user)
{
	counting *c = user;
	if (!p)
		return;
	c->frees++;
	c->outstanding -= forget(p);
	free(p);
}
static void c_free_sized(void *p, size_t size, void *user)
{
	counting *c = user;
	if (!p)
		return;
	c->sized_frees++;
	size_t n = forget(p);
	c->bad_sizes += n != size;
	c->outstanding -= size;
	free(p);
}

static void t_rand(void *user, uint8_t *dst, size_t len)
{
	(void)user;
	memset(dst, 7, len);
}
static int t_clc_send(void *user, smcr_conn *conn, const uint8_t *b, size_t n)
{
	(void)user;
	(void)conn;
	(void)b;
	(void)n;
	return 0;
}
static const smcr_transport_ops no_ops;

/* A context that allocates and frees: made and freed through the public API. */
static void exercise(const smcr_mem *mem)
{
	memset(blocks, 0, sizeof blocks);
	smcr_settings s;
	smcr_settings_default(&s);
	smcr_callbacks cb;
	memset(&cb, 0, sizeof(cb));
	cb.rand = t_rand;
	cb.clc_send = t_clc_send;
	smcr_ctx *ctx;
	cr_assert_eq(smcr_ctx_new(&ctx, &s, &cb, NULL, &no_ops, NULL, mem, 0), 0);
	smcr_ctx_free(ctx);
}

Test(mem, with_free_sized_every_block_comes_back_with_its_size_and_free_is_not_used)
{
	counting c = { 0 };
	smcr_mem mem = { &c, c_malloc, c_free, c_calloc };
	mem.free_sized = c_free_sized;
	exercise(&mem);
	cr_assert_gt(c.allocs, 0, "the context allocates");
	cr_assert_eq(c.sized_frees, c.allocs);
	cr_assert_eq(c.frees, 0);
	cr_assert_eq(c.bad_sizes, 0);
	cr_assert_eq(c.outstanding, 0);
}

Test(mem, without_free_sized_every_block_comes_back_through_free)
{
	counting c = { 0 };
	smcr_mem mem = { &c, c_malloc, c_free, c_calloc };
	exercise(&mem);
	cr_assert_gt(c.allocs, 0);
	cr_assert_eq(c.frees, c.allocs);
	cr_assert_eq(c.sized_frees, 0);
	cr_assert_eq(c.outstanding, 0);
}
