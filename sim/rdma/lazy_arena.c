/* The lazy arena: size classes of power-of-two buffers in MAP_NORESERVE chunks. */
#include "sim/rdma/lazy_arena.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sim/engine/oom.h"

#define PAGE_SHIFT 12u
#define MAX_CLASS 40u
/* Reserved a chunk at a time: 32 MiB of address space (2048 16-KiB RMBs) per mapping. */
#define ARENA_CHUNK ((size_t)32 << 20)

typedef struct chunk {
	uint8_t *base;
	size_t size;
	uint32_t cls;
	size_t nslots, carved;
	lazy_arena_buf *bufs;
} chunk;

static struct {
	chunk *chunks; /* sorted by base, for lookups by address */
	size_t n, cap;
	lazy_arena_buf *free[MAX_CLASS + 1];
	chunk *open[MAX_CLASS + 1]; /* the chunk new buffers of a class are carved from */
	lazy_arena_stats st;
} arena;

static uint32_t class_of(size_t size)
{
	uint32_t c = PAGE_SHIFT;
	while (c < MAX_CLASS && ((size_t)1 << c) < size)
		c++;
	return c;
}

static void give_back(uint8_t *p, size_t n)
{
	/* Private anonymous pages read as zero after MADV_DONTNEED. A failure would leave the
	 * old bytes, and a fresh connection must not see them. */
	if (madvise(p, n, MADV_DONTNEED) != 0)
		memset(p, 0, n);
}

static chunk *chunk_new(uint32_t cls)
{
	size_t slot = (size_t)1 << cls;
	size_t size = slot > ARENA_CHUNK ? slot : ARENA_CHUNK;
	void *base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (base == MAP_FAILED)
		sim_out_of_memory("simulated RMBs and send buffers (address space)", size);
	if (arena.n == arena.cap) {
		arena.cap = arena.cap ? arena.cap * 2 : 16;
		arena.chunks = sim_xreallocarray(arena.chunks, arena.cap, sizeof(*arena.chunks), "the buffer arena");
	}
	size_t at = arena.n;
	while (at > 0 && arena.chunks[at - 1].base > (uint8_t *)base) /* only compared, never printed */
		at--;
	memmove(&arena.chunks[at + 1], &arena.chunks[at], (arena.n - at) * sizeof(*arena.chunks));
	arena.n++;
	chunk *c = &arena.chunks[at];
	*c = (chunk){ .base = base, .size = size, .cls = cls, .nslots = size / slot };
	c->bufs = sim_xcalloc(c->nslots, sizeof(*c->bufs), "the buffer arena");
	/* the array moved: the open chunk pointers are found again by base */
	for (uint32_t k = 0; k <= MAX_CLASS; k++)
		arena.open[k] = NULL;
	for (size_t i = 0; i < arena.n; i++)
		if (arena.chunks[i].carved < arena.chunks[i].nslots)
			arena.open[arena.chunks[i].cls] = &arena.chunks[i];
	arena.st.reserved += size;
	return &arena.chunks[at];
}

void *lazy_arena_alloc(size_t size)
{
	uint32_t cls = class_of(size);
	lazy_arena_buf *b = arena.free[cls];
	if (b) {
		arena.free[cls] = b->next;
	} else {
		chunk *c = arena.open[cls];
		if (!c)
			c = chunk_new(cls);
		b = &c->bufs[c->carved];
		b->addr = c->base + (c->carved << cls);
		b->cls = cls;
		if (++c->carved == c->nslots)
			arena.open[cls] = NULL;
	}
	b->in_use = true;
	b->landed = 0;
	b->idle_landed = 0;
	b->level = 0;
	b->released = false;
	b->idle = NULL;
	b->prev = b->next = NULL;
	arena.st.buffers++;
	arena.st.buffer_bytes += (size_t)1 << cls;
	return b->addr;
}

lazy_arena_buf *lazy_arena_find(const void *p)
{
	const uint8_t *a = p;
	size_t lo = 0, hi = arena.n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (a < arena.chunks[mid].base)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (lo == 0)
		return NULL;
	chunk *c = &arena.chunks[lo - 1];
	size_t off = (size_t)(a - c->base);
	if (off >= c->size)
		return NULL;
	size_t i = off >> c->cls;
	return i < c->carved && c->bufs[i].in_use ? &c->bufs[i] : NULL;
}

static lazy_arena_buf *buf_of(void *p, const char *what)
{
	lazy_arena_buf *b = lazy_arena_find(p);
	if (!b || b->addr != p) {
		fprintf(stderr, "lazy_arena_%s: not a buffer of the arena\n", what);
		abort();
	}
	return b;
}

