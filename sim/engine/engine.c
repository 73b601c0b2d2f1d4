/* The discrete-event engine: a timing wheel of 1-ns slots for the near future, in front
 * of a radix heap for the far future, FIFO within a time.
 *
 * A queue entry carries everything a one-shot posting runs (time, order, handler, object,
 * argument, fingerprint identity: one 64-byte cache line), so running it reads the entry
 * and nothing else; an embedded timer's entry names a slot of the engine's timer table
 * instead, whose generation moves on when the timer is cancelled, so the stale entry is
 * skipped when it surfaces without searching the queue and without touching the memory
 * of a component that may have freed its timer since. Entries live in fixed blocks of
 * one shared pool, chained per bucket: appending and taking are sequential writes and
 * reads, a block that has been run goes back to the pool and is the next one filled (it
 * is still in cache), and nothing is allocated per event.
 */
#include "sim/engine/engine.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sim/engine/oom.h"

/* A queued event. fn != NULL: a one-shot posting, everything is here. fn == NULL: an
 * embedded timer, the event is timers[timer].ev while its generation is still gen. */
typedef struct entry {
	sim_time at;
	uint64_t seq; /* ordering sequence: (at, seq) is the run order */
	sim_event_fn fn;
	void *ctx;
	uint64_t arg;
	uint64_t entity;
	uint32_t kind;
	uint32_t timer;
	uint32_t gen;
	uint32_t unused;
} entry;

/* A block is 1 KiB, aligned to 1 KiB: one cache line of header (the chain link) and 15
 * entries. A bucket is known by its append point, the entry after its last one: since
 * entries start one line into a block, an append point at a block boundary (low 10 bits
 * zero, NULL included) is exactly "no room here", so the usual append is one load, one
 * test and one store. The previous entry of a non-empty bucket is always the one before
 * its append point (a block is only chained when an entry goes into it). */
#define BLOCK_SIZE 1024u
#define BLOCK_ENTRIES 15
typedef struct block {
	struct block *next; /* the bucket's next block; stale in its last block */
	uint8_t pad[64 - sizeof(struct block *)];
	entry e[BLOCK_ENTRIES];
} block;
_Static_assert(sizeof(block) == BLOCK_SIZE, "a block is 1 KiB");

#define SLAB_BLOCKS 64                /* the first slab's blocks */
#define HUGE_SLAB (2u * 1024 * 1024) /* the largest slab: a huge page */
#define PREFETCH_AHEAD 8

static inline bool at_block_end(const entry *p) { return !((uintptr_t)p & (BLOCK_SIZE - 1)); }
static inline block *block_of(const entry *p) { return (block *)((uintptr_t)p & ~(uintptr_t)(BLOCK_SIZE - 1)); }

/* The wheel: 4096 slots of one nanosecond (the low 12 bits of the time). Above it, radix
 * levels of 8-bit digits over bits 12..63; WHEEL_BITS + UP_LEVELS * 8 >= 64. Bucket
 * numbers: the wheel's slots, then the levels' buckets, then the current bucket. */
#define WHEEL_BITS 12
#define WHEEL_SLOTS (1u << WHEEL_BITS)
#define UP_LEVELS 7
#define DIGITS 256
#define UP_BUCKET(l, j) (WHEEL_SLOTS + (l) * DIGITS + (j))
#define CUR (WHEEL_SLOTS + UP_LEVELS * DIGITS)
#define BUCKETS (CUR + 1)

/* An embedded timer's slot: the event while its generation matches the queued entry's. */
typedef struct timer_slot {
	sim_event *ev;
	uint32_t gen;
	uint32_t next_free;
} timer_slot;

/* The current time's entries once they had to be put in sequence order (cur_flatten). */
typedef struct flat {
	entry *e;
	uint32_t len, cap;
	uint32_t head; /* entries before it have run */
	uint32_t took; /* entries the current time had when it was put in order */
} flat;

struct sim_engine {
	sim_time now;
	uint64_t seed;
	uint64_t next_seq;
	uint64_t fingerprint;
	uint64_t events_run;
	bool stop;

	/* the queue */
	sim_time last_at; /* radix base: the time of the current bucket */
	entry *rd;        /* the next entry of the current bucket, in block cur_head */
	block *cur_head;
	bool in_flat; /* the entries at last_at are in `flat`, in sequence order (rd unused) */
	flat flat;
	entry *wr[BUCKETS];     /* append points; NULL: empty */
	block *head[BUCKETS];   /* first blocks */
	uint64_t wheel_summary; /* bit w = wheel_bits[w] != 0 */
	uint64_t wheel_bits[WHEEL_SLOTS / 64];     /* bit j = wheel slot j has entries */
	uint64_t wheel_unsorted[WHEEL_SLOTS / 64]; /* bit j = slot j appended out of sequence order */
	uint32_t levels_used;                      /* bit l = level l has a non-empty bucket */
	uint64_t up_bits[UP_LEVELS][DIGITS / 64];  /* bit j = bucket j of level l has entries */

	/* the block pool: free blocks as a stack, the last freed on top */
	block **free_blocks;
	size_t n_free, cap_free;
	void **slabs;
	size_t n_slabs, cap_slabs;
	size_t pool_blocks; /* blocks in all slabs */

	timer_slot *timers;
	uint32_t timer_cap, timer_free, timers_used;
	size_t live;  /* pending events: queued one-shots and armed timers */
	size_t stale; /* queued entries of cancelled timers, not yet dropped */

