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

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* One cache line of header (the chain link) and 15 entries: 1 KiB, line-aligned. */
#define BLOCK_ENTRIES 15
#define PREFETCH_AHEAD 4
typedef struct block {
	struct block *next; /* the next block of the bucket; meaningless in its tail block */
	uint8_t pad[64 - sizeof(struct block *)];
	entry e[BLOCK_ENTRIES];
} block;

/* A FIFO of entries: a chain of blocks, all full but the tail (tail_n entries). Only the
 * current bucket is taken from, from its head block at pos. */
typedef struct bucket {
	block *head, *tail;
	uint64_t last_seq; /* the sequence appended last */
	uint8_t pos;
	uint8_t tail_n;
	uint8_t unsorted; /* an entry was appended after one with a later sequence */
} bucket;

/* The wheel: 4096 slots of one nanosecond (the low 12 bits of the time). Above it, radix
 * levels of 8-bit digits over bits 12..63; UP_LEVELS * 8 + WHEEL_BITS >= 64. */
#define WHEEL_BITS 12
#define WHEEL_SLOTS (1u << WHEEL_BITS)
#define UP_LEVELS 7
#define DIGITS 256

/* An embedded timer's slot: the event while its generation matches the queued entry's. */
typedef struct timer_slot {
	sim_event *ev;
	uint32_t gen;
	uint32_t next_free;
} timer_slot;

/* The current time's entries once they had to be put in sequence order (see cur_flatten). */
typedef struct flat {
	entry *e;
	uint32_t len, cap;
	uint32_t head; /* entries before it have run */
} flat;

struct sim_engine {
	sim_time now;
	uint64_t seed;
	uint64_t next_seq;
	uint64_t fingerprint;
	uint64_t events_run;
	bool stop;

	/* the queue */
	sim_time last_at;  /* radix base: the time of the current bucket */
	bucket cur;        /* the entries at last_at (unless in_flat) */
	bool in_flat;      /* the entries at last_at are in `flat`, in sequence order */
	flat flat;         /* used when in_flat */
	uint64_t wheel_summary;                   /* bit w = wheel_bits[w] != 0 */
	uint64_t wheel_bits[WHEEL_SLOTS / 64];    /* bit j = wheel[j] has entries */
	uint32_t levels_used;                     /* bit l = up[l] has a non-empty bucket */
	uint64_t up_bits[UP_LEVELS][DIGITS / 64]; /* bit j = up[l][j] has entries */
	bucket *wheel;                            /* [WHEEL_SLOTS] */
	bucket *up;                               /* [UP_LEVELS][DIGITS] */

	/* the block pool: free blocks as a stack, the last freed on top */
	block **free_blocks;
	size_t n_free, cap_free;
	size_t blocks; /* blocks allocated in all */

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
	eng->wheel = calloc(WHEEL_SLOTS, sizeof(*eng->wheel));
	eng->up = calloc((size_t)UP_LEVELS * DIGITS, sizeof(*eng->up));
	if (!eng->wheel || !eng->up) {
		free(eng->wheel);
		free(eng->up);
		free(eng);
		return NULL;
	}
	eng->next_tick = SIM_TIME_NEVER;
	sim_oom_set_clock(eng, &eng->now);
	return eng;
}

static void bucket_free_blocks(bucket *bk)
{
	for (block *b = bk->head; b;) {
		block *next = b == bk->tail ? NULL : b->next;
		free(b);
		b = next;
	}
	bk->head = bk->tail = NULL;
}

