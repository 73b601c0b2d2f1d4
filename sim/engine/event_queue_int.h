/* The engine's event queue (private to sim/engine/: engine.c posts into it and runs what
 * it gives, event_queue.c keeps it): a timing wheel of 1-ns slots for the near future, in
 * front of a radix heap for the far future, FIFO within a time.
 *
 * A queue entry carries everything a one-shot posting runs (time, order, handler, object,
 * argument, fingerprint identity), so running it reads the entry and nothing else: the
 * usual one is a 32-byte unit, half a cache line, whose time is its wheel slot's and whose
 * sequence is an offset from its block's; the rest take two units (see `unit`). An
 * embedded timer's entry names a slot of the queue's timer table
 * instead, whose generation moves on when the timer is cancelled, so the stale entry is
 * skipped when it surfaces without searching the queue and without touching the memory
 * of a component that may have freed its timer since. Entries live in fixed blocks of
 * one shared pool, chained per bucket: appending and taking are sequential writes and
 * reads, a block that has been run goes back to the pool and is the next one filled (it
 * is still in cache), and nothing is allocated per event.
 *
 * What every event passes through (the usual post and pop, a slot's first block, timer
 * slots) is here, inline: engine.c's run loop and sim_post keep their speed only if it is
 * compiled into them.
 */
#ifndef SIM_ENGINE_EVENT_QUEUE_INT_H
#define SIM_ENGINE_EVENT_QUEUE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sim/engine/engine.h"

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

#define PREFETCH_AHEAD 8 /* units: four cache lines, about four events */

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

/* The queue, embedded in the engine. */
typedef struct sim_queue {
	sim_time last_at; /* radix base: the time of the current bucket */
	unit *rd;         /* the next unit of the current bucket, in block cur_head */
	block *cur_head;
	bool in_flat; /* the entries at last_at are in `flat`, in sequence order (rd unused) */
	flat flat;
	entry front;      /* the current bucket's next wide entry, decoded by sim_queue_settle */
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

	/* the sequence of the event running (or that ran last): cur_seq, or that of the compact
	 * unit cur_unit while it is set (read only when asked: sim_engine_before; pinned
	 * before the unit's block may go back to the pool) */
	const unit *cur_unit;
	uint64_t cur_seq;
} sim_queue;

void sim_queue_init(sim_queue *q);
void sim_queue_free(sim_queue *q);
/* Bytes the queue holds beyond its own struct (blocks, tables), for sim_engine_memory. */
size_t sim_queue_memory(const sim_queue *q);

/* --- timer slots ----------------------------------------------------------------- */

void sim_queue_timers_grow(sim_queue *q);

static inline uint32_t timer_alloc(sim_queue *q, sim_event *ev)
{
	uint32_t t;
	if (q->timer_free != SIM_SLOT_NONE) {
		t = q->timer_free;
		q->timer_free = q->timers[t].next_free;
	} else {
		if (q->timers_used == q->timer_cap)
			sim_queue_timers_grow(q);
		t = q->timers_used++;
		q->timers[t].gen = 0;
	}
	q->timers[t].ev = ev;
	q->live++;
	return t;
}

static inline void timer_release(sim_queue *q, uint32_t t)
{
	q->timers[t].gen++;
	q->timers[t].ev = NULL;
	q->timers[t].next_free = q->timer_free;
	q->timer_free = t;
	q->live--;
}

static inline bool entry_stale(const sim_queue *q, const entry *e)
{
	return !e->fn && q->timers[e->timer].gen != e->gen;
}

/* --- blocks ---------------------------------------------------------------------- */

/* Add a slab of blocks to the pool (it only grows). */
void sim_queue_pool_grow(sim_queue *q);

static inline block *block_alloc(sim_queue *q)
{
	if (!q->n_free)
		sim_queue_pool_grow(q);
	return q->free_blocks[--q->n_free];
}

static inline void block_release(sim_queue *q, block *b) { q->free_blocks[q->n_free++] = b; }