	sim_tick *ticks; /* housekeeping between events (sim_engine_tick_add) */
	size_t n_ticks, cap_ticks;
	sim_time next_tick; /* the earliest time a tick is due */
};

static const char what_queue[] = "the event queue";

sim_engine *sim_engine_new(uint64_t seed)
{
	sim_engine *eng = calloc(1, sizeof(*eng));
	if (!eng)
		return NULL;
	eng->seed = seed;
	eng->next_seq = 1;
	eng->fingerprint = sim_mix64(seed ^ 0x736d63722d73696dULL); /* "smcr-sim" */
	eng->timer_free = SIM_SLOT_NONE;
	eng->next_tick = SIM_TIME_NEVER;
	sim_oom_set_clock(eng, &eng->now);
	return eng;
}

void sim_engine_free(sim_engine *eng)
{
	if (!eng)
		return;
	sim_oom_forget_clock(eng);
	free(eng->ticks);
	for (size_t i = 0; i < eng->n_slabs; i++)
		free(eng->slabs[i]);
	free(eng->slabs);
	free(eng->free_blocks);
	free(eng->flat.e);
	free(eng->timers);
	free(eng);
}

sim_time sim_now(const sim_engine *eng) { return eng->now; }

uint32_t sim_kind(const char *name)
{
	uint64_t h = sim_hash_str(name);
	return (uint32_t)(h ^ (h >> 32));
}

void sim_event_init(sim_event *ev, uint32_t kind, uint64_t entity, sim_event_fn fn, void *ctx)
{
	memset(ev, 0, sizeof(*ev));
	ev->kind = kind;
	ev->entity = entity;
	ev->fn = fn;
	ev->ctx = ctx;
	ev->slot = SIM_SLOT_NONE;
}

/* --- timer slots ----------------------------------------------------------------- */

static inline uint32_t timer_alloc(sim_engine *eng, sim_event *ev)
{
	uint32_t t;
	if (eng->timer_free != SIM_SLOT_NONE) {
		t = eng->timer_free;
		eng->timer_free = eng->timers[t].next_free;
	} else {
		if (eng->timers_used == eng->timer_cap) {
			uint32_t cap = eng->timer_cap ? eng->timer_cap * 2 : 256;
			eng->timers = sim_xreallocarray(eng->timers, cap, sizeof(*eng->timers), what_queue);
			eng->timer_cap = cap;
		}
		t = eng->timers_used++;
		eng->timers[t].gen = 0;
	}
	eng->timers[t].ev = ev;
	eng->live++;
	return t;
}

static inline void timer_release(sim_engine *eng, uint32_t t)
{
	eng->timers[t].gen++;
	eng->timers[t].ev = NULL;
	eng->timers[t].next_free = eng->timer_free;
	eng->timer_free = t;
	eng->live--;
}

static inline bool entry_stale(const sim_engine *eng, const entry *e)
{
	return !e->fn && eng->timers[e->timer].gen != e->gen;
}

/* --- blocks ---------------------------------------------------------------------- */

/* The pool only grows (to the most blocks ever queued at once: about 70 bytes a pending
 * event, and a block per bucket in use), which keeps a block's address fixed and its
 * memory warm for reuse. It doubles, from 64 KiB slabs up to 2 MiB ones, which a big
 * queue gets as huge pages (far fewer page faults and TLB misses). */
static void pool_grow(sim_engine *eng)
{
	size_t n = eng->pool_blocks < SLAB_BLOCKS ? SLAB_BLOCKS : eng->pool_blocks;
	if (n > HUGE_SLAB / BLOCK_SIZE)
		n = HUGE_SLAB / BLOCK_SIZE;
	size_t bytes = n * BLOCK_SIZE;
	void *slab = NULL;
	if (posix_memalign(&slab, bytes == HUGE_SLAB ? HUGE_SLAB : BLOCK_SIZE, bytes))
		sim_out_of_memory(what_queue, bytes);
#ifdef MADV_HUGEPAGE
	if (bytes == HUGE_SLAB)
		(void)madvise(slab, bytes, MADV_HUGEPAGE); /* only advice: fine if refused */
#endif
	eng->pool_blocks += n;
	if (eng->n_slabs == eng->cap_slabs) {
		eng->cap_slabs = eng->cap_slabs ? eng->cap_slabs * 2 : 16;
		eng->slabs = sim_xreallocarray(eng->slabs, eng->cap_slabs, sizeof(*eng->slabs), what_queue);
	}
	eng->slabs[eng->n_slabs++] = slab;
	if (eng->cap_free < eng->pool_blocks) {
		eng->cap_free = eng->pool_blocks;
		eng->free_blocks = sim_xreallocarray(eng->free_blocks, eng->cap_free, sizeof(*eng->free_blocks), what_queue);
	}
	block *b = slab;
	for (size_t i = n; i-- > 0;) {
		b[i].next = NULL;
		eng->free_blocks[eng->n_free++] = &b[i];
	}
}

static inline block *block_alloc(sim_engine *eng)
{
	if (!eng->n_free)
		pool_grow(eng);
	return eng->free_blocks[--eng->n_free];
}

static inline void block_release(sim_engine *eng, block *b) { eng->free_blocks[eng->n_free++] = b; }

