/* Frame handles and reference-counted buffers in size classes, from slab-filled free lists. */
#include "sim/fabric/frame.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/engine/asan_poison.h"
#include "sim/engine/oom.h"
#include "sim/engine/u64map.h"
#include "sim/fabric/icrc.h"
#include "sim/fabric/speed_contracts.h"

/* Under AddressSanitizer the bytes of free buffers are poisoned, so a frame used after
 * sim_frame_free() is caught although its buffer stays in a slab. */

const uint32_t sim_frame_class_size[SIM_FRAME_CLASSES] = { 256, 512, 2048, 4608, SIM_FRAME_CAPACITY };

/* A slab is one malloc carved into many handles or buffers of one class. */
#define SLAB_BYTES (64u * 1024u)

typedef struct slab {
	struct slab *next;
	size_t bytes; /* of mem; also keeps mem 16-byte aligned */
	uint8_t mem[];
} slab;

/* A deferred copy: buf's bytes at off..off+len are still the len bytes at src. The record
 * lives in those very bytes (they hold nothing else until the copy is made), at the first
 * aligned place from off. It is
 * on the list of the 64 KiB region of source memory its source starts in, and on the
 * pool's list of all of them. */
typedef struct deferred_copy {
	sim_frame_buf *buf;
	const uint8_t *src;
	uint32_t off, len;
	uint32_t crc_off; /* buf->crc_owed: where its CRC goes (in buf->bytes) */
	uint32_t crc;     /* the CRC of what comes before the copied bytes */
	uint64_t region;
	struct deferred_copy *next, *prev;         /* in its region's list */
	struct deferred_copy *all_next, *all_prev; /* in the pool's list */
	uint64_t digest; /* of the source when deferred, where the pool checks (contract 1) */
} deferred_copy;
_Static_assert(sizeof(deferred_copy) + _Alignof(deferred_copy) - 1 <= SIM_FRAME_DEFER_MIN,
               "a record fits, aligned, in the bytes it leaves out");

/* Source regions: a copy (at most SIM_FRAME_CAPACITY bytes) reaches at most into the next
 * region, so the copies overlapping a range start in its regions or the one before. */
#define REGION_SHIFT 16
_Static_assert(SIM_FRAME_CAPACITY < (1u << REGION_SHIFT), "a copy spans at most two regions");

struct sim_frame_pool {
	struct sim_frame_pool_head head; /* first: sim_frame_pool_deferred reads it inline */
	sim_frame *free_frames;
	u64map regions;     /* region + 1 -> its first deferred copy */
	deferred_copy *all; /* every deferred copy, the newest first */
	sim_frame_buf *free_bufs[SIM_FRAME_CLASSES];
	slab *slabs; /* every slab, so teardown reclaims frames in flight */
	sim_frame_pool_stats st;
	bool check; /* sim_frame_pool_check_contracts */
};

sim_frame_pool *sim_frame_pool_new(void)
{
	sim_frame_pool *pool = sim_xcalloc(1, sizeof(sim_frame_pool), "the frame pool");
	pool->check = SIM_CONTRACTS_CHECKED;
	return pool;
}

void sim_frame_pool_check_contracts(sim_frame_pool *pool, bool on) { pool->check = on; }

void sim_frame_pool_free(sim_frame_pool *pool)
{
	if (!pool)
		return;
	while (pool->slabs) {
		slab *s = pool->slabs;
		pool->slabs = s->next;
		SIM_UNPOISON(s, sizeof(*s) + s->bytes);
		free(s);
	}
	u64map_free(&pool->regions);
	free(pool);
}

size_t sim_frame_pool_in_use(const sim_frame_pool *pool) { return pool->st.frames_in_use; }

size_t sim_frame_pool_allocated(const sim_frame_pool *pool)
{
	size_t n = 0;
	for (int c = 0; c < SIM_FRAME_CLASSES; c++)
		n += pool->st.bufs_allocated[c];
	return n;
}

void sim_frame_pool_stats_get(const sim_frame_pool *pool, sim_frame_pool_stats *out) { *out = pool->st; }