/* The sequence of the entry whose last unit is p. */
static inline uint64_t unit_seq_before(const unit *p)
{
	if (unit_tag(p) == TAG_WIDE2)
		return p->t.seq;
	return block_of(p)->base + (uint64_t)unit_dseq(p);
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
static inline unit *bucket_grow(sim_queue *q, unsigned i, unit *w, uint64_t seq)
{
	block *b = block_alloc(q);
	b->base = seq;
	if (!w)
		q->head[i] = b;
	else
		block_of(w - 1)->next = b;
	q->tail[i].base = seq;
	return &b->u[0];
}

static inline void wheel_mark(sim_queue *q, unsigned j)
{
	q->wheel_bits[j >> 6] |= 1ULL << (j & 63);
	q->wheel_summary |= 1ULL << (j >> 6);
}

/* --- posting --------------------------------------------------------------------- */

/* File e relative to the current base (e->at >= last_at); `check`: its sequence may be
 * older than the ones queued. */
void sim_queue_put_any(sim_queue *q, const entry *e, bool check);
/* Lower the radix base to `to` (>= now, < last_at). */
void sim_queue_rebase(sim_queue *q, sim_time to);

/* File a new entry (e->at >= now). `newest`: its sequence is the latest handed out. */
static inline void sim_queue_put(sim_queue *q, const entry *e, bool newest)
{
	if (__builtin_expect(e->at < q->last_at, 0))
		sim_queue_rebase(q, e->at);
	sim_queue_put_any(q, e, !newest);
}

/* Whether `at` (not before now) is a later time of the wheel: a compact unit can go at the
 * end of its slot. */
static inline bool queue_in_wheel_ahead(const sim_queue *q, sim_time now, sim_time at)
{
	return at > q->last_at && at >= now && !((at ^ q->last_at) >> WHEEL_BITS);
}

/* The usual posting: a compact unit at the end of the wheel slot of `at` (in the wheel,
 * after the current time), whose last block has room and is near enough in sequence.
 * False: nothing was filed. */
static inline bool queue_post_compact(sim_queue *q, sim_time at, uint64_t seq, uint32_t kind, uint64_t entity,
                                      sim_event_fn fn, void *ctx, uint64_t arg)
{
	bucket_tail *t = &q->tail[at & (WHEEL_SLOTS - 1)];
	unit *w = t->wr;
	if (__builtin_expect(!at_block_end(w) && seq - t->base < DSEQ_RANGE && fits_compact(entity, arg), 1)) {
		t->wr = w + 1;
		q->live++;
		unit_set_compact(w, t->base, fn, ctx, kind, entity, arg, seq);
		return true;
	}
	return false;
}

/* A compact unit at the end of wheel slot j (time at, in the wheel, after the current
 * one): its last block has room and keeps sequence order (a fresh sequence always does),
 * or the slot is empty and gets its first block. False: file it with sim_queue_put. */
static inline bool queue_post_wheel(sim_queue *q, sim_time at, uint64_t seq, bool fresh, uint32_t kind,
                                    uint64_t entity, sim_event_fn fn, void *ctx, uint64_t arg)
{
	bucket_tail *t = &q->tail[at & (WHEEL_SLOTS - 1)];
	unit *w = t->wr;
	if (__builtin_expect(!at_block_end(w) && seq - t->base < DSEQ_RANGE && fits_compact(entity, arg) &&
	                             (fresh || seq > unit_seq_before(w - 1)),
	                     1)) {
		t->wr = w + 1;
		q->live++;
		unit_set_compact(w, t->base, fn, ctx, kind, entity, arg, seq);
		return true;
	}
	if (w || !fits_compact(entity, arg))
		return false;
	unsigned j = (unsigned)at & (WHEEL_SLOTS - 1);
	w = bucket_grow(q, j, NULL, seq);
	wheel_mark(q, j);
	t->wr = w + 1;
	q->live++;
	unit_set_compact(w, t->base, fn, ctx, kind, entity, arg, seq);
	return true;
}

/* --- taking ---------------------------------------------------------------------- */

/* Where sim_queue_settle found the earliest live entry. */
enum front_kind {
	FRONT_NONE,    /* nothing is pending */
	FRONT_COMPACT, /* a compact unit at q->rd */
	FRONT_ENTRY,   /* decoded in q->front, or the flat array's head: queue_front_entry */
};

/* Find the earliest live entry without taking it (stale entries met on the way are
 * dropped); q->front_n is what taking a FRONT_ENTRY skips. */
enum front_kind sim_queue_settle(sim_queue *q);

/* The FRONT_ENTRY sim_queue_settle found. */
static inline const entry *queue_front_entry(const sim_queue *q)
{
	return q->front_n ? &q->front : &q->flat.e[q->flat.head];
}

/* Take the FRONT_ENTRY sim_queue_settle found. */
static inline void queue_take_any(sim_queue *q)
{
	if (q->front_n) {
		q->rd += q->front_n;
		return;
	}
	flat *f = &q->flat;
	f->head++;
	if (f->head >= 4096 && f->head * 2 >= f->len) {
		/* a long chain of same-time events: drop the prefix that has run */
		memmove(f->e, f->e + f->head, (size_t)(f->len - f->head) * sizeof(*f->e));
		f->len -= f->head;
		f->head = 0;
	}
}

/* The usual front: a compact unit next in the current block, or NULL. */
static inline const unit *queue_front_compact(sim_queue *q)
{
	unit *r = q->rd;
	if (__builtin_expect(r != q->tail[CUR].wr && !at_block_end(r), 1)) {
		/* the units are read one line after the other, from memory written long ago: ask
		 * for the ones a few events ahead (in the next block near the end of this one,
		 * whose link was asked for when this block was started) */
		uintptr_t ahead = (uintptr_t)(r + PREFETCH_AHEAD), end = (uintptr_t)q->cur_head + BLOCK_SIZE;
		uintptr_t over = (uintptr_t)q->cur_head->next + offsetof(block, u) + (ahead - end);
		__builtin_prefetch((const void *)(ahead < end ? ahead : over)); /* no branch */
		if (__builtin_expect(unit_compact(r), 1))
			return r;
	}
	return NULL;
}

/* The sequence of the event running (or that ran last). */
static inline uint64_t queue_running_seq(const sim_queue *q)
{
	return q->cur_unit ? block_of(q->cur_unit)->base + (uint64_t)unit_dseq(q->cur_unit) : q->cur_seq;
}

/* The handlers' objects of the next n entries at the current time (sim_engine_ahead). */
void sim_queue_ahead(const sim_queue *q, sim_event_fn fn, void **ctx, unsigned n);

#endif