/* The place of a new entry of sequence seq at the end of bucket i (the caller marks a
 * bucket that was empty as used); `check`: seq may be older than the bucket's last. */
static inline entry *bucket_slot(sim_engine *eng, unsigned i, uint64_t seq, bool check)
{
	entry *w = eng->wr[i];
	if (!w) {
		block *b = block_alloc(eng);
		eng->head[i] = b;
		eng->wr[i] = &b->e[1];
		return &b->e[0];
	}
	if (check && seq < w[-1].seq && i < WHEEL_SLOTS)
		eng->wheel_unsorted[i >> 6] |= 1ULL << (i & 63);
	if (at_block_end(w)) {
		block *b = block_alloc(eng);
		block_of(w - 1)->next = b;
		eng->wr[i] = &b->e[1];
		return &b->e[0];
	}
	eng->wr[i] = w + 1;
	return w;
}

/* Visit bucket i's entries from `from` (in block `b`) in order, giving its blocks back to
 * the pool once passed; the bucket is left empty. The body must not append to bucket i. */
#define BUCKET_DRAIN(eng, i, b, from, ep, body)                    \
	do {                                                           \
		block *b_ = (b);                                           \
		entry *ep = (from), *end_ = (eng)->wr[i];                  \
		(eng)->wr[i] = NULL;                                       \
		(eng)->head[i] = NULL;                                     \
		while (b_) {                                               \
			if (ep == end_) {                                      \
				block_release(eng, b_);                            \
				break;                                             \
			}                                                      \
			if (at_block_end(ep)) {                                \
				block *next_ = b_->next;                           \
				block_release(eng, b_);                            \
				b_ = next_;                                        \
				ep = &b_->e[0];                                    \
				continue;                                          \
			}                                                      \
			body;                                                  \
			ep++;                                                  \
		}                                                          \
	} while (0)

/* --- queue ----------------------------------------------------------------------- */

/* A discrete-event engine only ever inserts times >= the last one taken, which is what a
 * radix heap needs; its lowest level here is a timing wheel. Relative to the base
 * `last_at` (the time running): an entry at last_at itself is in the current bucket; one
 * whose time differs from last_at only in the low 12 bits is in the wheel, in the slot of
 * its own low 12 bits, which holds that one time; any other is in the radix level of the
 * highest byte above bit 12 in which it differs, in the bucket of its own digit there.
 * When the current bucket is empty the next wheel slot becomes current as it is (found
 * through two levels of bitmaps); only when the wheel is empty is the lowest non-empty
 * bucket of the lowest radix level spread over the levels below. An event up to a few
 * microseconds ahead thus usually lands in its slot and is taken from there without ever
 * moving; one further ahead moves at most once per level it descends.
 *
 * Entries of equal time are always in the same bucket and every append (a new posting,
 * a spread) keeps their relative order, so within a time they stay in the order they were
 * scheduled, i.e. by sequence. The exceptions are a timer re-armed later while queued (its
 * entry is re-filed when it surfaces, with the older sequence of the re-arm) and
 * sim_post_seq with an earlier-taken sequence: such an append notes a wheel slot as out of
 * order, and the current bucket is put in order (cur_flatten) before its time runs. */

static inline void wheel_mark(sim_engine *eng, unsigned j)
{
	eng->wheel_bits[j >> 6] |= 1ULL << (j & 63);
	eng->wheel_summary |= 1ULL << (j >> 6);
}

static inline void wheel_unmark(sim_engine *eng, unsigned j)
{
	uint64_t w = eng->wheel_bits[j >> 6] &= ~(1ULL << (j & 63));
	if (!w)
		eng->wheel_summary &= ~(1ULL << (j >> 6));
}

static inline void up_unmark(sim_engine *eng, unsigned l, unsigned j)
{
	eng->up_bits[l][j >> 6] &= ~(1ULL << (j & 63));
	for (unsigned w = 0; w < DIGITS / 64; w++)
		if (eng->up_bits[l][w])
			return;
	eng->levels_used &= ~(1u << l);
}

static void flat_reserve(flat *f, uint32_t n)
{
	if (n <= f->cap)
		return;
	uint32_t cap = f->cap ? f->cap : 64;
	while (cap < n)
		cap *= 2;
	f->e = sim_xreallocarray(f->e, cap, sizeof(*f->e), what_queue);
	f->cap = cap;
}

/* The place of a new entry in the flat current bucket: its sequence place among the
 * entries not yet run. */
static entry *flat_slot(flat *f, uint64_t seq)
{
	flat_reserve(f, f->len + 1);
	uint32_t i = f->len++;
	while (i > f->head && f->e[i - 1].seq > seq) {
		f->e[i] = f->e[i - 1];
		i--;
	}
	return &f->e[i];
}

/* Merge the sorted runs a[bound[r] .. bound[r+1]) (runs >= 2) into out in one pass: a
 * binary heap of the runs keyed by their next entry's sequence (an ARP storm's time holds
 * tens of runs of hundreds of 64-byte entries: each is copied once, not once per level
 * of a pairwise merge). */