static void *slab_new(sim_frame_pool *pool, size_t elem, size_t *count, const char *what)
{
	size_t n = SLAB_BYTES / elem;
	if (n == 0)
		n = 1;
	slab *s = sim_xmalloc(sizeof(slab) + n * elem, what);
	s->next = pool->slabs;
	s->bytes = n * elem;
	pool->slabs = s;
	pool->st.bytes += sizeof(slab) + n * elem;
	*count = n;
	return s->mem;
}

static size_t buf_elem_size(uint32_t cls) { return sizeof(sim_frame_buf) + sim_frame_class_size[cls]; }

static void refill_bufs(sim_frame_pool *pool, uint32_t cls)
{
	size_t elem = buf_elem_size(cls), n;
	uint8_t *mem = slab_new(pool, elem, &n, "frame buffers");
	for (size_t i = n; i-- > 0;) {
		sim_frame_buf *b = (sim_frame_buf *)(void *)(mem + i * elem);
		b->cls = (uint8_t)cls;
		b->u.next_free = pool->free_bufs[cls];
		pool->free_bufs[cls] = b;
		SIM_POISON(b->bytes, sim_frame_class_size[cls]);
	}
	pool->st.bufs_allocated[cls] += n;
}

static void refill_frames(sim_frame_pool *pool)
{
	size_t n;
	sim_frame *mem = slab_new(pool, sizeof(sim_frame), &n, "frame handles");
	for (size_t i = n; i-- > 0;) {
		mem[i].next = pool->free_frames;
		pool->free_frames = &mem[i];
	}
	pool->st.frames_allocated += n;
}

static sim_frame_buf *buf_get(sim_frame_pool *pool, uint32_t cls)
{
	if (!pool->free_bufs[cls])
		refill_bufs(pool, cls);
	sim_frame_buf *b = pool->free_bufs[cls];
	pool->free_bufs[cls] = b->u.next_free;
	SIM_UNPOISON(b->bytes, sim_frame_class_size[cls]);
	b->u.pool = pool;
	b->refs = 1;
	b->vouched = 0;
	b->deferred = 0;
	b->crc_owed = 0;
	pool->st.bufs_in_use[cls]++;
	return b;
}

static void forget_deferred(sim_frame_pool *pool, sim_frame_buf *b);

static void buf_put(sim_frame_buf *b)
{
	if (--b->refs)
		return;
	sim_frame_pool *pool = b->u.pool;
	if (b->deferred)
		forget_deferred(pool, b); /* nobody read those bytes: the copy is never made */
	b->u.next_free = pool->free_bufs[b->cls];
	pool->free_bufs[b->cls] = b;
	pool->st.bufs_in_use[b->cls]--;
	SIM_POISON(b->bytes, sim_frame_class_size[b->cls]);
}

static sim_frame *frame_get(sim_frame_pool *pool)
{
	if (!pool->free_frames)
		refill_frames(pool);
	sim_frame *f = pool->free_frames;
	pool->free_frames = f->next;
	pool->st.frames_in_use++;
	f->next = NULL;
	return f;
}

/* The smallest class that holds `bytes` (headroom included), or the largest. */
static uint32_t class_for(size_t bytes)
{
	uint32_t c = 0;
	while (c + 1 < SIM_FRAME_CLASSES && sim_frame_class_size[c] < bytes)
		c++;
	return c;
}

sim_frame *sim_frame_alloc_len(sim_frame_pool *pool, uint32_t len)
{
	sim_frame *f = frame_get(pool);
	f->buf = buf_get(pool, class_for((size_t)SIM_FRAME_HEADROOM + len));
	/* only the header fields are initialised: the buffer is written before it is read */
	f->data = f->buf->bytes + SIM_FRAME_HEADROOM;
	f->len = 0;
	f->meta = 0;
	f->meta64 = 0;
	return f;
}

sim_frame *sim_frame_alloc_data(sim_frame_pool *pool, uint32_t len)
{
	if (len > SIM_FRAME_CAPACITY - SIM_FRAME_HEADROOM) {
		fprintf(stderr, "sim_frame_alloc_data: %u bytes wanted, %u of tailroom\n", len,
		        SIM_FRAME_CAPACITY - SIM_FRAME_HEADROOM);
		abort();
	}
	sim_frame *f = sim_frame_alloc_len(pool, len);
	f->len = len;
	return f;
}

