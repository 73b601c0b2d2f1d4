/* Fixed-size blocks from huge-page slabs (see huge_pool.h). */
#include "sim/engine/huge_pool.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sim/engine/asan_poison.h"
#include "sim/engine/oom.h"

#define SLAB_BYTES (2u * 1024 * 1024)

void sim_huge_pool_init(sim_huge_pool *p, size_t size, const char *what)
{
	memset(p, 0, sizeof(*p));
	p->size = size < sizeof(void *) ? sizeof(void *) : size;
	p->what = what;
}

/* Under AddressSanitizer a block given back is poisoned until handed out again, so a
 * use after sim_huge_pool_put() is caught although its memory stays in a slab. */

static void grow(sim_huge_pool *p)
{
	void *slab = NULL;
	if (posix_memalign(&slab, SLAB_BYTES, SLAB_BYTES))
		sim_out_of_memory(p->what, SLAB_BYTES);
#ifdef MADV_HUGEPAGE
	(void)madvise(slab, SLAB_BYTES, MADV_HUGEPAGE); /* only advice: fine if refused */
#endif
	if (p->n_slabs == p->cap_slabs) {
		p->cap_slabs = p->cap_slabs ? p->cap_slabs * 2 : 16;
		p->slabs = sim_xreallocarray(p->slabs, p->cap_slabs, sizeof(*p->slabs), p->what);
	}
	p->slabs[p->n_slabs++] = slab;
	p->cur = slab;
	p->end = p->cur + SLAB_BYTES / p->size * p->size;
}

void *sim_huge_pool_get(sim_huge_pool *p)
{
	void *b = p->free_list;
	if (b) {
		SIM_UNPOISON(b, p->size);
		memcpy(&p->free_list, b, sizeof(void *));
	} else {
		if (p->cur == p->end)
			grow(p);
		b = p->cur;
		p->cur += p->size;
	}
	p->in_use++;
	return b;
}

void sim_huge_pool_put(sim_huge_pool *p, void *block)
{
	if (!block)
		return;
	memcpy(block, &p->free_list, sizeof(void *));
	p->free_list = block;
	p->in_use--;
	SIM_POISON(block, p->size);
}

void sim_huge_pool_destroy(sim_huge_pool *p)
{
	for (size_t i = 0; i < p->n_slabs; i++) {
		SIM_UNPOISON(p->slabs[i], SLAB_BYTES);
		free(p->slabs[i]);
	}
	free(p->slabs);
	memset(p, 0, sizeof(*p));
}

size_t sim_huge_pool_bytes(const sim_huge_pool *p) { return p->n_slabs * (size_t)SLAB_BYTES; }