static void merge_runs(const entry *a, entry *out, const uint32_t *bound, uint32_t runs)
{
	uint32_t *pos = sim_xreallocarray(NULL, (size_t)runs * 2, sizeof(*pos), what_queue), *heap = pos + runs;
	for (uint32_t r = 0; r < runs; r++) {
		pos[r] = bound[r];
		heap[r] = r;
	}
#define KEY(i) a[pos[heap[i]]].seq
	/* runs start in order of their first entries' positions, not their sequences: heapify */
	for (uint32_t i = runs / 2; i-- > 0;) {
		uint32_t j = i;
		for (;;) {
			uint32_t c = 2 * j + 1;
			if (c >= runs)
				break;
			if (c + 1 < runs && KEY(c + 1) < KEY(c))
				c++;
			if (KEY(j) < KEY(c))
				break;
			uint32_t t = heap[j];
			heap[j] = heap[c];
			heap[c] = t;
			j = c;
		}
	}
	uint32_t o = bound[0], n = runs;
	while (n) {
		uint32_t r = heap[0];
		out[o++] = a[pos[r]++];
		if (pos[r] == bound[r + 1])
			heap[0] = heap[--n]; /* run used up */
		uint32_t j = 0;
		for (;;) {
			uint32_t c = 2 * j + 1;
			if (c >= n)
				break;
			if (c + 1 < n && KEY(c + 1) < KEY(c))
				c++;
			if (KEY(j) < KEY(c))
				break;
			uint32_t t = heap[j];
			heap[j] = heap[c];
			heap[c] = t;
			j = c;
		}
	}
#undef KEY
	free(pos);
}

/* Put the flat array in sequence order. A wire FIFO posts each next frame with the
 * sequence it took when sent, so an out-of-order slot is usually the concatenation of
 * long sorted runs, one per group of wires that ran in another order (an ARP storm:
 * thousands of entries, one run per leaf switch), where an insertion sort moves entries
 * quadratically often: the runs are merged, O(n log runs). Sequences are unique, so any
 * correct sort gives the same order. */
static void flat_sort(flat *f)
{
	uint32_t n = f->len, runs = 1;
	for (uint32_t i = 1; i < n; i++)
		runs += f->e[i].seq < f->e[i - 1].seq;
	if (runs == 1)
		return;
	uint32_t *bound = sim_xreallocarray(NULL, (size_t)runs + 1, sizeof(*bound), what_queue);
	uint32_t r = 0;
	for (uint32_t i = 0; i < n; i++)
		if (i == 0 || f->e[i].seq < f->e[i - 1].seq)
			bound[r++] = i;
	bound[r] = n;
	flat_reserve(f, 2 * n);
	merge_runs(f->e, f->e + n, bound, runs);
	memcpy(f->e, f->e + n, (size_t)n * sizeof(*f->e));
	free(bound);
}

/* The current bucket's entries not yet run, out of sequence order: move them to the flat
 * array, then in order. */
static void cur_flatten(sim_engine *eng)
{
	flat *f = &eng->flat;
	f->len = f->head = 0;
	if (eng->wr[CUR]) {
		/* block by block, the next one's entries asked for while this one's are copied:
		 * an ARP storm's time is thousands of entries in blocks written long before */
		block *b = eng->cur_head;
		entry *e = eng->rd, *end = eng->wr[CUR];
		const block *last = block_of(end - 1);
		eng->wr[CUR] = NULL;
		eng->head[CUR] = NULL;
		for (;;) {
			bool final = b == last;
			block *next = b->next; /* stale in the last block */
			if (!final)
				for (unsigned i = 0; i < BLOCK_ENTRIES; i++)
					__builtin_prefetch(&next->e[i]);
			const entry *stop = final ? end : (const entry *)(const void *)((char *)b + BLOCK_SIZE);
			uint32_t k = (uint32_t)(stop - e);
			flat_reserve(f, f->len + k);
			memcpy(&f->e[f->len], e, (size_t)k * sizeof(*e));
			f->len += k;
			block_release(eng, b);
			if (final)
				break;
			b = next;
			e = &b->e[0];
		}
	}
	f->took = f->len;
	flat_sort(f);
	eng->rd = NULL;
	eng->cur_head = NULL;
	eng->in_flat = true;
}

/* The place of a new entry at the current time. */
static entry *cur_slot(sim_engine *eng, uint64_t seq)
{
	if (!eng->in_flat) {
		entry *w = eng->wr[CUR];
		if (!w) {
			entry *e = bucket_slot(eng, CUR, seq, false);
			eng->cur_head = eng->head[CUR];
			eng->rd = e;
			return e;
		}
		if (seq > w[-1].seq)
			return bucket_slot(eng, CUR, seq, false);
		cur_flatten(eng); /* out of order: from now on in the flat array */
	}
	return flat_slot(&eng->flat, seq);
}

/* The place of a new entry (at, seq) relative to the current base (at >= last_at);
 * `check`: seq may be older than the ones queued. */
static entry *queue_slot_any(sim_engine *eng, sim_time at, uint64_t seq, bool check)
{
	uint64_t d = at ^ eng->last_at;
	if (!d)
		return cur_slot(eng, seq);
	unsigned b = 63u - (unsigned)__builtin_clzll(d);
	if (b < WHEEL_BITS) {
		unsigned j = (unsigned)at & (WHEEL_SLOTS - 1);
		wheel_mark(eng, j);
		return bucket_slot(eng, j, seq, check);
	}
	unsigned l = (b - WHEEL_BITS) >> 3;
	unsigned j = (unsigned)(at >> (WHEEL_BITS + l * 8)) & (DIGITS - 1);
	eng->up_bits[l][j >> 6] |= 1ULL << (j & 63);
	eng->levels_used |= 1u << l;
	return bucket_slot(eng, UP_BUCKET(l, j), seq, check);
}

