/* The engine's event queue (private to sim/engine/: engine.c schedules into it and runs
 * what it gives, sim/engine/event_queue.c keeps it): a timing wheel of 1-ns slots for the
 * near future, in front of a radix heap for the far future, FIFO within a time.
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

/* The queue's state, embedded in the engine. */
typedef struct sim_queue {
	/* the queue */
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
} sim_queue;

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

/* Embedded timers: a queued timer's entry names a slot of the timer table, whose
 * generation moves on when the timer is cancelled (the entry is then stale). */
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

/* File a new entry (e->at >= now). `newest`: its sequence is the latest handed out. */
void sim_queue_put(sim_queue *q, const entry *e, bool newest);

/* The handlers' objects of the next n entries of the current time (sim_engine_ahead). */
static inline void sim_queue_ahead(const sim_queue *q, sim_event_fn fn, void **ctx, unsigned n)
{
	unsigned k = 0;
	if (q->in_flat) {
		for (uint32_t i = q->flat.head; k < n && i < q->flat.len; i++, k++)
			ctx[k] = q->flat.e[i].fn == fn ? q->flat.e[i].ctx : NULL;
	} else if (q->tail[CUR].wr) {
		/* the current bucket from rd on, into the next blocks (rd may sit at its block's
		 * end or on padding: the next entry is then in the next block) */
		const unit *p = q->rd, *end = q->tail[CUR].wr;
		const block *b = q->cur_head;
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

void sim_queue_init(sim_queue *q);
void sim_queue_free(sim_queue *q);
/* Bytes the queue holds (blocks, tables), for sim_engine_memory. */
size_t sim_queue_memory(const sim_queue *q);

#endif
