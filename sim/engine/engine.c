/* The discrete-event engine: a timing wheel of 1-ns slots for the near future, in front
 * of a radix heap for the far future, FIFO within a time.
 *
 * A queue entry carries everything a one-shot posting runs (time, order, handler, object,
 * argument, fingerprint identity), so running it reads the entry and nothing else: the
 * usual one is a 32-byte unit, half a cache line, whose time is its wheel slot's and whose
 * sequence is an offset from its block's; the rest take two units (see `unit`). An
 * embedded timer's entry names a slot of the engine's timer table
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

/* A queued event, decoded (the flat current bucket holds these, and every path other than
 * the usual post and pop goes through one). fn != NULL: a one-shot posting, everything is
 * here. fn == NULL: an embedded timer, the event is timers[timer].ev while its generation
 * is still gen. */
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
} entry;

/* In the buckets an entry is one or two 32-byte units; the last word of every unit holds
 * its tag in the low two bits.
 *  - compact (one unit): a one-shot in a wheel slot or the current bucket (so its time is
 *    the bucket's) whose sequence is within DSEQ_RANGE of its block's base, and whose
 *    entity and argument fit in 32 bits (TAG_COMPACT: fn, ctx, kind | entity << 32,
 *    arg << 32 | (seq - base) << 2) or whose argument is 0 (TAG_COMPACT_E: fn, ctx,
 *    entity, kind << 32 | (seq - base) << 2 | 1; entities are often 64-bit hashes). Two of
 *    them share a cache line, which halves the lines a post writes and a pop reads.
 *  - wide (TAG_WIDE + TAG_WIDE2, two units, never split across blocks): anything else,
 *    with its own time and sequence: fn, ctx, arg (a timer: timer | gen << 32), tag; then
 *    entity, at, seq, kind << 32 | TAG_WIDE2.
 *  - a TAG_WIDE2 unit where an entry should start is padding: a wide entry did not fit in
 *    the block's last unit, the bucket goes on in the next block. */
typedef union unit {
	struct {
		sim_event_fn fn;
		void *ctx;
		uint64_t a; /* compact: kind | entity << 32; wide: arg, or timer | gen << 32 */
		uint64_t b; /* compact: arg << 32 | dseq << 2; wide: the tag */
	} h;
	struct {
		uint64_t entity;
		sim_time at;
		uint64_t seq;
		uint64_t b; /* kind << 32 | TAG_WIDE2 */
	} t;
} unit;
_Static_assert(sizeof(unit) == 32, "a unit is 32 bytes");

#define TAG_COMPACT 0u
#define TAG_COMPACT_E 1u
#define TAG_WIDE 2u
#define TAG_WIDE2 3u
#define TAG_MASK 3u
#define DSEQ_RANGE (1ULL << 29) /* a compact unit's sequence offset: 30 bits, signed */

static inline unsigned unit_tag(const unit *u) { return (unsigned)u->h.b & TAG_MASK; }
static inline bool unit_compact(const unit *u) { return unit_tag(u) < TAG_WIDE; }
static inline int64_t unit_dseq(const unit *u) { return (int64_t)((int32_t)(uint32_t)u->h.b >> 2); }

/* A block is 1 KiB, aligned to 1 KiB: a 32-byte header (the chain link and the base of
 * its compact units' sequences) and 31 units. A bucket is known by its append point, the
 * unit after its last entry: since units start 32 bytes into a block, an append point at a
 * block boundary (low 10 bits zero, NULL included) is exactly "no room here", so the usual
 * append is one load, one test and one store. The last unit before a non-empty bucket's
 * append point is always its last entry's (a block is only chained when an entry goes
 * into it; padding is only written when the next entry goes into the next block). */
#define BLOCK_SIZE 1024u
#define BLOCK_UNITS 31
typedef struct block {
	struct block *next; /* the bucket's next block; stale in its last block */
	uint64_t base;      /* compact units here have sequence base + dseq */
	uint64_t pad[2];
	unit u[BLOCK_UNITS];
} block;
_Static_assert(sizeof(block) == BLOCK_SIZE, "a block is 1 KiB");

#define SLAB_BLOCKS 64                /* the first slab's blocks */
#define HUGE_SLAB (2u * 1024 * 1024) /* the largest slab: a huge page */
#define PREFETCH_AHEAD 8              /* units: four cache lines, about four events */

static inline bool at_block_end(const unit *p) { return !((uintptr_t)p & (BLOCK_SIZE - 1)); }
static inline block *block_of(const unit *p) { return (block *)((uintptr_t)p & ~(uintptr_t)(BLOCK_SIZE - 1)); }

