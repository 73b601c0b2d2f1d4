/* The discrete-event engine: a radix heap over event times, FIFO within a time.
 *
 * Queue entries are 16 bytes (time, record index, record generation), so the radix heap's
 * redistributions move little memory; what an event needs to run (handler, object,
 * argument, fingerprint identity, ordering sequence) sits once in an engine-owned record
 * table. Cancelling or re-arming does not search the queue: the record's generation moves
 * on and the stale entry is skipped when it surfaces. Records live in the engine, so a
 * stale entry never points at memory a component has freed; released records are reused
 * last-in first-out, so the records of a busy run stay in cache and nothing is allocated
 * per event.
 */
#include "sim/engine/engine.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/engine/oom.h"

/* A queued event: its time and the record that says what to run. */
typedef struct queue_entry {
	sim_time at;
	uint32_t rec;
	uint32_t gen; /* the record's generation when queued; stale once they differ */
} queue_entry;

/* What one pending event runs. One-shot postings keep everything here (fn != NULL);
 * an embedded timer points at its sim_event (fn == NULL, ctx = the event). */
typedef struct record {
	uint64_t seq;     /* ordering sequence of the queued entry */
	sim_event_fn fn;  /* one-shot handler, or NULL for an embedded timer */
	void *ctx;        /* one-shot object, or the embedded sim_event */
	uint64_t arg;     /* one-shot argument; free records: the next free index */
	uint64_t entity;
	uint32_t kind;
	uint32_t gen;     /* bumped on release */
} record;

typedef struct bucket {
	queue_entry *e;
	uint32_t len, cap;
	uint32_t head;    /* bucket 0 only: entries before it have run */
} bucket;

#define NBUCKETS 65

struct sim_engine {
	sim_time now;
	uint64_t seed;
	uint64_t next_seq;
	uint64_t fingerprint;
	uint64_t events_run;
	bool stop;

	bucket buckets[NBUCKETS];
	uint64_t nonempty[2];   /* bit b set = bucket b (1..64) has entries */
	sim_time last_at;       /* radix base: the time of bucket 0 */
	queue_entry *spare;     /* scratch array swapped with a bucket being spread */
	uint32_t spare_cap;

	record *recs;
	uint32_t rec_cap, rec_free, recs_used;
	size_t live;            /* records in use: pending events */

	sim_tick *ticks;        /* housekeeping between events (sim_engine_tick_add) */
	size_t n_ticks, cap_ticks;
	sim_time next_tick;     /* the earliest time a tick is due */
};

static void *xrealloc(void *p, size_t n) { return sim_xrealloc(p, n, "the event queue"); }

sim_engine *sim_engine_new(uint64_t seed)
{
	sim_engine *eng = calloc(1, sizeof(*eng));
	if (!eng)
		return NULL;
	eng->seed = seed;
	eng->next_seq = 1;
	eng->fingerprint = sim_mix64(seed ^ 0x736d63722d73696dULL); /* "smcr-sim" */
	eng->rec_free = SIM_SLOT_NONE;
	eng->next_tick = SIM_TIME_NEVER;
	sim_oom_set_clock(eng);
	return eng;
}