void sim_engine_free(sim_engine *eng)
{
	if (!eng)
		return;
	sim_oom_forget_clock(eng);
	free(eng->ticks);
	bucket_free_blocks(&eng->cur);
	for (unsigned i = 0; i < WHEEL_SLOTS; i++)
		bucket_free_blocks(&eng->wheel[i]);
	for (unsigned i = 0; i < UP_LEVELS * DIGITS; i++)
		bucket_free_blocks(&eng->up[i]);
	for (size_t i = 0; i < eng->n_free; i++)
		free(eng->free_blocks[i]);
	free(eng->free_blocks);
	free(eng->wheel);
	free(eng->up);
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

static block *block_alloc(sim_engine *eng)
{
	if (eng->n_free)
		return eng->free_blocks[--eng->n_free];
	void *p = NULL;
	if (posix_memalign(&p, 64, sizeof(block)))
		sim_out_of_memory(what_queue, sizeof(block));
	eng->blocks++;
	return p;
}

/* Back to the pool, which keeps at most as many free blocks as are in use (and a few):
 * the memory follows the pending events down after a burst. */
static void block_release(sim_engine *eng, block *b)
{
	if (eng->n_free >= 64 && eng->n_free * 2 >= eng->blocks) {
		free(b);
		eng->blocks--;
		return;
	}
	if (eng->n_free == eng->cap_free) {
		eng->cap_free = eng->cap_free ? eng->cap_free * 2 : 64;
		eng->free_blocks = sim_xreallocarray(eng->free_blocks, eng->cap_free, sizeof(*eng->free_blocks), what_queue);
	}
	eng->free_blocks[eng->n_free++] = b;
}

/* The place of a new entry of sequence seq at the end of a bucket; the caller fills it in
 * (there, rather than copied from the stack: the line is written once). */
static inline entry *bucket_slot(sim_engine *eng, bucket *bk, uint64_t seq)
{
	if (!bk->head) {
		bk->head = bk->tail = block_alloc(eng);
		bk->pos = bk->tail_n = 0;
		bk->unsorted = 0;
	} else {
		if (seq < bk->last_seq)
			bk->unsorted = 1;
		if (bk->tail_n == BLOCK_ENTRIES) {
			block *b = block_alloc(eng);
			bk->tail->next = b;
			bk->tail = b;
			bk->tail_n = 0;
		}
	}
	bk->last_seq = seq;
	return &bk->tail->e[bk->tail_n++];
}

/* Visit a bucket's entries from `pos` in order, giving its blocks back to the pool as they
 * are passed; the bucket is left empty. */
#define BUCKET_DRAIN(eng, bk, ep, body)                                                          \
	do {                                                                                         \
		block *b_ = (bk)->head;                                                                 \
		unsigned i_ = (bk)->pos;                                                                \
		while (b_) {                                                                             \
			bool last_ = b_ == (bk)->tail;                                                      \
			unsigned n_ = last_ ? (bk)->tail_n : BLOCK_ENTRIES;                                 \
			for (; i_ < n_; i_++) {                                                              \
				entry *ep = &b_->e[i_];                                                          \
				body;                                                                            \
			}                                                                                    \
			block *next_ = last_ ? NULL : b_->next;                                             \
			block_release(eng, b_);                                                             \
			b_ = next_;                                                                          \
			i_ = 0;                                                                              \
		}                                                                                        \
		(bk)->head = (bk)->tail = NULL;                                                         \
		(bk)->pos = (bk)->tail_n = 0;                                                           \
		(bk)->unsorted = 0;                                                                     \
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
 * sim_post_seq with an earlier-taken sequence: a bucket notes that it was appended out of
 * sequence order, and is put in order (cur_flatten) before its time runs. */

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

static entry *cur_slot(sim_engine *eng, uint64_t seq);

/* The place of a new entry (at, seq) relative to the current base (at >= last_at). */
static entry *queue_slot_any(sim_engine *eng, sim_time at, uint64_t seq)
{
	uint64_t d = at ^ eng->last_at;
	if (!d)
		return cur_slot(eng, seq);
	unsigned b = 63u - (unsigned)__builtin_clzll(d);
	if (b < WHEEL_BITS) {
		unsigned j = (unsigned)at & (WHEEL_SLOTS - 1);
		wheel_mark(eng, j);
		return bucket_slot(eng, &eng->wheel[j], seq);
	}
	unsigned l = (b - WHEEL_BITS) >> 3;
	unsigned j = (unsigned)(at >> (WHEEL_BITS + l * 8)) & (DIGITS - 1);
	eng->up_bits[l][j >> 6] |= 1ULL << (j & 63);
	eng->levels_used |= 1u << l;
	return bucket_slot(eng, &eng->up[l * DIGITS + j], seq);
}

/* The same, with the usual case inline: a wheel slot that has room in its last block,
 * and a sequence after its last one. */
static inline entry *queue_slot(sim_engine *eng, sim_time at, uint64_t seq)
{
	uint64_t d = at ^ eng->last_at;
	if (__builtin_expect(d - 1 < WHEEL_SLOTS - 1, 1)) {
		bucket *bk = &eng->wheel[at & (WHEEL_SLOTS - 1)];
		if (__builtin_expect(bk->head && bk->tail_n < BLOCK_ENTRIES && seq > bk->last_seq, 1)) {
			bk->last_seq = seq;
			return &bk->tail->e[bk->tail_n++];
		}
	}
	return queue_slot_any(eng, at, seq);
}

/* Re-file a queued entry (at >= last_at). */
static inline void queue_file(sim_engine *eng, const entry *e) { *queue_slot(eng, e->at, e->seq) = *e; }

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

/* The current bucket's entries not yet run, out of sequence order: move them to the flat
 * array in order (an insertion sort, linear when little is out of place). */
static void cur_flatten(sim_engine *eng)
{
	flat *f = &eng->flat;
	f->len = f->head = 0;
	BUCKET_DRAIN(eng, &eng->cur, e, *flat_slot(f, e->seq) = *e);
	eng->in_flat = true;
}

static entry *cur_slot(sim_engine *eng, uint64_t seq)
{
	if (!eng->in_flat) {
		if (!eng->cur.head || seq > eng->cur.last_seq)
			return bucket_slot(eng, &eng->cur, seq);
		cur_flatten(eng); /* out of order: from now on in the flat array */
	}
	return flat_slot(&eng->flat, seq);
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
		eng->cur = eng->wheel[j];
		eng->wheel[j] = (bucket){ 0 };
		if (eng->cur.unsorted)
			cur_flatten(eng);
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
	bucket bk = eng->up[l * DIGITS + j];
	eng->up[l * DIGITS + j] = (bucket){ 0 };
	sim_time min = SIM_TIME_NEVER;
	for (block *b = bk.head;; b = b->next) {
		unsigned n = b == bk.tail ? bk.tail_n : BLOCK_ENTRIES;
		for (unsigned i = 0; i < n; i++)
			if (b->e[i].at < min)
				min = b->e[i].at;
		if (b == bk.tail)
			break;
	}
	eng->last_at = min;
	/* every entry lands in a lower level, the wheel or the current bucket, never back here */
	if (eng->stale * 4 > eng->live) {
		/* many cancelled timers queued (TCP re-arms its timers earlier all the time):
		 * drop them now rather than moving them down level by level */
		BUCKET_DRAIN(eng, &bk, e, {
			if (!entry_stale(eng, e))
				queue_file(eng, e);
			else
				eng->stale--;
		});
	} else {
		BUCKET_DRAIN(eng, &bk, e, queue_file(eng, e));
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
			if (f->cap > 4096) {
				/* a burst at one time once made it big; give the memory back */
				free(f->e);
				f->e = NULL;
				f->cap = 0;
			}
		} else {
			bucket *cur = &eng->cur;
			while (cur->head) {
				bool last = cur->head == cur->tail;
				unsigned n = last ? cur->tail_n : BLOCK_ENTRIES;
				while (cur->pos < n) {
					entry *e = &cur->head->e[cur->pos];
					unsigned ahead = cur->pos + PREFETCH_AHEAD;
					if (ahead < BLOCK_ENTRIES)
						__builtin_prefetch(&cur->head->e[ahead]);
					else if (!last)
						__builtin_prefetch(&cur->head->next->e[ahead - BLOCK_ENTRIES]);
					if (!entry_stale(eng, e))
						return e;
					cur->pos++;
					eng->stale--;
				}
				block *next = last ? NULL : cur->head->next;
				block_release(eng, cur->head);
				cur->head = next;
				cur->pos = 0;
				if (next)
					__builtin_prefetch(next); /* its link to the next block */
			}
			cur->tail = NULL;
			cur->tail_n = 0;
		}
		if (!queue_spread(eng))
			return NULL;
	}
}

/* The same, with the usual case inline: a one-shot entry next in the current block. */
static inline entry *queue_front(sim_engine *eng)
{
	bucket *cur = &eng->cur;
	if (__builtin_expect(!eng->in_flat && cur->head && cur->pos < (cur->head == cur->tail ? cur->tail_n : BLOCK_ENTRIES), 1)) {
		entry *e = &cur->head->e[cur->pos];
		/* the entries are read one line after the other, from memory written long ago:
		 * ask for the ones a few events ahead (in the next block near the end of this
		 * one, whose link was asked for when this block was started) */
		unsigned ahead = cur->pos + PREFETCH_AHEAD;
		if (ahead < BLOCK_ENTRIES)
			__builtin_prefetch(e + PREFETCH_AHEAD);
		else if (cur->head != cur->tail)
			__builtin_prefetch(&cur->head->next->e[ahead - BLOCK_ENTRIES]);
		if (__builtin_expect(e->fn != NULL, 1))
			return e;
	}
	return queue_front_any(eng);
}

/* Take the entry queue_front() returned. */
static inline void queue_pop(sim_engine *eng)
{
	if (!eng->in_flat) {
		eng->cur.pos++;
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
				*bucket_slot(eng, &eng->wheel[j], eng->flat.e[i].seq) = eng->flat.e[i];
			eng->flat.len = eng->flat.head = 0;
			eng->in_flat = false;
		} else {
			eng->wheel[j] = eng->cur;
			eng->cur = (bucket){ 0 };
		}
		if (eng->wheel[j].head)
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
	} else {
		BUCKET_DRAIN(eng, &eng->cur, e, GATHER(e));
	}
	while (eng->wheel_summary) {
		unsigned w = (unsigned)__builtin_ctzll(eng->wheel_summary);
		unsigned j = w * 64 + (unsigned)__builtin_ctzll(eng->wheel_bits[w]);
		wheel_unmark(eng, j);
		BUCKET_DRAIN(eng, &eng->wheel[j], e, GATHER(e));
	}
	for (int l = 0; l <= h; l++) {
		if (!(eng->levels_used & (1u << l)))
			continue;
		for (unsigned j = 0; j < DIGITS; j++)
			if (eng->up[(unsigned)l * DIGITS + j].head)
				BUCKET_DRAIN(eng, &eng->up[(unsigned)l * DIGITS + j], e, GATHER(e));
		memset(eng->up_bits[l], 0, sizeof(eng->up_bits[l]));
		eng->levels_used &= ~(1u << l);
	}
#undef GATHER
	eng->last_at = to;
	for (size_t i = 0; i < n; i++)
		queue_file(eng, &all[i]); /* all later than `to`: none lands in the current bucket */
	free(all);
}