/* A bucket's append point and the sequence base of its last block, side by side: the
 * usual post reads both from one line. */
typedef struct bucket_tail {
	unit *wr; /* NULL: empty */
	uint64_t base;
} bucket_tail;

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
	unit *rd;         /* the next unit of the current bucket, in block cur_head */
	block *cur_head;
	bool in_flat; /* the entries at last_at are in `flat`, in sequence order (rd unused) */
	flat flat;
	entry front;      /* the current bucket's next wide entry, decoded by queue_settle */
	unsigned front_n; /* its units (0: it is the flat array's head) */
	bucket_tail tail[BUCKETS]; /* append points */
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

	/* watched times (sim_engine_watch): a bit per low 12 bits of the time, with counts */
	uint64_t watch_bits[WHEEL_SLOTS / 64];
	uint32_t *watch_n;
	size_t n_watched; /* watches in force */
	sim_watch_fn watch_fn;
	void *watch_ctx;
	bool in_watch;
	/* the sequence of the event running (or that ran last): cur_seq, or that of the compact
	 * unit cur_unit while it is set (read only when asked: sim_engine_before) */
	const unit *cur_unit;
	uint64_t cur_seq;

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
	free(eng->watch_n);
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

/* The sequence of the entry whose last unit is p. */
static inline uint64_t unit_seq_before(const unit *p)
{
	if (unit_tag(p) == TAG_WIDE2)
		return p->t.seq;
	return block_of(p)->base + (uint64_t)unit_dseq(p);
}

/* Decode the entry at p (not padding, not at a block end) of a bucket whose time is
 * bucket_at; returns its units. */
static inline unsigned unit_decode(const unit *p, sim_time bucket_at, entry *e)
{
	if (unit_compact(p)) {
		bool e64 = unit_tag(p) == TAG_COMPACT_E;
		*e = (entry){ .at = bucket_at,
			      .seq = block_of(p)->base + (uint64_t)unit_dseq(p),
			      .fn = p->h.fn,
			      .ctx = p->h.ctx,
			      .arg = e64 ? 0 : p->h.b >> 32,
			      .entity = e64 ? p->h.a : p->h.a >> 32,
			      .kind = e64 ? (uint32_t)(p->h.b >> 32) : (uint32_t)p->h.a };
		return 1;
	}
	*e = (entry){ .at = p[1].t.at,
		      .seq = p[1].t.seq,
		      .fn = p->h.fn,
		      .ctx = p->h.ctx,
		      .arg = p->h.fn ? p->h.a : 0,
		      .entity = p[1].t.entity,
		      .kind = (uint32_t)(p[1].t.b >> 32),
		      .timer = p->h.fn ? 0 : (uint32_t)p->h.a,
		      .gen = p->h.fn ? 0 : (uint32_t)(p->h.a >> 32) };
	return 2;
}

/* A compact unit in a block whose base is `base` (seq within DSEQ_RANGE of it). */
static inline void unit_set_compact(unit *u, uint64_t base, sim_event_fn fn, void *ctx, uint32_t kind,
                                    uint64_t entity, uint64_t arg, uint64_t seq)
{
	uint64_t dseq = (uint32_t)((seq - base) << 2);
	u->h.fn = fn;
	u->h.ctx = ctx;
	if (entity >> 32) { /* then arg is 0 (fits_compact) */
		u->h.a = entity;
		u->h.b = (uint64_t)kind << 32 | dseq | TAG_COMPACT_E;
	} else {
		u->h.a = kind | entity << 32;
		u->h.b = arg << 32 | dseq | TAG_COMPACT;
	}
}

/* Whether a one-shot's entity and argument fit a compact unit (its sequence is checked
 * against the block it would go in). */
static inline bool fits_compact(uint64_t entity, uint64_t arg) { return !((entity | arg) >> 32) || !arg; }

/* A new block for bucket i, whose append point is w (NULL: empty), base seq. */
static inline unit *bucket_grow(sim_engine *eng, unsigned i, unit *w, uint64_t seq)
{
	block *b = block_alloc(eng);
	b->base = seq;
	if (!w)
		eng->head[i] = b;
	else
		block_of(w - 1)->next = b;
	eng->tail[i].base = seq;
	return &b->u[0];
}

/* Two units at the end of bucket i for a wide entry of sequence seq. */
static inline unit *bucket_reserve_wide(sim_engine *eng, unsigned i, uint64_t seq)
{
	unit *w = eng->tail[i].wr;
	if (at_block_end(w) || at_block_end(w + 1)) {
		if (!at_block_end(w))
			w->t.b = TAG_WIDE2; /* padding: the rest of the bucket is in the next block */
		w = bucket_grow(eng, i, w, seq);
	}
	eng->tail[i].wr = w + 2;
	return w;
}