void sim_engine_free(sim_engine *eng)
{
	if (!eng)
		return;
	sim_oom_forget_clock(eng);
	free(eng->ticks);
	for (int i = 0; i < NBUCKETS; i++)
		free(eng->buckets[i].e);
	free(eng->spare);
	free(eng->recs);
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

/* --- records --------------------------------------------------------------------- */

static inline uint32_t rec_alloc(sim_engine *eng)
{
	uint32_t r;
	if (eng->rec_free != SIM_SLOT_NONE) {
		r = eng->rec_free;
		eng->rec_free = (uint32_t)eng->recs[r].arg;
	} else {
		if (eng->recs_used == eng->rec_cap) {
			uint32_t cap = eng->rec_cap ? eng->rec_cap * 2 : 1024;
			eng->recs = xrealloc(eng->recs, (size_t)cap * sizeof(*eng->recs));
			eng->rec_cap = cap;
		}
		r = eng->recs_used++;
		eng->recs[r].gen = 0;
	}
	eng->live++;
	return r;
}

static inline void rec_release(sim_engine *eng, uint32_t r)
{
	eng->recs[r].gen++;
	eng->recs[r].arg = eng->rec_free;
	eng->rec_free = r;
	eng->live--;
}

/* --- queue ----------------------------------------------------------------------- */

/* A discrete-event engine only ever inserts times >= the last one taken, which is what a
 * radix heap needs. Bucket i (1..64) holds entries whose time first differs from
 * `last_at` at bit i-1 (counting from the least significant); bucket 0 holds the entries
 * at `last_at`, in sequence order, consumed from its head. Taking the minimum scans one
 * bucket and spreads it into lower ones; buckets are plain arrays, so the work is
 * sequential memory access instead of a binary heap's scattered sifts.
 *
 * Entries of equal time are always in the same bucket and every append (a new posting,
 * a spread) keeps their relative order, so within a time they stay in the order they were
 * scheduled, i.e. by sequence. The one exception is a timer re-armed later while queued:
 * its entry is re-filed when it surfaces with the older sequence the re-arm gave it, so
 * bucket 0 is put in sequence order when it is filled and such an entry is inserted at
 * its place. */

static inline unsigned bucket_of(const sim_engine *eng, sim_time at)
{
	uint64_t d = at ^ eng->last_at;
	return d ? 64u - (unsigned)__builtin_clzll(d) : 0u;
}

static inline void bucket_grow(bucket *bk)
{
	uint32_t cap = bk->cap ? bk->cap * 2 : 16;
	bk->e = xrealloc(bk->e, (size_t)cap * sizeof(*bk->e));
	bk->cap = cap;
}

static inline void bucket_append(sim_engine *eng, unsigned b, queue_entry e)
{
	bucket *bk = &eng->buckets[b];
	if (bk->len == bk->cap)
		bucket_grow(bk);
	bk->e[bk->len++] = e;
	if (b)
		eng->nonempty[(b - 1) >> 6] |= 1ULL << ((b - 1) & 63);
}

static inline uint64_t entry_seq(const sim_engine *eng, const queue_entry *e)
{
	return eng->recs[e->rec].seq;
}

/* Insert into bucket 0 at its sequence place among the entries not yet run. */
static void bucket0_insert(sim_engine *eng, queue_entry e, uint64_t seq)
{
	bucket *bk = &eng->buckets[0];
	if (bk->len == bk->cap)
		bucket_grow(bk);
	uint32_t i = bk->len++;
	while (i > bk->head && entry_seq(eng, &bk->e[i - 1]) > seq) {
		bk->e[i] = bk->e[i - 1];
		i--;
	}
	bk->e[i] = e;
}

/* Put bucket 0 (just filled by a spread) in sequence order: an insertion sort, linear
 * when nothing was re-filed, which is the usual case. */
static void bucket0_sort(sim_engine *eng)
{
	bucket *bk = &eng->buckets[0];
	for (uint32_t i = 1; i < bk->len; i++) {
		queue_entry x = bk->e[i];
		uint64_t s = entry_seq(eng, &x);
		uint32_t j = i;
		while (j > 0 && entry_seq(eng, &bk->e[j - 1]) > s) {
			bk->e[j] = bk->e[j - 1];
			j--;
		}
		bk->e[j] = x;
	}
}

/* Bucket 0 is empty: make the earliest time of the lowest non-empty bucket the new base
 * and spread that bucket over the lower ones. False when nothing is queued. */
static bool queue_spread(sim_engine *eng)
{
	unsigned b;
	if (eng->nonempty[0])
		b = 1u + (unsigned)__builtin_ctzll(eng->nonempty[0]);
	else if (eng->nonempty[1])
		b = 65u + (unsigned)__builtin_ctzll(eng->nonempty[1]);
	else
		return false;
	bucket *bk = &eng->buckets[b];
	uint32_t n = bk->len;
	queue_entry *e = bk->e;
	sim_time min = e[0].at;
	for (uint32_t i = 1; i < n; i++)
		if (e[i].at < min)
			min = e[i].at;
	eng->last_at = min;
	bk->len = 0;
	eng->nonempty[(b - 1) >> 6] &= ~(1ULL << ((b - 1) & 63));
	/* swap the bucket's array out so appends to lower buckets cannot move it */
	bk->e = eng->spare;
	uint32_t cap = bk->cap;
	bk->cap = eng->spare_cap;
	for (uint32_t i = 0; i < n; i++)
		bucket_append(eng, bucket_of(eng, e[i].at), e[i]);
	eng->spare = e;
	eng->spare_cap = cap;
	if (cap > 4096 && cap / 8 > n) {
		/* a burst once made this bucket big; give the memory back */
		free(eng->spare);
		eng->spare = NULL;
		eng->spare_cap = 0;
	}
	if (eng->buckets[0].len > 1)
		bucket0_sort(eng);
	return true;
}

/* The earliest live entry, without taking it (stale entries met on the way are dropped).
 * NULL when nothing is pending. */
static queue_entry *queue_front(sim_engine *eng)
{
	bucket *b0 = &eng->buckets[0];
	for (;;) {
		while (b0->head < b0->len) {
			queue_entry *e = &b0->e[b0->head];
			if (eng->recs[e->rec].gen == e->gen)
				return e;
			b0->head++;
		}
		b0->head = b0->len = 0;
		if (!queue_spread(eng))
			return NULL;
	}
}

/* Take the entry queue_front() returned. */
static inline void queue_pop(sim_engine *eng)
{
	bucket *b0 = &eng->buckets[0];
	b0->head++;
	if (b0->head >= 4096 && b0->head * 2 >= b0->len) {
		/* a long chain of same-time events: drop the prefix that has run */
		memmove(b0->e, b0->e + b0->head, (size_t)(b0->len - b0->head) * sizeof(*b0->e));
		b0->len -= b0->head;
		b0->head = 0;
	}
}

/* Lower the radix base to `to` (>= now, < last_at). A peek (sim_engine_next_time, or a run
 * that stopped at its time limit) spreads buckets without running anything, so a later
 * posting may lie before the base. Only buckets 0..h+1 need re-filing, h being the highest
 * bit in which the old and new bases differ: above it both bases agree, so those entries'
 * buckets do not change. */
static void queue_rebase(sim_engine *eng, sim_time to)
{
	unsigned top = 65u - (unsigned)__builtin_clzll(to ^ eng->last_at); /* h + 1 */
	size_t n = 0;
	for (unsigned b = 0; b <= top; b++)
		n += eng->buckets[b].len - eng->buckets[b].head;
	queue_entry *all = n ? xrealloc(NULL, n * sizeof(*all)) : NULL;
	size_t k = 0;
	for (unsigned b = 0; b <= top; b++) {
		bucket *bk = &eng->buckets[b];
		memcpy(all + k, bk->e + bk->head, (size_t)(bk->len - bk->head) * sizeof(*all));
		k += bk->len - bk->head;
		bk->len = bk->head = 0;
		if (b)
			eng->nonempty[(b - 1) >> 6] &= ~(1ULL << ((b - 1) & 63));
	}
	eng->last_at = to;
	for (size_t i = 0; i < n; i++)
		bucket_append(eng, bucket_of(eng, all[i].at), all[i]); /* none lands in bucket 0 */
	free(all);
}

/* Queue record r at `at`; `newest` when its sequence is the latest handed out. */
static inline void queue_push(sim_engine *eng, sim_time at, uint32_t r, bool newest)
{
	queue_entry e = { .at = at, .rec = r, .gen = eng->recs[r].gen };
	if (__builtin_expect(at < eng->last_at, 0))
		queue_rebase(eng, at);
	unsigned b = bucket_of(eng, at);
	if (b == 0 && !newest)
		bucket0_insert(eng, e, eng->recs[r].seq);
	else
		bucket_append(eng, b, e);
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
	uint32_t r = rec_alloc(eng);
	record *rc = &eng->recs[r];
	rc->seq = seq;
	rc->fn = NULL;
	rc->ctx = ev;
	ev->slot = r;
	queue_push(eng, at, r, true);
}

void sim_event_cancel(sim_engine *eng, sim_event *ev)
{
	if (ev->slot == SIM_SLOT_NONE)
		return;
	rec_release(eng, ev->slot);
	ev->slot = SIM_SLOT_NONE;
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
	uint32_t r = rec_alloc(eng);
	record *rc = &eng->recs[r];
	rc->seq = eng->next_seq++;
	rc->fn = fn;
	rc->ctx = ctx;
	rc->arg = arg;
	rc->entity = entity;
	rc->kind = kind;
	queue_push(eng, at, r, true);
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
	sim_oom_set_clock(eng);
	for (;;) {
		if (max_events && done >= max_events)
			return SIM_RUN_COUNT;
		queue_entry *top = queue_front(eng);
		if (!top)
			return SIM_RUN_IDLE;
		if (top->at > until) {
			if (until > eng->now)
				eng->now = until;
			return SIM_RUN_TIME;
		}
		queue_entry e = *top;
		queue_pop(eng);
		eng->now = e.at;
		if (e.at >= eng->next_tick)
			ticks_run(eng, e.at);
		record *rc = &eng->recs[e.rec];
		if (rc->fn) {
			sim_event tmp = { .at = e.at, .fn = rc->fn, .ctx = rc->ctx, .arg = rc->arg,
			                  .entity = rc->entity, .kind = rc->kind, .slot = SIM_SLOT_NONE,
			                  .owned = 1 };
			rec_release(eng, e.rec);
			fold(eng, e.at, tmp.kind, tmp.entity);
			eng->events_run++;
			done++;
			tmp.fn(eng, &tmp);
		} else {
			sim_event *ev = rc->ctx;
			if (ev->seq != rc->seq) {
				/* re-armed later while queued: file it at its real deadline, with the
				 * order the re-arm gave it (a key above the one just taken) */
				rc->seq = ev->seq;
				ev->queued_at = ev->at;
				queue_push(eng, ev->at, e.rec, false);
				continue;
			}
			rec_release(eng, e.rec);
			ev->slot = SIM_SLOT_NONE;
			fold(eng, e.at, ev->kind, ev->entity);
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
	queue_entry *top = queue_front(eng);
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
	size_t q = eng->spare_cap;
	for (int i = 0; i < NBUCKETS; i++)
		q += eng->buckets[i].cap;
	return sizeof(*eng) + q * sizeof(queue_entry) + (size_t)eng->rec_cap * sizeof(record);
}

void sim_engine_rng(const sim_engine *eng, const char *name, uint64_t index, sim_rng *out)
{
	sim_rng_stream(out, eng->seed, name, index);
}
