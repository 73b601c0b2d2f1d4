/* Frame buffers and their free-list pool. */
#include "sim/fabric/frame.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sim_frame_pool {
	sim_frame *free_list;
	size_t in_use;
	sim_frame **all; /* every frame ever allocated, so teardown reclaims frames in flight */
	size_t allocated, cap_all;
};

sim_frame_pool *sim_frame_pool_new(void)
{
	sim_frame_pool *pool = calloc(1, sizeof(*pool));
	if (!pool)
		abort();
	return pool;
}

void sim_frame_pool_free(sim_frame_pool *pool)
{
	if (!pool)
		return;
	for (size_t i = 0; i < pool->allocated; i++)
		free(pool->all[i]);
	free(pool->all);
	free(pool);
}

size_t sim_frame_pool_in_use(const sim_frame_pool *pool) { return pool->in_use; }
size_t sim_frame_pool_allocated(const sim_frame_pool *pool) { return pool->allocated; }

sim_frame *sim_frame_alloc(sim_frame_pool *pool)
{
	sim_frame *f = pool->free_list;
	if (f) {
		pool->free_list = f->next;
	} else {
		/* only the header fields are initialised: the buffer is written before it is read */
		f = malloc(sizeof(*f));
		if (!f)
			abort();
		f->pool = pool;
		if (pool->allocated == pool->cap_all) {
			pool->cap_all = pool->cap_all ? pool->cap_all * 2 : 64;
			pool->all = realloc(pool->all, pool->cap_all * sizeof(*pool->all));
			if (!pool->all)
				abort();
		}
		pool->all[pool->allocated++] = f;
	}
	pool->in_use++;
	f->data = f->buf + SIM_FRAME_HEADROOM;
	f->len = 0;
	f->meta = 0;
	f->meta64 = 0;
	f->next = NULL;
	return f;
}

void sim_frame_free(sim_frame *f)
{
	if (!f)
		return;
	sim_frame_pool *pool = f->pool;
	f->next = pool->free_list;
	pool->free_list = f;
	pool->in_use--;
}

sim_frame *sim_frame_clone(const sim_frame *f)
{
	sim_frame *c = sim_frame_alloc(f->pool);
	c->data = c->buf + sim_frame_headroom(f);
	c->len = f->len;
	c->meta = f->meta;
	c->meta64 = f->meta64;
	memcpy(c->data, f->data, f->len);
	return c;
}

uint8_t *sim_frame_push(sim_frame *f, uint32_t n)
{
	if (n > sim_frame_headroom(f)) {
		fprintf(stderr, "sim_frame_push: %u bytes wanted, %u of headroom\n", n, sim_frame_headroom(f));
		abort();
	}
	f->data -= n;
	f->len += n;
	return f->data;
}

uint8_t *sim_frame_pull(sim_frame *f, uint32_t n)
{
	if (n > f->len)
		abort();
	f->data += n;
	f->len -= n;
	return f->data;
}

uint8_t *sim_frame_put(sim_frame *f, uint32_t n)
{
	if (n > sim_frame_tailroom(f)) {
		fprintf(stderr, "sim_frame_put: %u bytes wanted, %u of tailroom\n", n, sim_frame_tailroom(f));
		abort();
	}
	uint8_t *p = f->data + f->len;
	f->len += n;
	return p;
}

void sim_frame_trim(sim_frame *f, uint32_t len)
{
	if (len > f->len)
		abort();
	f->len = len;
}