/* The same for the newest sequence, with the usual case inline: a wheel slot that has
 * room in its last block. */
static inline entry *queue_slot_newest(sim_engine *eng, sim_time at, uint64_t seq)
{
	if (__builtin_expect((at ^ eng->last_at) - 1 < WHEEL_SLOTS - 1, 1)) {
		entry **wp = &eng->wr[at & (WHEEL_SLOTS - 1)];
		entry *w = *wp;
		if (__builtin_expect(!at_block_end(w), 1)) {
			*wp = w + 1;
			return w;
		}
	}
	return queue_slot_any(eng, at, seq, false);
}

/* Re-file a queued entry (at >= last_at). */
static inline void queue_file(sim_engine *eng, const entry *e) { *queue_slot_any(eng, e->at, e->seq, true) = *e; }

/* The current bucket is empty: make the next time queued the new base, its entries the
 * current bucket. False when nothing is queued. */
static bool queue_spread(sim_engine *eng)
{
	if (eng->wheel_summary) {
		unsigned w = (unsigned)__builtin_ctzll(eng->wheel_summary);
		unsigned j = w * 64 + (unsigned)__builtin_ctzll(eng->wheel_bits[w]);
		wheel_unmark(eng, j);
		eng->last_at = (eng->last_at & ~(sim_time)(WHEEL_SLOTS - 1)) | j;
		eng->cur_head = eng->head[j];
		eng->rd = &eng->cur_head->e[0];
		eng->wr[CUR] = eng->wr[j];
		eng->head[CUR] = eng->head[j];
		eng->wr[j] = NULL;
		eng->head[j] = NULL;
		if (eng->wheel_unsorted[w] & (1ULL << (j & 63))) {
			eng->wheel_unsorted[w] &= ~(1ULL << (j & 63));
			cur_flatten(eng);
		}
		return true;
	}
	if (!eng->levels_used)
		return false;
	unsigned l = (unsigned)__builtin_ctz(eng->levels_used), j = 0;
	for (unsigned w = 0; w < DIGITS / 64; w++)
		if (eng->up_bits[l][w]) {
			j = w * 64 + (unsigned)__builtin_ctzll(eng->up_bits[l][w]);
			break;
		}
	up_unmark(eng, l, j);
	unsigned i = UP_BUCKET(l, j);
	sim_time min = SIM_TIME_NEVER;
	for (block *b = eng->head[i];; b = b->next) {
		entry *p = &b->e[0];
		for (; p != eng->wr[i] && !at_block_end(p); p++)
			if (p->at < min)
				min = p->at;
		if (p == eng->wr[i])
			break;
	}
	eng->last_at = min;
	/* every entry lands in a lower level, the wheel or the current bucket, never back here */
	if (eng->stale * 4 > eng->live) {
		/* many cancelled timers queued (TCP re-arms its timers earlier all the time):
		 * drop them now rather than moving them down level by level */
		BUCKET_DRAIN(eng, i, eng->head[i], &eng->head[i]->e[0], e, {
			if (!entry_stale(eng, e))
				queue_file(eng, e);
			else
				eng->stale--;
		});
	} else {
		BUCKET_DRAIN(eng, i, eng->head[i], &eng->head[i]->e[0], e, queue_file(eng, e));
	}
	return true;
}

/* The earliest live entry, without taking it (stale entries met on the way are dropped).
 * NULL when nothing is pending. */
static entry *queue_front_any(sim_engine *eng)
{
	for (;;) {
		if (__builtin_expect(eng->in_flat, 0)) {
			flat *f = &eng->flat;
			while (f->head < f->len) {
				entry *e = &f->e[f->head];
				if (!entry_stale(eng, e))
					return e;
				f->head++;
				eng->stale--;
			}
			f->len = f->head = 0;
			eng->in_flat = false;
			if (f->cap > 4096 && f->cap / 8 > f->took) {
				/* a burst at one time once made it much bigger than this time needed:
				 * give the memory back (an ARP storm's times, tens of thousands of
				 * entries each, keep theirs instead of growing it anew every time) */
				free(f->e);
				f->e = NULL;
				f->cap = 0;
			}
		} else {
			while (eng->wr[CUR]) {
				entry *r = eng->rd;
				if (r == eng->wr[CUR]) {
					/* all taken */
					block_release(eng, eng->cur_head);
					eng->wr[CUR] = NULL;
					eng->head[CUR] = eng->cur_head = NULL;
					eng->rd = NULL;
				} else if (at_block_end(r)) {
					block *next = eng->cur_head->next;
					block_release(eng, eng->cur_head);
					eng->cur_head = next;
					eng->rd = &next->e[0];
					__builtin_prefetch(next); /* its link to the next block */
				} else if (entry_stale(eng, r)) {
					eng->rd++;
					eng->stale--;
				} else {
					return r;
				}
			}
		}
		if (!queue_spread(eng))
			return NULL;
	}
}

