/* The discrete-event engine: a radix heap of (time, sequence, slot) entries.
 *
 * Entries carry their keys inline, so queue work never touches event memory. Cancelling
 * or re-arming does not search the queue: the event's slot simply stops matching the
 * entry's sequence number, and the stale entry is dropped when its bucket is next
 * scanned. Slots live in an engine-owned table, so a stale entry never points at memory a
 * component has freed.
 */
#include "sim/engine/engine.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/engine/oom.h"

/* A queued event. One-shot postings live entirely in their entry (fn != NULL), so
 * running them touches no other memory; embedded timers point at their slot. */
typedef struct heap_entry {
	sim_time at;
	uint64_t seq;
	sim_event_fn fn; /* one-shot handler, or NULL for an embedded timer */
	void *ctx;
	uint64_t arg;
	uint64_t entity;
	uint32_t kind;
	uint32_t slot;   /* embedded timer's slot */
} heap_entry;

typedef struct slot_entry {
	uint64_t seq;   /* sequence of the live scheduling, 0 = free */
	sim_event *ev;  /* free slots: unused; next free index in `next_free` */
	uint32_t next_free;
} slot_entry;

typedef struct bucket {
	heap_entry *e;
	uint32_t len, cap;
} bucket;

struct sim_engine {
	sim_time now;
	uint64_t seed;
	uint64_t next_seq;
	uint64_t fingerprint;
	uint64_t events_run;
	bool stop;

	bucket buckets[129];
	uint64_t nonempty[3];   /* bit b set = bucket b has entries */
	sim_time last_at;       /* key of the last entry taken (radix base) */
	uint64_t last_seq;
	heap_entry *spare;      /* scratch array swapped with a bucket being spread */
	uint32_t spare_cap;
	size_t queued;          /* entries in all buckets, live or stale */
	size_t stale;           /* entries whose slot no longer matches */

