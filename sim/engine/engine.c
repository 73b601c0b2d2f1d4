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
	uint64_t seq;    /* ordering sequence of the queued entry */
	sim_event_fn fn; /* one-shot handler, or NULL for an embedded timer */
	void *ctx;       /* one-shot object, or the embedded sim_event */
	uint64_t arg;    /* one-shot argument; free records: the next free index */
	uint64_t entity;
	uint32_t kind;
	uint32_t gen; /* bumped on release */
} record;

typedef struct bucket {
	queue_entry *e;
	uint32_t len, cap;
	uint32_t head; /* the current bucket only: entries before it have run */
} bucket;

/* The radix heap's digits: 8 levels of 8 bits over the 64-bit time. */
#define LEVELS 8
#define DIGITS 256

struct sim_engine {
	sim_time now;
	uint64_t seed;
	uint64_t next_seq;
	uint64_t fingerprint;
	uint64_t events_run;
	bool stop;

	bucket now_bucket;                      /* the entries at last_at, in sequence order */
	bucket *levels;                         /* [LEVELS][DIGITS] */
	uint64_t nonempty[LEVELS][DIGITS / 64]; /* bit set = that bucket has entries */
	uint32_t levels_used;                   /* bit l set = level l has a non-empty bucket */
	sim_time last_at;                       /* radix base: the time of the current bucket */

	record *recs;
	uint32_t rec_cap, rec_free, recs_used;
	size_t live;  /* records in use: pending events */
	size_t stale; /* queued entries of cancelled records, not yet dropped */