/* Append e at the end of bucket i (the caller marks a bucket that was empty as used).
 * `check`: its sequence may be older than the bucket's last. `compact_ok`: the bucket's
 * time is implied (a wheel slot or the current bucket). */
static void bucket_put(sim_engine *eng, unsigned i, const entry *e, bool check, bool compact_ok)
{
	unit *w = eng->tail[i].wr;
	if (check && w && i < WHEEL_SLOTS && e->seq < unit_seq_before(w - 1))
		eng->wheel_unsorted[i >> 6] |= 1ULL << (i & 63);
	if (compact_ok && e->fn && fits_compact(e->entity, e->arg)) {
		if (at_block_end(w))
			w = bucket_grow(eng, i, w, e->seq);
		else if (e->seq - eng->tail[i].base + DSEQ_RANGE >= 2 * DSEQ_RANGE)
			goto wide; /* too far from the block's base */
		unit_set_compact(w, eng->tail[i].base, e->fn, e->ctx, e->kind, e->entity, e->arg, e->seq);
		eng->tail[i].wr = w + 1;
		return;
	}
wide:
	w = bucket_reserve_wide(eng, i, e->seq);
	w[0].h.fn = e->fn;
	w[0].h.ctx = e->ctx;
	w[0].h.a = e->fn ? e->arg : (e->timer | (uint64_t)e->gen << 32);
	w[0].h.b = TAG_WIDE;
	w[1].t.entity = e->entity;
	w[1].t.at = e->at;
	w[1].t.seq = e->seq;
	w[1].t.b = (uint64_t)e->kind << 32 | TAG_WIDE2;
}

/* Visit bucket i's entries from unit `from` (in block `b`) in order, decoded into `*ep`
 * (compact ones at time bucket_at), giving its blocks back to the pool once passed; the
 * bucket is left empty. The body must not append to bucket i. */