static sim_time idle_time(uint8_t level) { return LAZY_ARENA_IDLE_TIME << (2u * level); }

static void unlink_idle(lazy_arena_buf *b)
{
	lazy_arena_idle *o = b->idle;
	if (!o)
		return;
	lazy_arena_list *l = &o->level[b->level];
	if (b->prev)
		b->prev->next = b->next;
	else
		l->head = b->next;
	if (b->next)
		b->next->prev = b->prev;
	else
		l->tail = b->prev;
	b->prev = b->next = NULL;
	b->idle = NULL;
	o->n--;
	arena.st.idle--;
}

/* The buffer is in use again. If its pages were given back only a little while ago, that
 * cost more than it saved: it waits longer the next time. */
static void reused(lazy_arena_buf *b, sim_time now)
{
	if (!b->released)
		return;
	b->released = false;
	if (now - b->released_at < 4 * idle_time(b->level) && b->level + 1 < LAZY_ARENA_LEVELS)
		b->level++;
}

void lazy_arena_free(void *p)
{
	if (!p)
		return;
	lazy_arena_buf *b = buf_of(p, "free");
	unlink_idle(b);
	give_back(b->addr, (size_t)1 << b->cls);
	b->in_use = false;
	b->next = arena.free[b->cls];
	arena.free[b->cls] = b;
	arena.st.buffers--;
	arena.st.buffer_bytes -= (size_t)1 << b->cls;
}

void lazy_arena_reset(void *p)
{
	lazy_arena_buf *b = buf_of(p, "reset");
	unlink_idle(b);
	give_back(b->addr, (size_t)1 << b->cls);
	b->landed = 0;
	b->idle_landed = 0;
	b->released = false;
}

void lazy_arena_idle_at(lazy_arena_idle *owner, void *p, uint64_t peer_bytes, sim_time now)
{
	lazy_arena_buf *b = buf_of(p, "idle_at");
	unlink_idle(b);
	if (b->landed != b->idle_landed) /* an RMB that received bytes since it was last idle */
		reused(b, now);
	if (b->landed != peer_bytes) {
		arena.st.kept_in_flight++;
		return;
	}
	b->idle_landed = b->landed;
	b->idle_since = now;
	b->idle = owner;
	lazy_arena_list *l = &owner->level[b->level];
	b->prev = l->tail;
	b->next = NULL;
	if (l->tail)
		l->tail->next = b;
	else
		l->head = b;
	l->tail = b;
	owner->n++;
	arena.st.idle++;
	sim_time due = now + idle_time(b->level);
	if (due < owner->next_due)
		owner->next_due = due;
}

void lazy_arena_busy(void *p, sim_time now)
{
	lazy_arena_buf *b = buf_of(p, "busy");
	unlink_idle(b);
	reused(b, now);
}

void lazy_arena_sweep(lazy_arena_idle *owner, sim_time now)
{
	/* called at every idle and busy call of the stack's core: most find nothing due */
	if (now < owner->next_due)
		return;
	sim_time next = SIM_TIME_NEVER;
	for (uint8_t lv = 0; lv < LAZY_ARENA_LEVELS; lv++) {
		lazy_arena_list *l = &owner->level[lv];
		while (l->head && now - l->head->idle_since >= idle_time(lv)) {
			lazy_arena_buf *b = l->head;
			unlink_idle(b);
			/* bytes that arrived while it waited are in flight: it was not idle after all */
			if (b->landed != b->idle_landed)
				continue;
			give_back(b->addr, (size_t)1 << b->cls);
			b->released = true;
			b->released_at = now;
			arena.st.released++;
		}
		if (l->head && l->head->idle_since + idle_time(lv) < next)
			next = l->head->idle_since + idle_time(lv);
	}
	owner->next_due = next;
}

void lazy_arena_stats_get(lazy_arena_stats *out) { *out = arena.st; }

size_t lazy_arena_heap_bytes(void)
{
	size_t n = sim_heap_block_bytes(arena.chunks);
	for (size_t i = 0; i < arena.n; i++)
		n += sim_heap_block_bytes(arena.chunks[i].bufs);
	return n;
}

size_t lazy_arena_resident(void)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), pages = 0;
	unsigned char vec[4096];
	for (size_t i = 0; i < arena.n; i++) {
		const chunk *c = &arena.chunks[i];
		for (size_t off = 0; off < c->size; off += sizeof vec * page) {
			size_t len = c->size - off < sizeof vec * page ? c->size - off : sizeof vec * page;
			if (mincore(c->base + off, len, vec) != 0)
				continue;
			for (size_t k = 0; k < (len + page - 1) / page; k++)
				pages += vec[k] & 1u;
		}
	}
	return pages * page;
}