/* The same, with the usual case inline: an entry next in the current block. */
static inline entry *queue_front(sim_engine *eng)
{
	entry *r = eng->rd;
	if (__builtin_expect(r != eng->wr[CUR] && !at_block_end(r), 1)) {
		/* the entries are read one line after the other, from memory written long ago:
		 * ask for the ones a few events ahead (in the next block near the end of this
		 * one, whose link was asked for when this block was started) */
		uintptr_t ahead = (uintptr_t)(r + PREFETCH_AHEAD), end = (uintptr_t)eng->cur_head + BLOCK_SIZE;
		uintptr_t over = (uintptr_t)eng->cur_head->next + offsetof(block, e) + (ahead - end);
		__builtin_prefetch((const void *)(ahead < end ? ahead : over)); /* no branch */
		if (__builtin_expect(r->fn != NULL, 1))
			return r;
	}
	return queue_front_any(eng);
}

/* Take the entry queue_front() returned. */
static inline void queue_pop(sim_engine *eng)
{
	if (!eng->in_flat) {
		eng->rd++;
		return;
	}
	flat *f = &eng->flat;
	f->head++;
	if (f->head >= 4096 && f->head * 2 >= f->len) {
		/* a long chain of same-time events: drop the prefix that has run */
		memmove(f->e, f->e + f->head, (size_t)(f->len - f->head) * sizeof(*f->e));
		f->len -= f->head;
		f->head = 0;
	}
}

/* Lower the radix base to `to` (>= now, < last_at). A peek (sim_engine_next_time, or a run
 * that stopped at its time limit) moves the base without running anything, so a later
 * posting may lie before it. Only the current bucket, the wheel and the radix levels up to
 * the highest byte in which the old and new bases differ need re-filing: above it both
 * bases agree, so those entries' buckets do not change. Entries are gathered and re-filed
 * bucket by bucket in order, so equal times keep their order. */
static void queue_rebase(sim_engine *eng, sim_time to)
{
	unsigned b = 63u - (unsigned)__builtin_clzll(to ^ eng->last_at);
	int h = b < WHEEL_BITS ? -1 : (int)((b - WHEEL_BITS) >> 3); /* highest radix level */
	if (h < 0) {
		/* only the low 12 bits differ: the wheel and the levels stay as they are, the
		 * current time's entries become a wheel slot (which was empty: it is the time
		 * of the old base) */
		unsigned j = (unsigned)eng->last_at & (WHEEL_SLOTS - 1);
		if (eng->in_flat) {
			for (uint32_t i = eng->flat.head; i < eng->flat.len; i++)
				*bucket_slot(eng, j, eng->flat.e[i].seq, false) = eng->flat.e[i];
			eng->flat.len = eng->flat.head = 0;
			eng->in_flat = false;
		} else if (eng->wr[CUR]) {
			BUCKET_DRAIN(eng, CUR, eng->cur_head, eng->rd, e, *bucket_slot(eng, j, e->seq, false) = *e);
			eng->cur_head = NULL;
			eng->rd = NULL;
		}
		if (eng->wr[j])
			wheel_mark(eng, j);
		eng->last_at = to;
		return;
	}
	entry *all = NULL;
	size_t n = 0, cap = 0;
#define GATHER(ep)                                                        \
	do {                                                                  \
		if (n == cap) {                                                   \
			cap = cap ? cap * 2 : 256;                                    \
			all = sim_xreallocarray(all, cap, sizeof(*all), what_queue); \
		}                                                                 \
		all[n++] = *(ep);                                                 \
	} while (0)
	if (eng->in_flat) {
		for (uint32_t i = eng->flat.head; i < eng->flat.len; i++)
			GATHER(&eng->flat.e[i]);
		eng->flat.len = eng->flat.head = 0;
		eng->in_flat = false;
	} else if (eng->wr[CUR]) {
		BUCKET_DRAIN(eng, CUR, eng->cur_head, eng->rd, e, GATHER(e));
		eng->cur_head = NULL;
		eng->rd = NULL;
	}
	while (eng->wheel_summary) {
		unsigned w = (unsigned)__builtin_ctzll(eng->wheel_summary);
		unsigned j = w * 64 + (unsigned)__builtin_ctzll(eng->wheel_bits[w]);
		wheel_unmark(eng, j);
		eng->wheel_unsorted[w] &= ~(1ULL << (j & 63));
		BUCKET_DRAIN(eng, j, eng->head[j], &eng->head[j]->e[0], e, GATHER(e));
	}
	for (int l = 0; l <= h; l++) {
		if (!(eng->levels_used & (1u << l)))
			continue;
		for (unsigned j = 0; j < DIGITS; j++) {
			unsigned i = UP_BUCKET((unsigned)l, j);
			if (eng->wr[i])
				BUCKET_DRAIN(eng, i, eng->head[i], &eng->head[i]->e[0], e, GATHER(e));
		}
		memset(eng->up_bits[l], 0, sizeof(eng->up_bits[l]));
		eng->levels_used &= ~(1u << l);
	}
#undef GATHER
	eng->last_at = to;
	for (size_t i = 0; i < n; i++)
		queue_file(eng, &all[i]); /* all later than `to`: none lands in the current bucket */
	free(all);
}

/* The place of a new entry (at, seq), at >= now; the caller fills it in (there, rather
 * than copied from the stack: the line is written once). `newest`: seq is the latest
 * handed out. */
static inline entry *queue_reserve(sim_engine *eng, sim_time at, uint64_t seq, bool newest)
{
	if (__builtin_expect(at < eng->last_at, 0))
		queue_rebase(eng, at);
	return newest ? queue_slot_newest(eng, at, seq) : queue_slot_any(eng, at, seq, true);
}