	slot_entry *slots;
	uint32_t slot_cap, slot_free, slots_used;

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
	eng->slot_free = SIM_SLOT_NONE;
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
	for (int i = 0; i < 129; i++)
		free(eng->buckets[i].e);
	free(eng->spare);
	free(eng->slots);
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

/* --- slots ---------------------------------------------------------------------- */

static uint32_t slot_alloc(sim_engine *eng, sim_event *ev, uint64_t seq)
{
	uint32_t s;
	if (eng->slot_free != SIM_SLOT_NONE) {
		s = eng->slot_free;
		eng->slot_free = eng->slots[s].next_free;
	} else {
		if (eng->slots_used == eng->slot_cap) {
			uint32_t cap = eng->slot_cap ? eng->slot_cap * 2 : 1024;
			eng->slots = xrealloc(eng->slots, (size_t)cap * sizeof(*eng->slots));
			eng->slot_cap = cap;
		}
		s = eng->slots_used++;
	}
	eng->slots[s].seq = seq;
	eng->slots[s].ev = ev;
	return s;
}

static void slot_release(sim_engine *eng, uint32_t s)
{
	eng->slots[s].seq = 0;
	eng->slots[s].ev = NULL;
	eng->slots[s].next_free = eng->slot_free;
	eng->slot_free = s;
}

/* --- queue ----------------------------------------------------------------------- */

/* The queue is a radix heap over the 128-bit key (time, sequence). A discrete-event
 * engine only ever inserts keys larger than the last one taken (time >= now, sequence
 * fresh), which is exactly what a radix heap needs. Bucket i (1..128) holds entries whose
 * key first differs from `last` at bit i-1 (counting from the least significant); bucket
 * 0 holds the entry equal to `last`, i.e. the next to run. Taking the minimum scans one
 * bucket and redistributes it into lower ones; buckets are plain arrays, so the work is
 * sequential memory access instead of a binary heap's scattered sifts. */

static inline unsigned bucket_of(const sim_engine *eng, sim_time at, uint64_t seq)
{
	uint64_t hi = at ^ eng->last_at;
	if (hi)
		return 128u - (unsigned)__builtin_clzll(hi);
	uint64_t lo = seq ^ eng->last_seq;
	return lo ? 64u - (unsigned)__builtin_clzll(lo) : 0u;
}

static inline void bucket_add(sim_engine *eng, unsigned b, heap_entry e)
{
	bucket *bk = &eng->buckets[b];
	if (bk->len == bk->cap) {
		uint32_t cap = bk->cap ? bk->cap * 2 : 16;
		bk->e = xrealloc(bk->e, (size_t)cap * sizeof(*bk->e));
		bk->cap = cap;
	}
	bk->e[bk->len++] = e;
	eng->nonempty[b >> 6] |= 1ULL << (b & 63);
}

static inline bool entry_live(const sim_engine *eng, const heap_entry *e)
{
	return e->fn || eng->slots[e->slot].seq == e->seq;
}

static inline bool entry_before(const heap_entry *a, const heap_entry *b)
{
	return a->at < b->at || (a->at == b->at && a->seq < b->seq);
}

static int first_nonempty(const sim_engine *eng)
{
	for (int w = 0; w < 3; w++)
		if (eng->nonempty[w])
			return w * 64 + __builtin_ctzll(eng->nonempty[w]);
	return -1;
}

static void bucket_clear(sim_engine *eng, unsigned b)
{
	eng->buckets[b].len = 0;
	eng->nonempty[b >> 6] &= ~(1ULL << (b & 63));
}

/* The earliest live entry, without taking it. Only the candidate minimum is checked
 * for liveness (a slot-table lookup per entry would make the scan cache-bound); when the
 * minimum is stale, every stale entry of the bucket is dropped in one pass and the scan
 * repeated (dropping them one rescan at a time is quadratic when thousands of timers
 * were cancelled around the same time). NULL when nothing is pending. */
static heap_entry *queue_peek(sim_engine *eng)
{
	for (;;) {
		int b = first_nonempty(eng);
		if (b < 0)
			return NULL;
		bucket *bk = &eng->buckets[b];
		heap_entry *e = bk->e, *min = e;
		for (uint32_t i = 1; i < bk->len; i++)
			if (entry_before(&e[i], min))
				min = &e[i];
		if (entry_live(eng, min))
			return min;
		uint32_t kept = 0;
		for (uint32_t i = 0; i < bk->len; i++)
			if (entry_live(eng, &e[i]))
				e[kept++] = e[i];
		eng->stale -= bk->len - kept;
		eng->queued -= bk->len - kept;
		bk->len = kept;
		if (bk->len == 0)
			bucket_clear(eng, (unsigned)b);
	}
}

/* Make `min` (a live entry of the lowest non-empty bucket) the new `last` and spread
 * that bucket over the lower ones; `min` lands alone in bucket 0. */
static void queue_take(sim_engine *eng, const heap_entry *min)
{
	int b = first_nonempty(eng);
	eng->last_at = min->at;
	eng->last_seq = min->seq;
	if (b == 0)
		return;
	bucket *bk = &eng->buckets[b];
	uint32_t n = bk->len;
	heap_entry *e = bk->e;
	bk->len = 0;
	eng->nonempty[(unsigned)b >> 6] &= ~(1ULL << ((unsigned)b & 63));
	/* swap the bucket's array out so bucket_add into lower buckets cannot move it */
	bk->e = eng->spare;
	uint32_t cap = bk->cap;
	bk->cap = eng->spare_cap;
	for (uint32_t i = 0; i < n; i++)
		bucket_add(eng, bucket_of(eng, e[i].at, e[i].seq), e[i]);
	eng->spare = e;
	eng->spare_cap = cap;
	if (cap > 4096 && cap / 8 > n) {
		/* a burst once made this bucket big; give the memory back */
		free(eng->spare);
		eng->spare = NULL;
		eng->spare_cap = 0;
	}
}

static void queue_push(sim_engine *eng, heap_entry e)
{
	bucket_add(eng, bucket_of(eng, e.at, e.seq), e);
	eng->queued++;
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
	ev->slot = slot_alloc(eng, ev, seq);
	queue_push(eng, (heap_entry){ .at = at, .seq = seq, .slot = ev->slot });
}

void sim_event_cancel(sim_engine *eng, sim_event *ev)
{
	if (ev->slot == SIM_SLOT_NONE)
		return;
	slot_release(eng, ev->slot);
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
	queue_push(eng, (heap_entry){ .at = at, .seq = eng->next_seq++, .fn = fn, .ctx = ctx,
	                              .arg = arg, .entity = entity, .kind = kind,
	                              .slot = SIM_SLOT_NONE });
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
		heap_entry *top = queue_peek(eng);
		if (!top)
			return SIM_RUN_IDLE;
		if (top->at > until) {
			if (until > eng->now)
				eng->now = until;
			return SIM_RUN_TIME;
		}
		queue_take(eng, top);
		heap_entry e = eng->buckets[0].e[0];
		bucket_clear(eng, 0);
		eng->queued--;
		eng->now = e.at;
		if (e.at >= eng->next_tick)
			ticks_run(eng, e.at);
		if (e.fn) {
			sim_event tmp = { .at = e.at, .fn = e.fn, .ctx = e.ctx, .arg = e.arg,
			                  .entity = e.entity, .kind = e.kind, .slot = SIM_SLOT_NONE,
			                  .owned = 1 };
			fold(eng, e.at, e.kind, e.entity);
			eng->events_run++;
			done++;
			e.fn(eng, &tmp);
		} else {
			sim_event *ev = eng->slots[e.slot].ev;
			if (ev->seq != e.seq) {
				/* re-armed later while queued: file it at its real deadline, with the
				 * order the re-arm gave it (a key above the one just taken) */
				eng->slots[e.slot].seq = ev->seq;
				ev->queued_at = ev->at;
				queue_push(eng, (heap_entry){ .at = ev->at, .seq = ev->seq, .slot = e.slot });
				continue;
			}
			slot_release(eng, e.slot);
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
	heap_entry *top = queue_peek(eng);
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
size_t sim_engine_pending(const sim_engine *eng) { return eng->queued - eng->stale; }

size_t sim_engine_memory(const sim_engine *eng)
{
	size_t q = eng->spare_cap;
	for (int i = 0; i < 129; i++)
		q += eng->buckets[i].cap;
	return sizeof(*eng) + q * sizeof(heap_entry) +
	       (size_t)eng->slot_cap * sizeof(slot_entry);
}

void sim_engine_rng(const sim_engine *eng, const char *name, uint64_t index, sim_rng *out)
{
	sim_rng_stream(out, eng->seed, name, index);
}