	sim_tick *ticks; /* housekeeping between events (sim_engine_tick_add) */
	size_t n_ticks, cap_ticks;
	sim_time next_tick; /* the earliest time a tick is due */
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
	eng->levels = calloc(LEVELS * DIGITS, sizeof(*eng->levels));
	if (!eng->levels) {
		free(eng);
		return NULL;
	}
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
	for (int i = 0; i < LEVELS * DIGITS; i++)
		free(eng->levels[i].e);
	free(eng->levels);
	free(eng->now_bucket.e);
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
 * radix heap needs. This one has 8-bit digits: an entry whose time first differs from
 * `last_at` in byte l (counting from the least significant) sits in level l, in the
 * bucket of its own byte l; the entries at `last_at` itself are the current bucket, in
 * sequence order, consumed from its head. Taking the minimum spreads the lowest non-empty
 * bucket of the lowest non-empty level into lower levels, so an entry moves at most once
 * per level it descends: twice for an event a microsecond ahead, where a binary radix
 * heap moves it ten times. A bucket of level 0 holds one time and becomes the current
 * bucket by swapping arrays. Buckets are plain arrays: the work is sequential memory
 * access instead of a binary heap's scattered sifts.
 *
 * Entries of equal time are always in the same bucket and every append (a new posting,
 * a spread) keeps their relative order, so within a time they stay in the order they were
 * scheduled, i.e. by sequence. The one exception is a timer re-armed later while queued:
 * its entry is re-filed when it surfaces with the older sequence the re-arm gave it, so
 * the current bucket is put in sequence order when it is filled and such an entry is
 * inserted at its place. */

static inline void bucket_grow(bucket *bk)
{
	uint32_t cap = bk->cap ? bk->cap * 2 : 16;
	bk->e = xrealloc(bk->e, (size_t)cap * sizeof(*bk->e));
	bk->cap = cap;
}

static inline void bucket_put(bucket *bk, queue_entry e)
{
	if (bk->len == bk->cap)
		bucket_grow(bk);
	bk->e[bk->len++] = e;
}

/* File e relative to the current base (e.at >= last_at). */
static inline void queue_file(sim_engine *eng, queue_entry e)
{
	uint64_t d = e.at ^ eng->last_at;
	if (!d) {
		bucket_put(&eng->now_bucket, e);
		return;
	}
	unsigned l = (63u - (unsigned)__builtin_clzll(d)) >> 3;
	unsigned j = (unsigned)(e.at >> (l * 8)) & (DIGITS - 1);
	bucket_put(&eng->levels[l * DIGITS + j], e);
	eng->nonempty[l][j >> 6] |= 1ULL << (j & 63);
	eng->levels_used |= 1u << l;
}

static inline void level_bucket_emptied(sim_engine *eng, unsigned l, unsigned j)
{
	eng->nonempty[l][j >> 6] &= ~(1ULL << (j & 63));
	for (unsigned w = 0; w < DIGITS / 64; w++)
		if (eng->nonempty[l][w])
			return;
	eng->levels_used &= ~(1u << l);
}

static inline uint64_t entry_seq(const sim_engine *eng, const queue_entry *e)
{
	return eng->recs[e->rec].seq;
}

/* Insert into the current bucket at its sequence place among the entries not yet run. */
static void now_bucket_insert(sim_engine *eng, queue_entry e, uint64_t seq)
{
	bucket *bk = &eng->now_bucket;
	if (bk->len == bk->cap)
		bucket_grow(bk);
	uint32_t i = bk->len++;
	while (i > bk->head && entry_seq(eng, &bk->e[i - 1]) > seq) {
		bk->e[i] = bk->e[i - 1];
		i--;
	}
	bk->e[i] = e;
}

/* An entry with its sequence read once: sorting compares keys in one array instead of
 * reaching into the record table at every comparison. */
typedef struct keyed_entry {
	uint64_t seq;
	queue_entry e;
} keyed_entry;

/* Merge the sorted runs a[bound[i] .. bound[i+1]) pairwise into out, until one is left;
 * returns the array that holds the result (a or out). bound has runs + 1 entries and is
 * rewritten. */
static keyed_entry *merge_runs(keyed_entry *a, keyed_entry *out, uint32_t *bound, uint32_t runs)
{
	while (runs > 1) {
		uint32_t k = 0;
		for (uint32_t r = 0; r < runs; r += 2) {
			uint32_t lo = bound[r], mid = bound[r + 1], hi = r + 2 <= runs ? bound[r + 2] : mid;
			uint32_t i = lo, j = mid, o = lo;
			while (i < mid && j < hi)
				out[o++] = a[j].seq < a[i].seq ? a[j++] : a[i++];
			while (i < mid)
				out[o++] = a[i++];
			while (j < hi)
				out[o++] = a[j++];
			bound[k++] = lo;
		}
		bound[k] = bound[runs];
		runs = k;
		keyed_entry *t = a;
		a = out;
		out = t;
	}
	return a;
}

/* Put the current bucket (just filled) in sequence order. It is usually sorted already
 * (one linear check), or small. But a wire FIFO posts each next frame with the sequence
 * it took when the frame was sent, so a bucket can be the concatenation of long sorted
 * runs, one per group of wires that the previous bucket ran in another order (an ARP
 * storm: thousands of entries, one run per leaf switch), where an insertion sort moves
 * entries quadratically often: runs are merged instead, O(n log runs). Sequences are
 * unique, so any correct sort gives the same order. */
static void now_bucket_sort(sim_engine *eng)
{
	bucket *bk = &eng->now_bucket;
	uint32_t n = bk->len, descents = 0;
	uint64_t prev = entry_seq(eng, &bk->e[0]);
	for (uint32_t i = 1; i < n; i++) {
		uint64_t s = entry_seq(eng, &bk->e[i]);
		descents += s < prev;
		prev = s;
	}
	if (!descents)
		return;
	if (n <= 32) {
		for (uint32_t i = 1; i < n; i++) {
			queue_entry x = bk->e[i];
			uint64_t s = entry_seq(eng, &x);
			uint32_t j = i;
			while (j > 0 && entry_seq(eng, &bk->e[j - 1]) > s) {
				bk->e[j] = bk->e[j - 1];
				j--;
			}
			bk->e[j] = x;
		}
		return;
	}
	keyed_entry *a = xrealloc(NULL, (size_t)n * 2 * sizeof(*a));
	uint32_t *bound = xrealloc(NULL, ((size_t)descents + 2) * sizeof(*bound));
	uint32_t runs = 0;
	for (uint32_t i = 0; i < n; i++) {
		a[i].seq = entry_seq(eng, &bk->e[i]);
		a[i].e = bk->e[i];
		if (i == 0 || a[i].seq < a[i - 1].seq)
			bound[runs++] = i;
	}
	bound[runs] = n;
	keyed_entry *sorted = merge_runs(a, a + n, bound, runs);
	for (uint32_t i = 0; i < n; i++)
		bk->e[i] = sorted[i].e;
	free(bound);
	free(a);
}

static inline bool entry_stale(const sim_engine *eng, const queue_entry *e)
{
	return eng->recs[e->rec].gen != e->gen;
}

/* The current bucket is empty: make the earliest time of the lowest non-empty bucket the
 * new base and spread that bucket over the lower levels. False when nothing is queued. */
static bool queue_spread(sim_engine *eng)
{
	if (!eng->levels_used)
		return false;
	unsigned l = (unsigned)__builtin_ctz(eng->levels_used), j = 0;
	for (unsigned w = 0; w < DIGITS / 64; w++)
		if (eng->nonempty[l][w]) {
			j = w * 64 + (unsigned)__builtin_ctzll(eng->nonempty[l][w]);
			break;
		}
	bucket *bk = &eng->levels[l * DIGITS + j];
	level_bucket_emptied(eng, l, j);
	bucket *cur = &eng->now_bucket;
	if (l == 0) {
		/* one time: the bucket becomes the current one as it is */
		eng->last_at = (eng->last_at & ~(sim_time)(DIGITS - 1)) | j;
		bucket t = *cur;
		*cur = *bk;
		cur->head = 0;
		*bk = t;
		bk->len = bk->head = 0;
	} else {
		uint32_t n = bk->len;
		queue_entry *e = bk->e;
		sim_time min = e[0].at;
		for (uint32_t i = 1; i < n; i++)
			if (e[i].at < min)
				min = e[i].at;
		eng->last_at = min;
		/* every entry lands in a lower level or the current bucket, never back here */
		if (eng->stale * 4 > eng->live) {
			/* many cancelled timers queued (TCP re-arms its timers earlier all the
			 * time): drop them now rather than moving them down level by level */
			for (uint32_t i = 0; i < n; i++) {
				if (!entry_stale(eng, &e[i]))
					queue_file(eng, e[i]);
				else
					eng->stale--;
			}
		} else {
			for (uint32_t i = 0; i < n; i++)
				queue_file(eng, e[i]);
		}
		bk->len = 0;
		if (bk->cap > 4096 && bk->cap / 8 > n) {
			/* a burst once made this bucket big; give the memory back */
			free(bk->e);
			bk->e = NULL;
			bk->cap = 0;
		}
	}
	if (cur->len > 1)
		now_bucket_sort(eng);
	return true;
}

/* The earliest live entry, without taking it (stale entries met on the way are dropped).
 * NULL when nothing is pending. */
static queue_entry *queue_front(sim_engine *eng)
{
	bucket *cur = &eng->now_bucket;
	for (;;) {
		while (cur->head < cur->len) {
			queue_entry *e = &cur->e[cur->head];
			if (!entry_stale(eng, e))
				return e;
			cur->head++;
			eng->stale--;
		}
		cur->head = cur->len = 0;
		if (!queue_spread(eng))
			return NULL;
	}
}

/* Take the entry queue_front() returned. */
static inline void queue_pop(sim_engine *eng)
{
	bucket *cur = &eng->now_bucket;
	cur->head++;
	if (cur->head >= 4096 && cur->head * 2 >= cur->len) {
		/* a long chain of same-time events: drop the prefix that has run */
		memmove(cur->e, cur->e + cur->head, (size_t)(cur->len - cur->head) * sizeof(*cur->e));
		cur->len -= cur->head;
		cur->head = 0;
	}
}

/* Lower the radix base to `to` (>= now, < last_at). A peek (sim_engine_next_time, or a run
 * that stopped at its time limit) spreads buckets without running anything, so a later
 * posting may lie before the base. Only the levels up to h, the highest byte in which the
 * old and new bases differ, need re-filing: above it both bases agree, so those entries'
 * buckets do not change. */
static void queue_rebase(sim_engine *eng, sim_time to)
{
	unsigned h = (63u - (unsigned)__builtin_clzll(to ^ eng->last_at)) >> 3;
	bucket *cur = &eng->now_bucket;
	size_t n = cur->len - cur->head;
	for (unsigned l = 0; l <= h; l++)
		if (eng->levels_used & (1u << l))
			for (unsigned j = 0; j < DIGITS; j++)
				n += eng->levels[l * DIGITS + j].len;
	queue_entry *all = n ? xrealloc(NULL, n * sizeof(*all)) : NULL;
	size_t k = cur->len - cur->head;
	if (k)
		memcpy(all, cur->e + cur->head, k * sizeof(*all));
	cur->len = cur->head = 0;
	for (unsigned l = 0; l <= h; l++) {
		if (!(eng->levels_used & (1u << l)))
			continue;
		for (unsigned j = 0; j < DIGITS; j++) {
			bucket *bk = &eng->levels[l * DIGITS + j];
			if (bk->len)
				memcpy(all + k, bk->e, (size_t)bk->len * sizeof(*all));
			k += bk->len;
			bk->len = 0;
		}
		memset(eng->nonempty[l], 0, sizeof(eng->nonempty[l]));
		eng->levels_used &= ~(1u << l);
	}
	eng->last_at = to;
	for (size_t i = 0; i < n; i++)
		queue_file(eng, all[i]); /* all later than `to`: none lands in the current bucket */
	free(all);
}

/* Queue record r at `at`; `newest` when its sequence is the latest handed out. */
static inline void queue_push(sim_engine *eng, sim_time at, uint32_t r, bool newest)
{
	queue_entry e = { .at = at, .rec = r, .gen = eng->recs[r].gen };
	if (__builtin_expect(at < eng->last_at, 0))
		queue_rebase(eng, at);
	if (at == eng->last_at && !newest)
		now_bucket_insert(eng, e, eng->recs[r].seq);
	else
		queue_file(eng, e);
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

uint64_t sim_engine_take_seq(sim_engine *eng) { return eng->next_seq++; }

void sim_post_seq(sim_engine *eng, sim_time at, uint64_t seq, uint32_t kind, uint64_t entity, sim_event_fn fn,
                  void *ctx, uint64_t arg)
{
	if (at < eng->now)
		at = eng->now;
	uint32_t r = rec_alloc(eng);
	record *rc = &eng->recs[r];
	rc->seq = seq;
	rc->fn = fn;
	rc->ctx = ctx;
	rc->arg = arg;
	rc->entity = entity;
	rc->kind = kind;
	queue_push(eng, at, r, seq + 1 == eng->next_seq); /* taken earlier: placed by its sequence */
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
			sim_event tmp = { .at = e.at, .fn = rc->fn, .ctx = rc->ctx, .arg = rc->arg, .entity = rc->entity, .kind = rc->kind, .slot = SIM_SLOT_NONE, .owned = 1 };
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
	size_t q = eng->now_bucket.cap;
	for (int i = 0; i < LEVELS * DIGITS; i++)
		q += eng->levels[i].cap;
	return sizeof(*eng) + (size_t)LEVELS * DIGITS * sizeof(bucket) + q * sizeof(queue_entry) +
	       (size_t)eng->rec_cap * sizeof(record);
}

void sim_engine_rng(const sim_engine *eng, const char *name, uint64_t index, sim_rng *out)
{
	sim_rng_stream(out, eng->seed, name, index);
}