sim_frame *sim_frame_alloc(sim_frame_pool *pool) { return sim_frame_alloc_len(pool, SIM_FRAME_CAPACITY); }

void sim_frame_free(sim_frame *f)
{
	if (!f)
		return;
	sim_frame_pool *pool = f->buf->u.pool;
	buf_put(f->buf);
	f->buf = NULL;
	f->next = pool->free_frames;
	pool->free_frames = f;
	pool->st.frames_in_use--;
}

sim_frame *sim_frame_clone(const sim_frame *f)
{
	sim_frame_pool *pool = f->buf->u.pool;
	sim_frame *c = frame_get(pool);
	c->buf = f->buf;
	c->buf->refs++;
	c->data = f->data;
	c->len = f->len;
	c->meta = f->meta;
	c->meta64 = f->meta64;
	pool->st.shared++;
	return c;
}

_Static_assert(SIM_FRAME_CAPACITY <= UINT16_MAX, "a parked frame's offset and length are 16 bits");

void sim_frame_park(sim_frame *f, sim_frame_ref *r)
{
	sim_frame_pool *pool = f->buf->u.pool;
	r->buf = f->buf;
	r->off = (uint16_t)(f->data - f->buf->bytes);
	r->len = (uint16_t)f->len;
	/* the handle goes back, the frame stays in use */
	f->buf = NULL;
	f->next = pool->free_frames;
	pool->free_frames = f;
}

sim_frame *sim_frame_unpark(const sim_frame_ref *r)
{
	sim_frame_pool *pool = r->buf->u.pool;
	if (!pool->free_frames)
		refill_frames(pool);
	sim_frame *f = pool->free_frames;
	pool->free_frames = f->next;
	f->next = NULL;
	f->buf = r->buf;
	f->data = r->buf->bytes + r->off;
	f->len = r->len;
	f->meta = 0;
	f->meta64 = 0;
	return f;
}

void sim_frame_ref_free(const sim_frame_ref *r)
{
	sim_frame_pool *pool = r->buf->u.pool;
	buf_put(r->buf);
	pool->st.frames_in_use--;
}

bool sim_frame_shared(const sim_frame *f) { return f->buf->refs > 1; }

/* Give f a buffer of its own of class cls holding its bytes at the same headroom. */
static void move_to(sim_frame *f, uint32_t cls)
{
	sim_frame_settle(f);
	uint32_t headroom = sim_frame_headroom(f);
	sim_frame_buf *b = buf_get(f->buf->u.pool, cls);
	memcpy(b->bytes + headroom, f->data, f->len);
	buf_put(f->buf);
	f->buf = b;
	f->data = b->bytes + headroom;
}

uint8_t *sim_frame_writable(sim_frame *f)
{
	sim_frame_settle(f);
	if (f->buf->refs > 1) {
		f->buf->u.pool->st.copied_on_write++;
		move_to(f, class_for((size_t)sim_frame_headroom(f) + f->len));
	}
	f->buf->vouched = 0; /* whatever is written next is nobody's word */
	return f->data;
}