static inline void oneshot_fill(entry *e, sim_time at, uint64_t seq, uint32_t kind, uint64_t entity,
                                sim_event_fn fn, void *ctx, uint64_t arg)
{
	e->at = at;
	e->seq = seq;
	e->fn = fn;
	e->ctx = ctx;
	e->arg = arg;
	e->entity = entity;
	e->kind = kind;
}

/* --- scheduling ------------------------------------------------------------------ */

static void schedule(sim_engine *eng, sim_event *ev, sim_time at)
{
	if (at < eng->now)
		at = eng->now; /* the past is not reachable; run it next */
	uint64_t seq = eng->next_seq++;
	ev->at = at;
	ev->queued_at = at;
	ev->seq = seq;
	uint32_t t = timer_alloc(eng, ev);
	ev->slot = t;
	entry *e = queue_reserve(eng, at, seq, true);
	e->at = at;
	e->seq = seq;
	e->fn = NULL;
	e->timer = t;
	e->gen = eng->timers[t].gen;
}

void sim_event_cancel(sim_engine *eng, sim_event *ev)
{
	if (ev->slot == SIM_SLOT_NONE)
		return;
	timer_release(eng, ev->slot);
	ev->slot = SIM_SLOT_NONE;
	eng->stale++;
}

void sim_event_schedule(sim_engine *eng, sim_event *ev, sim_time at)
{
	if (ev->slot != SIM_SLOT_NONE && at >= ev->queued_at) {
		/* later than the queued entry: remember the new deadline and order; the entry
		 * is re-filed when it surfaces (see sim_engine_run) */
		ev->at = at;
		ev->seq = eng->next_seq++;
		return;
	}
	sim_event_cancel(eng, ev);
	schedule(eng, ev, at);
}

void sim_event_schedule_in(sim_engine *eng, sim_event *ev, sim_time delay)
{
	sim_time at = delay > SIM_TIME_NEVER - eng->now ? SIM_TIME_NEVER : eng->now + delay;
	sim_event_schedule(eng, ev, at);
}

/* A posting other than the usual one, out of line so that the usual one needs no frame. */
__attribute__((noinline)) static void post_any(sim_engine *eng, sim_time at, uint64_t seq, uint32_t kind,
                                               uint64_t entity, sim_event_fn fn, void *ctx, uint64_t arg)
{
	eng->live++;
	oneshot_fill(queue_reserve(eng, at, seq, seq + 1 == eng->next_seq), at, seq, kind, entity, fn, ctx, arg);
}

void sim_post(sim_engine *eng, sim_time at, uint32_t kind, uint64_t entity, sim_event_fn fn,
              void *ctx, uint64_t arg)
{
	if (at < eng->now)
		at = eng->now;
	uint64_t seq = eng->next_seq++;
	/* the usual case: a later time in the wheel, whose slot has room in its last block */
	if (__builtin_expect(at > eng->last_at && !((at ^ eng->last_at) >> WHEEL_BITS), 1)) {
		entry **wp = &eng->wr[at & (WHEEL_SLOTS - 1)];
		entry *w = *wp;
		if (__builtin_expect(!at_block_end(w), 1)) {
			*wp = w + 1;
			eng->live++;
			oneshot_fill(w, at, seq, kind, entity, fn, ctx, arg);
			return;
		}
	}
	post_any(eng, at, seq, kind, entity, fn, ctx, arg);
}

uint64_t sim_engine_take_seq(sim_engine *eng) { return eng->next_seq++; }

void sim_post_seq(sim_engine *eng, sim_time at, uint64_t seq, uint32_t kind, uint64_t entity, sim_event_fn fn,
                  void *ctx, uint64_t arg)
{
	if (at < eng->now)
		at = eng->now;
	/* taken earlier: placed by its sequence (queue_slot_any notes it when out of order) */
	post_any(eng, at, seq, kind, entity, fn, ctx, arg);
}

void sim_engine_ahead(const sim_engine *eng, sim_event_fn fn, void **ctx, unsigned n)
{
	unsigned k = 0;
	if (eng->in_flat) {
		for (uint32_t i = eng->flat.head; k < n && i < eng->flat.len; i++, k++)
			ctx[k] = eng->flat.e[i].fn == fn ? eng->flat.e[i].ctx : NULL;
	} else if (eng->wr[CUR]) {
		/* the current bucket from rd on, into the next block if there is one (rd may
		 * sit at its block's end: the next entry is then in the next block) */
		const entry *e = eng->rd, *end = eng->wr[CUR];
		const block *b = eng->cur_head, *last = block_of(end - 1);
		for (; k < n; k++, e++) {
			if (at_block_end(e)) {
				if (b == last)
					break;
				b = b->next;
				e = &b->e[0];
			}
			if (e == end)
				break;
			ctx[k] = e->fn == fn ? e->ctx : NULL;
		}
	}
	for (; k < n; k++)
		ctx[k] = NULL;
}

/* --- running --------------------------------------------------------------------- */

static inline void fold(sim_engine *eng, sim_time at, uint32_t kind, uint64_t entity)
{
	uint64_t f = eng->fingerprint;
	f = sim_mix64(f ^ at);
	f = sim_mix64(f ^ (((uint64_t)kind << 32) | (entity >> 32)) ^ (entity << 32) ^ entity);
	eng->fingerprint = f;
}