/* The place of a new entry (at, seq), at >= now; the caller fills it in. */
static inline entry *queue_reserve(sim_engine *eng, sim_time at, uint64_t seq)
{
	if (__builtin_expect(at < eng->last_at, 0))
		queue_rebase(eng, at);
	return queue_slot(eng, at, seq);
}

static inline void queue_push(sim_engine *eng, const entry *e) { *queue_reserve(eng, e->at, e->seq) = *e; }

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
	entry e = { .at = at, .seq = seq, .timer = t, .gen = eng->timers[t].gen };
	queue_push(eng, &e);
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

void sim_post(sim_engine *eng, sim_time at, uint32_t kind, uint64_t entity, sim_event_fn fn,
              void *ctx, uint64_t arg)
{
	if (at < eng->now)
		at = eng->now;
	uint64_t seq = eng->next_seq++;
	eng->live++;
	oneshot_fill(queue_reserve(eng, at, seq), at, seq, kind, entity, fn, ctx, arg);
}

uint64_t sim_engine_take_seq(sim_engine *eng) { return eng->next_seq++; }

void sim_post_seq(sim_engine *eng, sim_time at, uint64_t seq, uint32_t kind, uint64_t entity, sim_event_fn fn,
                  void *ctx, uint64_t arg)
{
	if (at < eng->now)
		at = eng->now;
	/* taken earlier: placed by its sequence (bucket_slot notes it when out of order) */
	eng->live++;
	oneshot_fill(queue_reserve(eng, at, seq), at, seq, kind, entity, fn, ctx, arg);
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
				queue_push(eng, &e);
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
	return sizeof(*eng) + ((size_t)WHEEL_SLOTS + (size_t)UP_LEVELS * DIGITS) * sizeof(bucket) +
	       eng->blocks * sizeof(block) + eng->cap_free * sizeof(block *) + (size_t)eng->flat.cap * sizeof(entry) +
	       (size_t)eng->timer_cap * sizeof(timer_slot);
}

void sim_engine_rng(const sim_engine *eng, const char *name, uint64_t index, sim_rng *out)
{
	sim_rng_stream(out, eng->seed, name, index);
}