uint8_t *sim_frame_push(sim_frame *f, uint32_t n)
{
	if (n > sim_frame_headroom(f)) {
		fprintf(stderr, "sim_frame_push: %u bytes wanted, %u of headroom\n", n, sim_frame_headroom(f));
		abort();
	}
	sim_frame_writable(f);
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
	size_t need = (size_t)sim_frame_headroom(f) + f->len + n;
	if (need > sim_frame_class_size[f->buf->cls]) {
		if (f->buf->refs > 1)
			f->buf->u.pool->st.copied_on_write++;
		move_to(f, class_for(need));
	} else {
		sim_frame_writable(f);
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


/* --- deferred copies ------------------------------------------------------------------- */

static deferred_copy *record_of(const sim_frame_buf *b)
{
	return (deferred_copy *)(void *)(uintptr_t)(b->bytes + (b->deferred - 1u));
}

static uint64_t region_key(const uint8_t *p) { return ((uintptr_t)p >> REGION_SHIFT) + 1u; }

static void link_record(sim_frame_pool *pool, deferred_copy *d)
{
	d->region = region_key(d->src);
	deferred_copy *first = u64map_get(&pool->regions, d->region);
	d->prev = NULL;
	d->next = first;
	if (first)
		first->prev = d;
	u64map_put(&pool->regions, d->region, d);
	d->all_prev = NULL;
	d->all_next = pool->all;
	if (pool->all)
		pool->all->all_prev = d;
	pool->all = d;
	pool->head.n_deferred++;
}

static void unlink_record(sim_frame_pool *pool, deferred_copy *d)
{
	if (d->prev)
		d->prev->next = d->next;
	else if (d->next)
		u64map_put(&pool->regions, d->region, d->next);
	else
		u64map_del(&pool->regions, d->region);
	if (d->next)
		d->next->prev = d->prev;
	if (d->all_prev)
		d->all_prev->all_next = d->all_next;
	else
		pool->all = d->all_next;
	if (d->all_next)
		d->all_next->all_prev = d->all_prev;
	d->buf->deferred = 0;
	pool->head.n_deferred--;
}

static void forget_deferred(sim_frame_pool *pool, sim_frame_buf *b)
{
	unlink_record(pool, record_of(b));
	b->crc_owed = 0;
}

/* Contract 1 (sim/fabric/speed_contracts.h): a deferred copy's source is as it was. */
static void check_source(const sim_frame_pool *pool, const deferred_copy *d)
{
	if (pool->check)
		SIM_CONTRACT(sim_contract_digest(d->src, d->len) == d->digest, "deferred copies",
		             "the source of a deferred copy changed before the copy was made or read: "
		             "whoever writes there must say so first (rnic_host_writes, "
		             "sim_frame_pool_settle_range)");
}

/* Pay the CRC copy d owes: crc_so_far covers what comes before its pad; the pad follows
 * in the frame, then the trailer, written now. */
static uint32_t pay_crc(const deferred_copy *d, uint32_t crc_so_far)
{
	sim_frame_buf *b = d->buf;
	uint8_t *pad = b->bytes + d->off + d->len, *at = b->bytes + d->crc_off;
	uint32_t crc = icrc_crc32(crc_so_far, pad, (size_t)(at - pad));
	SIM_UNPOISON(at, 4);
	at[0] = (uint8_t)crc;
	at[1] = (uint8_t)(crc >> 8);
	at[2] = (uint8_t)(crc >> 16);
	at[3] = (uint8_t)(crc >> 24);
	b->crc_owed = 0;
	return crc;
}

static void make_copy(sim_frame_pool *pool, deferred_copy *rec)
{
	check_source(pool, rec);
	deferred_copy d = *rec; /* the copy overwrites the record */
	unlink_record(pool, rec);
	uint8_t *dst = d.buf->bytes + d.off;
	SIM_UNPOISON(dst, d.len);
	if (d.buf->crc_owed)
		pay_crc(&d, icrc_crc32_copy(d.crc, dst, d.src, d.len));
	else
		memcpy(dst, d.src, d.len);
	pool->st.settled++;
}

static bool defer(sim_frame *f, uint8_t *dst, const void *src, uint32_t n, uint32_t crc, uint8_t *crc_at)
{
	sim_frame_buf *b = f->buf;
	sim_frame_pool *pool = b->u.pool;
	if (b->deferred || b->refs > 1 || dst < f->data || dst + n > f->data + f->len ||
	    (crc_at && (crc_at < dst + n || crc_at + 4 > f->data + f->len))) {
		fprintf(stderr, "sim_frame_defer_copy: not a range of an unshared frame without one\n");
		abort();
	}
	if (n < SIM_FRAME_DEFER_MIN)
		return false;
	uint32_t off = (uint32_t)(dst - b->bytes);
	/* the record at the first aligned place of the bytes left out (bytes[] is aligned) */
	uint32_t roff = (off + (uint32_t)_Alignof(deferred_copy) - 1u) & ~((uint32_t)_Alignof(deferred_copy) - 1u);
	deferred_copy *d = (deferred_copy *)(void *)(b->bytes + roff);
	*d = (deferred_copy){ .buf = b, .src = src, .off = off, .len = n, .crc = crc,
		              .digest = pool->check ? sim_contract_digest(src, n) : 0 };
	if (crc_at) {
		d->crc_off = (uint32_t)(crc_at - b->bytes);
		b->crc_owed = 1;
	}
	b->deferred = (uint16_t)(roff + 1u);
	link_record(pool, d);
	pool->st.deferred++;
	/* the record stays readable; the rest of the bytes left out, and an owed CRC, are not */
	SIM_POISON(dst, roff - off);
	SIM_POISON(b->bytes + roff + sizeof(*d), off + n - roff - (uint32_t)sizeof(*d));
	if (crc_at)
		SIM_POISON(crc_at, 4);
	return true;
}

bool sim_frame_defer_copy(sim_frame *f, uint8_t *dst, const void *src, uint32_t n)
{
	return defer(f, dst, src, n, 0, NULL);
}

bool sim_frame_defer_copy_crc(sim_frame *f, uint8_t *dst, const void *src, uint32_t n, uint32_t crc,
                              uint8_t *crc_at)
{
	return defer(f, dst, src, n, crc, crc_at);
}

void sim_frame_settle_deferred(sim_frame *f)
{
	if (f->buf->deferred)
		make_copy(f->buf->u.pool, record_of(f->buf));
}

const uint8_t *sim_frame_bytes_deferred(sim_frame *f, const uint8_t *p, uint32_t n)
{
	const sim_frame_buf *b = f->buf;
	if (!b->deferred)
		return p;
	const deferred_copy *d = record_of(b);
	const uint8_t *lo = b->bytes + d->off, *hi = lo + d->len;
	if (p >= lo && p + n <= hi) {
		check_source(b->u.pool, d);
		return d->src + (p - lo);
	}
	if (p < hi && lo < p + n)
		sim_frame_settle(f);
	return p;
}

void sim_frame_copy_out(sim_frame *f, const uint8_t *p, uint32_t n, uint8_t *dst)
{
	sim_frame_buf *b = f->buf;
	if (b->deferred && b->crc_owed) {
		deferred_copy *rec = record_of(b);
		if (p == b->bytes + rec->off && n == rec->len) {
			/* the receiver takes the bytes straight from the source, paying the CRC on
			 * the way; the frame keeps its CRC, its payload stays deferred */
			check_source(b->u.pool, rec);
			pay_crc(rec, icrc_crc32_copy(rec->crc, dst, rec->src, n));
			b->u.pool->st.copied_out++;
			return;
		}
	}
	memcpy(dst, sim_frame_bytes_at(f, p, n), n);
}

uint32_t sim_frame_owed_crc(sim_frame *f)
{
	sim_frame_buf *b = f->buf;
	if (!b->crc_owed)
		return 0;
	const deferred_copy *rec = record_of(b);
	check_source(b->u.pool, rec);
	return pay_crc(rec, icrc_crc32(rec->crc, rec->src, rec->len));
}

void sim_frame_pool_settle_range(sim_frame_pool *pool, const void *p, size_t n)
{
	if (!pool->head.n_deferred || !n)
		return;
	const uint8_t *lo = p, *hi = lo + n;
	uint64_t first = region_key(lo), last = region_key(hi - 1);
	first = first > 1u ? first - 1u : first; /* a copy starting in the region before may reach in */
	if (last - first >= pool->head.n_deferred) {
		/* more regions than copies: look at the copies instead */
		for (deferred_copy *d = pool->all, *next; d; d = next) {
			next = d->all_next;
			if (d->src < hi && lo < d->src + d->len)
				make_copy(pool, d);
		}
		return;
	}
	for (uint64_t r = first; r <= last; r++) {
		for (deferred_copy *d = u64map_get(&pool->regions, r), *next; d; d = next) {
			next = d->next;
			if (d->src < hi && lo < d->src + d->len)
				make_copy(pool, d);
		}
	}
}

void sim_frame_pool_settle_all(sim_frame_pool *pool)
{
	while (pool->all)
		make_copy(pool, pool->all);
}