#define BUCKET_DRAIN(eng, i, b, from, bucket_at, ep, body)                          \
	do {                                                                       \
		block *b_ = (b);                                                   \
		unit *p_ = (from), *end_ = (eng)->tail[i].wr;                      \
		(eng)->tail[i].wr = NULL;                                          \
		(eng)->head[i] = NULL;                                             \
		while (b_) {                                                       \
			if (p_ == end_) {                                          \
				block_release(eng, b_);                            \
				break;                                             \
			}                                                          \
			if (at_block_end(p_) || unit_tag(p_) == TAG_WIDE2) {       \
				block *next_ = b_->next;                           \
				block_release(eng, b_);                            \
				b_ = next_;                                        \
				p_ = &b_->u[0];                                    \
				continue;                                          \
			}                                                          \
			entry ed_, *ep = &ed_;                                     \
			p_ += unit_decode(p_, (bucket_at), ep);                    \
			body;                                                      \
		}                                                                  \
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
/* Sift heap[j] down the first n places of the run heap (keyed by each run's next
 * entry's sequence). */
static void runs_sift_down(const entry *a, const uint32_t *pos, uint32_t *heap, uint32_t j, uint32_t n)
{
	for (;;) {
		uint32_t c = 2 * j + 1;
		if (c >= n)
			return;
		if (c + 1 < n && a[pos[heap[c + 1]]].seq < a[pos[heap[c]]].seq)
			c++;
		if (a[pos[heap[j]]].seq < a[pos[heap[c]]].seq)
			return;
		uint32_t t = heap[j];
		heap[j] = heap[c];
		heap[c] = t;
		j = c;
	}
}

static void merge_runs(const entry *a, entry *out, const uint32_t *bound, uint32_t runs)
{
	uint32_t *pos = sim_xreallocarray(NULL, (size_t)runs * 2, sizeof(*pos), what_queue), *heap = pos + runs;
	for (uint32_t r = 0; r < runs; r++) {
		pos[r] = bound[r];
		heap[r] = r;
	}
	/* runs start in order of their first entries' positions, not their sequences: heapify */
	for (uint32_t i = runs / 2; i-- > 0;)
		runs_sift_down(a, pos, heap, i, runs);
	uint32_t o = bound[0], n = runs;
	while (n) {
		uint32_t r = heap[0];
		out[o++] = a[pos[r]++];
		if (pos[r] == bound[r + 1])
			heap[0] = heap[--n]; /* run used up */
		runs_sift_down(a, pos, heap, 0, n);
	}
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
/* The running event's sequence out of its unit, before that unit's block may go. */
static inline void cur_pin(sim_engine *eng)
{
	if (eng->cur_unit) {
		eng->cur_seq = block_of(eng->cur_unit)->base + (uint64_t)unit_dseq(eng->cur_unit);
		eng->cur_unit = NULL;
	}
}

static void cur_flatten(sim_engine *eng)
{
	cur_pin(eng);
	flat *f = &eng->flat;
	f->len = f->head = 0;
	if (eng->tail[CUR].wr)
		BUCKET_DRAIN(eng, CUR, eng->cur_head, eng->rd, eng->last_at, e, {
			flat_reserve(f, f->len + 1);
			f->e[f->len++] = *e;
		});
	f->took = f->len;
	flat_sort(f);
	eng->rd = NULL;
	eng->cur_head = NULL;
	eng->in_flat = true;
}

/* File e at the current time. */
static void cur_put(sim_engine *eng, const entry *e)
{
	if (!eng->in_flat) {
		unit *w = eng->tail[CUR].wr;
		if (!w) {
			bucket_put(eng, CUR, e, false, true);
			eng->cur_head = eng->head[CUR];
			eng->rd = &eng->cur_head->u[0];
			return;
		}
		if (e->seq > unit_seq_before(w - 1)) {
			bucket_put(eng, CUR, e, false, true);
			return;
		}
		cur_flatten(eng); /* out of order: from now on in the flat array */
	}
	*flat_slot(&eng->flat, e->seq) = *e;
}

/* File e relative to the current base (e->at >= last_at); `check`: its sequence may be
 * older than the ones queued. */
static void queue_put_any(sim_engine *eng, const entry *e, bool check)
{
	uint64_t d = e->at ^ eng->last_at;
	if (!d) {
		cur_put(eng, e);
		return;
	}
	unsigned b = 63u - (unsigned)__builtin_clzll(d);
	if (b < WHEEL_BITS) {
		unsigned j = (unsigned)e->at & (WHEEL_SLOTS - 1);
		wheel_mark(eng, j);
		bucket_put(eng, j, e, check, true);
		return;
	}
	unsigned l = (b - WHEEL_BITS) >> 3;
	unsigned j = (unsigned)(e->at >> (WHEEL_BITS + l * 8)) & (DIGITS - 1);
	eng->up_bits[l][j >> 6] |= 1ULL << (j & 63);
	eng->levels_used |= 1u << l;
	bucket_put(eng, UP_BUCKET(l, j), e, check, false);
}

/* Re-file a queued entry (at >= last_at). */
static inline void queue_file(sim_engine *eng, const entry *e) { queue_put_any(eng, e, true); }

/* Re-file the wide entry at p (at >= last_at): into a lower radix level it is copied as it
 * is (no order check there: a radix bucket is re-filed entry by entry when it spreads). */
static void queue_refile_wide(sim_engine *eng, const unit *p)
{
	sim_time at = p[1].t.at;
	uint64_t d = at ^ eng->last_at;
	if (d >> WHEEL_BITS) {
		unsigned b = 63u - (unsigned)__builtin_clzll(d);
		unsigned l = (b - WHEEL_BITS) >> 3;
		unsigned j = (unsigned)(at >> (WHEEL_BITS + l * 8)) & (DIGITS - 1);
		eng->up_bits[l][j >> 6] |= 1ULL << (j & 63);
		eng->levels_used |= 1u << l;
		memcpy(bucket_reserve_wide(eng, UP_BUCKET(l, j), p[1].t.seq), p, 2 * sizeof(unit));
		return;
	}
	entry e;
	unit_decode(p, 0, &e);
	queue_file(eng, &e);
}

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
		eng->rd = &eng->cur_head->u[0];
		eng->tail[CUR] = eng->tail[j];
		eng->head[CUR] = eng->head[j];
		eng->tail[j].wr = NULL;
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
	/* a radix bucket holds wide entries only (compact ones take their bucket's time) */
	sim_time min = SIM_TIME_NEVER;
	for (block *b = eng->head[i];; b = b->next) {
		unit *p = &b->u[0];
		for (; p != eng->tail[i].wr && !at_block_end(p) && unit_tag(p) != TAG_WIDE2; p += 2)
			if (p[1].t.at < min)
				min = p[1].t.at;
		if (p == eng->tail[i].wr)
			break;
	}
	eng->last_at = min;
	/* every entry lands in a lower level, the wheel or the current bucket, never back here;
	 * with many cancelled timers queued (TCP re-arms its timers earlier all the time), drop
	 * them now rather than moving them down level by level */
	bool drop_stale = eng->stale * 4 > eng->live;
	block *b = eng->head[i];
	unit *p = &b->u[0], *end = eng->tail[i].wr;
	eng->tail[i].wr = NULL;
	eng->head[i] = NULL;
	while (b) {
		if (p == end) {
			block_release(eng, b);
			break;
		}
		if (at_block_end(p) || unit_tag(p) == TAG_WIDE2) {
			block *next = b->next;
			block_release(eng, b);
			b = next;
			p = &b->u[0];
			continue;
		}
		if (drop_stale && !p->h.fn && eng->timers[(uint32_t)p->h.a].gen != (uint32_t)(p->h.a >> 32))
			eng->stale--;
		else
			queue_refile_wide(eng, p);
		p += 2;
	}
	return true;
}

/* Where queue_settle found the earliest live entry. */
enum front_kind {
	FRONT_NONE,    /* nothing is pending */
	FRONT_COMPACT, /* a compact unit at eng->rd */
	FRONT_ENTRY,   /* decoded in eng->front, or the flat array's head: queue_front_entry */
};

/* Find the earliest live entry without taking it (stale entries met on the way are
 * dropped); eng->front_n is what taking a FRONT_ENTRY skips. */
static enum front_kind queue_settle(sim_engine *eng)
{
	for (;;) {
		if (__builtin_expect(eng->in_flat, 0)) {
			flat *f = &eng->flat;
			while (f->head < f->len) {
				entry *e = &f->e[f->head];
				if (!entry_stale(eng, e)) {
					eng->front_n = 0;
					return FRONT_ENTRY;
				}
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
			while (eng->tail[CUR].wr) {
				unit *r = eng->rd;
				if (r == eng->tail[CUR].wr) {
					/* all taken */
					block_release(eng, eng->cur_head);
					eng->tail[CUR].wr = NULL;
					eng->head[CUR] = eng->cur_head = NULL;
					eng->rd = NULL;
				} else if (at_block_end(r) || unit_tag(r) == TAG_WIDE2) {
					/* the block's end, or padding before it */
					block *next = eng->cur_head->next;
					block_release(eng, eng->cur_head);
					eng->cur_head = next;
					eng->rd = &next->u[0];
					__builtin_prefetch(next); /* its link to the next block */
				} else if (unit_compact(r)) {
					return FRONT_COMPACT; /* a one-shot: never stale */
				} else {
					unit_decode(r, eng->last_at, &eng->front);
					if (!entry_stale(eng, &eng->front)) {
						eng->front_n = 2;
						return FRONT_ENTRY;
					}
					eng->rd += 2;
					eng->stale--;
				}
			}
		}
		if (!queue_spread(eng))
			return FRONT_NONE;
	}
}

/* The FRONT_ENTRY queue_settle found. */
static inline const entry *queue_front_entry(const sim_engine *eng)
{
	return eng->front_n ? &eng->front : &eng->flat.e[eng->flat.head];
}

/* Take the FRONT_ENTRY queue_settle found. */
static void queue_take_any(sim_engine *eng)
{
	if (eng->front_n) {
		eng->rd += eng->front_n;
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

/* The usual front: a compact unit next in the current block, or NULL. */
static inline const unit *queue_front_compact(sim_engine *eng)
{
	unit *r = eng->rd;
	if (__builtin_expect(r != eng->tail[CUR].wr && !at_block_end(r), 1)) {
		/* the units are read one line after the other, from memory written long ago: ask
		 * for the ones a few events ahead (in the next block near the end of this one,
		 * whose link was asked for when this block was started) */
		uintptr_t ahead = (uintptr_t)(r + PREFETCH_AHEAD), end = (uintptr_t)eng->cur_head + BLOCK_SIZE;
		uintptr_t over = (uintptr_t)eng->cur_head->next + offsetof(block, u) + (ahead - end);
		__builtin_prefetch((const void *)(ahead < end ? ahead : over)); /* no branch */
		if (__builtin_expect(unit_compact(r), 1))
			return r;
	}
	return NULL;
}

/* Lower the radix base to `to` (>= now, < last_at). A peek (sim_engine_next_time, or a run
 * that stopped at its time limit) moves the base without running anything, so a later
 * posting may lie before it. Only the current bucket, the wheel and the radix levels up to
 * the highest byte in which the old and new bases differ need re-filing: above it both
 * bases agree, so those entries' buckets do not change. Entries are gathered and re-filed
 * bucket by bucket in order, so equal times keep their order. */
static void queue_rebase(sim_engine *eng, sim_time to)
{
	cur_pin(eng);
	unsigned b = 63u - (unsigned)__builtin_clzll(to ^ eng->last_at);
	int h = b < WHEEL_BITS ? -1 : (int)((b - WHEEL_BITS) >> 3); /* highest radix level */
	if (h < 0) {
		/* only the low 12 bits differ: the wheel and the levels stay as they are, the
		 * current time's entries become a wheel slot (which was empty: it is the time
		 * of the old base) */
		unsigned j = (unsigned)eng->last_at & (WHEEL_SLOTS - 1);
		if (eng->in_flat) {
			for (uint32_t i = eng->flat.head; i < eng->flat.len; i++)
				bucket_put(eng, j, &eng->flat.e[i], false, true);
			eng->flat.len = eng->flat.head = 0;
			eng->in_flat = false;
		} else if (eng->tail[CUR].wr) {
			BUCKET_DRAIN(eng, CUR, eng->cur_head, eng->rd, eng->last_at, e, bucket_put(eng, j, e, false, true));
			eng->cur_head = NULL;
			eng->rd = NULL;
		}
		if (eng->tail[j].wr)
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
	} else if (eng->tail[CUR].wr) {
		BUCKET_DRAIN(eng, CUR, eng->cur_head, eng->rd, eng->last_at, e, GATHER(e));
		eng->cur_head = NULL;
		eng->rd = NULL;
	}
	while (eng->wheel_summary) {
		unsigned w = (unsigned)__builtin_ctzll(eng->wheel_summary);
		unsigned j = w * 64 + (unsigned)__builtin_ctzll(eng->wheel_bits[w]);
		wheel_unmark(eng, j);
		eng->wheel_unsorted[w] &= ~(1ULL << (j & 63));
		sim_time slot_at = (eng->last_at & ~(sim_time)(WHEEL_SLOTS - 1)) | j;
		BUCKET_DRAIN(eng, j, eng->head[j], &eng->head[j]->u[0], slot_at, e, GATHER(e));
	}
	for (int l = 0; l <= h; l++) {
		if (!(eng->levels_used & (1u << l)))
			continue;
		for (unsigned j = 0; j < DIGITS; j++) {
			unsigned i = UP_BUCKET((unsigned)l, j);
			if (eng->tail[i].wr)
				BUCKET_DRAIN(eng, i, eng->head[i], &eng->head[i]->u[0], 0, e, GATHER(e));
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

/* File a new entry (e->at >= now). `newest`: its sequence is the latest handed out. */
static void queue_put(sim_engine *eng, const entry *e, bool newest)
{
	if (__builtin_expect(e->at < eng->last_at, 0))
		queue_rebase(eng, e->at);
	queue_put_any(eng, e, !newest);
}

/* --- watched times ---------------------------------------------------------------- */

/* A sequence was just taken for a posting at `at`: tell the watcher if `at` is watched
 * (a count of watched times first: an engine without any pays one test). */
static inline void watch_take(sim_engine *eng, sim_time at, uint64_t seq)
{
	if (__builtin_expect(eng->n_watched != 0, 0) &&
	    ((eng->watch_bits[(at >> 6) & (WHEEL_SLOTS / 64 - 1)] >> (at & 63)) & 1u) && !eng->in_watch && eng->watch_fn) {
		eng->in_watch = true;
		eng->watch_fn(eng->watch_ctx, at, seq);
		eng->in_watch = false;
	}
}

bool sim_engine_set_watcher(sim_engine *eng, sim_watch_fn fn, void *ctx)
{
	if (eng->watch_fn && eng->watch_ctx != ctx)
		return false;
	if (!fn) {
		eng->watch_fn = NULL;
		eng->watch_ctx = NULL;
		return true;
	}
	eng->watch_fn = fn;
	eng->watch_ctx = ctx;
	if (!eng->watch_n)
		eng->watch_n = sim_xcalloc(WHEEL_SLOTS, sizeof(*eng->watch_n), what_queue);
	return true;
}

void sim_engine_watch(sim_engine *eng, sim_time at)
{
	unsigned j = (unsigned)at & (WHEEL_SLOTS - 1);
	eng->n_watched++;
	if (eng->watch_n[j]++ == 0)
		eng->watch_bits[j >> 6] |= 1ULL << (j & 63);
}

void sim_engine_unwatch(sim_engine *eng, sim_time at)
{
	unsigned j = (unsigned)at & (WHEEL_SLOTS - 1);
	eng->n_watched--;
	if (--eng->watch_n[j] == 0)
		eng->watch_bits[j >> 6] &= ~(1ULL << (j & 63));
}

bool sim_engine_before(const sim_engine *eng, sim_time at, uint64_t seq)
{
	if (eng->now != at)
		return eng->now < at;
	uint64_t cur = eng->cur_unit ? block_of(eng->cur_unit)->base + (uint64_t)unit_dseq(eng->cur_unit) : eng->cur_seq;
	return cur < seq;
}

/* --- scheduling ------------------------------------------------------------------ */

static void schedule(sim_engine *eng, sim_event *ev, sim_time at)
{
	if (at < eng->now)
		at = eng->now; /* the past is not reachable; run it next */
	uint64_t seq = eng->next_seq++;
	watch_take(eng, at, seq);
	ev->at = at;
	ev->queued_at = at;
	ev->seq = seq;
	uint32_t t = timer_alloc(eng, ev);
	ev->slot = t;
	entry e = { .at = at, .seq = seq, .timer = t, .gen = eng->timers[t].gen };
	queue_put(eng, &e, true);
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
		watch_take(eng, at, ev->seq);
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
	if (at < eng->now)
		at = eng->now; /* the past is not reachable; run it next */
	eng->live++;
	entry e = { .at = at, .seq = seq, .fn = fn, .ctx = ctx, .arg = arg, .entity = entity, .kind = kind };
	queue_put(eng, &e, seq + 1 == eng->next_seq);
}

/* A compact unit at the end of wheel slot j (time at, in the wheel, after the current
 * one): its last block has room and keeps sequence order (a fresh sequence always does),
 * or the slot is empty and gets its first block. False: post_any. */
static inline bool post_wheel(sim_engine *eng, sim_time at, uint64_t seq, bool fresh, uint32_t kind,
                              uint64_t entity, sim_event_fn fn, void *ctx, uint64_t arg)
{
	bucket_tail *t = &eng->tail[at & (WHEEL_SLOTS - 1)];
	unit *w = t->wr;
	if (__builtin_expect(!at_block_end(w) && seq - t->base < DSEQ_RANGE && fits_compact(entity, arg) &&
	                             (fresh || seq > unit_seq_before(w - 1)),
	                     1)) {
		t->wr = w + 1;
		eng->live++;
		unit_set_compact(w, t->base, fn, ctx, kind, entity, arg, seq);
		return true;
	}
	if (w || !fits_compact(entity, arg))
		return false;
	unsigned j = (unsigned)at & (WHEEL_SLOTS - 1);
	w = bucket_grow(eng, j, NULL, seq);
	wheel_mark(eng, j);
	t->wr = w + 1;
	eng->live++;
	unit_set_compact(w, t->base, fn, ctx, kind, entity, arg, seq);
	return true;
}

static inline bool in_wheel_ahead(const sim_engine *eng, sim_time at)
{
	return at > eng->last_at && at >= eng->now && !((at ^ eng->last_at) >> WHEEL_BITS);
}

/* sim_post past its usual case, out of line so that the usual one needs no frame: a watched
 * time, a slot's first block, or anything post_any does. */
__attribute__((noinline)) static void post_slow(sim_engine *eng, sim_time at, uint64_t seq, uint32_t kind,
                                                uint64_t entity, sim_event_fn fn, void *ctx, uint64_t arg)
{
	watch_take(eng, at < eng->now ? eng->now : at, seq);
	if (in_wheel_ahead(eng, at) && post_wheel(eng, at, seq, true, kind, entity, fn, ctx, arg))
		return;
	post_any(eng, at, seq, kind, entity, fn, ctx, arg);
}

void sim_post(sim_engine *eng, sim_time at, uint32_t kind, uint64_t entity, sim_event_fn fn,
              void *ctx, uint64_t arg)
{
	uint64_t seq = eng->next_seq++;
	/* the usual case: a later time in the wheel (so not in the past), whose slot has room
	 * in its last block, for a compact unit, and no time watched */
	if (__builtin_expect(in_wheel_ahead(eng, at) && !eng->n_watched, 1)) {
		bucket_tail *t = &eng->tail[at & (WHEEL_SLOTS - 1)];
		unit *w = t->wr;
		if (__builtin_expect(!at_block_end(w) && seq - t->base < DSEQ_RANGE && fits_compact(entity, arg), 1)) {
			t->wr = w + 1;
			eng->live++;
			unit_set_compact(w, t->base, fn, ctx, kind, entity, arg, seq);
			return;
		}
	}
	post_slow(eng, at, seq, kind, entity, fn, ctx, arg);
}

uint64_t sim_engine_take_seq(sim_engine *eng) { return eng->next_seq++; }

uint64_t sim_engine_take_seq_at(sim_engine *eng, sim_time at)
{
	uint64_t seq = eng->next_seq++;
	watch_take(eng, at, seq);
	return seq;
}

void sim_post_seq(sim_engine *eng, sim_time at, uint64_t seq, uint32_t kind, uint64_t entity, sim_event_fn fn,
                  void *ctx, uint64_t arg)
{
	/* taken earlier: placed by its sequence (bucket_put notes it when out of order) */
	if (__builtin_expect(in_wheel_ahead(eng, at) && post_wheel(eng, at, seq, false, kind, entity, fn, ctx, arg), 1))
		return;
	post_any(eng, at, seq, kind, entity, fn, ctx, arg);
}

void sim_engine_ahead(const sim_engine *eng, sim_event_fn fn, void **ctx, unsigned n)
{
	unsigned k = 0;
	if (eng->in_flat) {
		for (uint32_t i = eng->flat.head; k < n && i < eng->flat.len; i++, k++)
			ctx[k] = eng->flat.e[i].fn == fn ? eng->flat.e[i].ctx : NULL;
	} else if (eng->tail[CUR].wr) {
		/* the current bucket from rd on, into the next blocks (rd may sit at its block's
		 * end or on padding: the next entry is then in the next block) */
		const unit *p = eng->rd, *end = eng->tail[CUR].wr;
		const block *b = eng->cur_head;
		while (k < n && p != end) {
			if (at_block_end(p) || unit_tag(p) == TAG_WIDE2) {
				b = b->next;
				p = &b->u[0];
				continue;
			}
			ctx[k++] = p->h.fn == fn ? p->h.ctx : NULL;
			p += unit_compact(p) ? 1 : 2;
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
		const unit *r = queue_front_compact(eng);
		enum front_kind k = FRONT_COMPACT;
		if (__builtin_expect(!r, 0)) {
			k = queue_settle(eng);
			if (k == FRONT_NONE)
				return SIM_RUN_IDLE;
			r = eng->rd;
		}
		if (__builtin_expect(k == FRONT_COMPACT, 1)) {
			/* the usual event: a compact one-shot at the current bucket's time */
			sim_time at = eng->last_at;
			if (at > until)
				goto time_limit;
			uint64_t a = r->h.a, b = r->h.b;
			bool e64 = b & TAG_COMPACT_E;
			sim_event tmp = { .at = at, .fn = r->h.fn, .ctx = r->h.ctx, .arg = e64 ? 0 : b >> 32, .entity = e64 ? a : a >> 32, .kind = (uint32_t)(e64 ? b >> 32 : a), .slot = SIM_SLOT_NONE, .owned = 1 };
			eng->cur_unit = r;
			eng->rd++;
			eng->now = at;
			if (at >= eng->next_tick)
				ticks_run(eng, at);
			eng->live--;
			fold(eng, at, tmp.kind, tmp.entity);
			eng->events_run++;
			done++;
			tmp.fn(eng, &tmp);
			if (eng->stop)
				return SIM_RUN_STOPPED;
			continue;
		}
		const entry *top = queue_front_entry(eng);
		if (top->at > until)
			goto time_limit;
		/* copy it before the handler runs: it may post, which may move the flat current
		 * bucket */
		entry e = *top;
		queue_take_any(eng);
		eng->now = e.at;
		eng->cur_unit = NULL;
		eng->cur_seq = e.seq;
		if (e.at >= eng->next_tick)
			ticks_run(eng, e.at);
		if (e.fn) {
			sim_event tmp = { .at = e.at, .fn = e.fn, .ctx = e.ctx, .arg = e.arg, .entity = e.entity, .kind = e.kind, .slot = SIM_SLOT_NONE, .owned = 1 };
			eng->live--;
			fold(eng, e.at, e.kind, e.entity);
			eng->events_run++;
			done++;
			e.fn(eng, &tmp);
		} else {
			sim_event *ev = eng->timers[e.timer].ev;
			if (ev->seq != e.seq) {
				/* re-armed later while queued: file it at its real deadline, with the
				 * order the re-arm gave it (a key above the one just taken) */
				e.seq = ev->seq;
				e.at = ev->at;
				ev->queued_at = ev->at;
				queue_put(eng, &e, false);
				continue;
			}
			eng->cur_seq = e.seq;
			timer_release(eng, e.timer);
			ev->slot = SIM_SLOT_NONE;
			fold(eng, e.at, ev->kind, ev->entity);
			eng->events_run++;
			done++;
			ev->fn(eng, ev);
		}
		if (eng->stop)
			return SIM_RUN_STOPPED;
	}
time_limit:
	if (until > eng->now)
		eng->now = until;
	return SIM_RUN_TIME;
}

void sim_engine_stop(sim_engine *eng) { eng->stop = true; }

sim_time sim_engine_next_time(sim_engine *eng)
{
	if (queue_front_compact(eng))
		return eng->last_at;
	switch (queue_settle(eng)) {
	case FRONT_NONE: return SIM_TIME_NEVER;
	case FRONT_COMPACT: return eng->last_at;
	case FRONT_ENTRY: break;
	}
	return queue_front_entry(eng)->at;
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