void sim_engine_fold(sim_engine *eng, uint64_t value)
{
	eng->fingerprint = sim_mix64(eng->fingerprint ^ value);
}

/* --- ticks ---------------------------------------------------------------------- */

static void ticks_rearm(sim_engine *eng)
{
	eng->next_tick = SIM_TIME_NEVER;
	for (size_t i = 0; i < eng->n_ticks; i++)
		if (eng->ticks[i].due < eng->next_tick)
			eng->next_tick = eng->ticks[i].due;
}

void sim_engine_tick_add(sim_engine *eng, sim_time every, sim_tick_fn fn, void *ctx)
{
	if (eng->n_ticks == eng->cap_ticks) {
		eng->cap_ticks = eng->cap_ticks ? eng->cap_ticks * 2 : 8;
		eng->ticks = sim_xreallocarray(eng->ticks, eng->cap_ticks, sizeof(*eng->ticks), "engine ticks");
	}
	if (!every)
		every = 1;
	eng->ticks[eng->n_ticks++] = (sim_tick){ fn, ctx, every, eng->now + every };
	ticks_rearm(eng);
}

void sim_engine_tick_remove(sim_engine *eng, sim_tick_fn fn, void *ctx)
{
	for (size_t i = 0; i < eng->n_ticks; i++) {
		if (eng->ticks[i].fn == fn && eng->ticks[i].ctx == ctx) {
			memmove(&eng->ticks[i], &eng->ticks[i + 1], (eng->n_ticks - i - 1) * sizeof(*eng->ticks));
			eng->n_ticks--;
			break;
		}
	}
	ticks_rearm(eng);
}

/* Run the ticks due by `at`, in the order they were added. */
static void ticks_run(sim_engine *eng, sim_time at)
{
	for (size_t i = 0; i < eng->n_ticks; i++) {
		sim_tick *t = &eng->ticks[i];
		if (t->due > at)
			continue;
		t->due = at + t->every;
		t->fn(t->ctx, at);
	}
	ticks_rearm(eng);
}

sim_run_result sim_engine_run(sim_engine *eng, sim_time until, uint64_t max_events)
{
	uint64_t done = 0;
	eng->stop = false;
	sim_oom_set_clock(eng, &eng->now);
	for (;;) {
		if (max_events && done >= max_events)
			return SIM_RUN_COUNT;
		entry *top = queue_front(eng);
		if (!top)
			return SIM_RUN_IDLE;
		if (top->at > until) {
			if (until > eng->now)
				eng->now = until;
			return SIM_RUN_TIME;
		}
		/* read what is needed before the handler runs: it may post, which may move
		 * the flat current bucket */
		sim_time at = top->at;
		sim_event_fn fn = top->fn;
		eng->now = at;
		if (fn) {
			sim_event tmp = { .at = at, .fn = fn, .ctx = top->ctx, .arg = top->arg, .entity = top->entity, .kind = top->kind, .slot = SIM_SLOT_NONE, .owned = 1 };
			queue_pop(eng);
			if (at >= eng->next_tick)
				ticks_run(eng, at);
			eng->live--;
			fold(eng, at, tmp.kind, tmp.entity);
			eng->events_run++;
			done++;
			fn(eng, &tmp);
		} else {
			entry e = *top;
			queue_pop(eng);
			if (at >= eng->next_tick)
				ticks_run(eng, at);
			sim_event *ev = eng->timers[e.timer].ev;
			if (ev->seq != e.seq) {
				/* re-armed later while queued: file it at its real deadline, with the
				 * order the re-arm gave it (a key above the one just taken) */
				e.seq = ev->seq;
				e.at = ev->at;
				ev->queued_at = ev->at;
				*queue_reserve(eng, e.at, e.seq, false) = e;
				continue;
			}
			timer_release(eng, e.timer);
			ev->slot = SIM_SLOT_NONE;
			fold(eng, at, ev->kind, ev->entity);
			eng->events_run++;
			done++;
			ev->fn(eng, ev);
		}
		if (eng->stop)
			return SIM_RUN_STOPPED;
	}
}

void sim_engine_stop(sim_engine *eng) { eng->stop = true; }

sim_time sim_engine_next_time(sim_engine *eng)
{
	entry *top = queue_front(eng);
	return top ? top->at : SIM_TIME_NEVER;
}

void sim_engine_advance(sim_engine *eng, sim_time to)
{
	sim_time next = sim_engine_next_time(eng);
	if (to > next)
		to = next;
	if (to > eng->now)
		eng->now = to;
}

uint64_t sim_engine_fingerprint(const sim_engine *eng) { return eng->fingerprint; }
uint64_t sim_engine_events_run(const sim_engine *eng) { return eng->events_run; }
size_t sim_engine_pending(const sim_engine *eng) { return eng->live; }

size_t sim_engine_memory(const sim_engine *eng)
{
	return sizeof(*eng) + eng->pool_blocks * BLOCK_SIZE + eng->cap_slabs * sizeof(void *) +
	       eng->cap_free * sizeof(block *) + (size_t)eng->flat.cap * sizeof(entry) +
	       (size_t)eng->timer_cap * sizeof(timer_slot);
}

void sim_engine_rng(const sim_engine *eng, const char *name, uint64_t index, sim_rng *out)
{
	sim_rng_stream(out, eng->seed, name, index);
}
