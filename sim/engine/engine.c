/* The discrete-event engine's face: events and their scheduling, the run loop that takes
 * them in (time, sequence) order from the queue (sim/engine/event_queue_int.h: a timing
 * wheel in front of a radix heap, packed entries, nothing allocated per event), the
 * trajectory fingerprint every executed event folds into, the watched times, and the
 * ticks that run housekeeping between events.
 */
#include "sim/engine/engine.h"

#include <stdlib.h>
#include <string.h>

#include "sim/engine/event_queue_int.h"
#include "sim/engine/oom.h"

struct sim_engine {
	sim_time now;
	uint64_t seed;
	uint64_t next_seq;
	uint64_t fingerprint;
	uint64_t events_run;
	bool stop;

	sim_queue q; /* the events to run (sim/engine/event_queue.c) */

	/* watched times (sim_engine_watch): a bit per low 12 bits of the time, with counts */
	uint64_t watch_bits[WHEEL_SLOTS / 64];
	uint32_t *watch_n;
	size_t n_watched; /* watches in force */
	sim_watch_fn watch_fn;
	void *watch_ctx;
	bool in_watch;

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
	sim_queue_init(&eng->q);
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
	sim_queue_free(&eng->q);
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
	return queue_running_seq(&eng->q) < seq;
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
	uint32_t t = timer_alloc(&eng->q, ev);
	ev->slot = t;
	entry e = { .at = at, .seq = seq, .timer = t, .gen = eng->q.timers[t].gen };
	sim_queue_put(&eng->q, &e, true);
}

void sim_event_cancel(sim_engine *eng, sim_event *ev)
{
	if (ev->slot == SIM_SLOT_NONE)
		return;
	timer_release(&eng->q, ev->slot);
	ev->slot = SIM_SLOT_NONE;
	eng->q.stale++;
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
	eng->q.live++;
	entry e = { .at = at, .seq = seq, .fn = fn, .ctx = ctx, .arg = arg, .entity = entity, .kind = kind };
	sim_queue_put(&eng->q, &e, seq + 1 == eng->next_seq);
}

/* sim_post past its usual case, out of line so that the usual one needs no frame: a watched
 * time, a slot's first block, or anything post_any does. */
__attribute__((noinline)) static void post_slow(sim_engine *eng, sim_time at, uint64_t seq, uint32_t kind,
                                                uint64_t entity, sim_event_fn fn, void *ctx, uint64_t arg)
{
	watch_take(eng, at < eng->now ? eng->now : at, seq);
	if (queue_in_wheel_ahead(&eng->q, eng->now, at) && queue_post_wheel(&eng->q, at, seq, true, kind, entity, fn, ctx, arg))
		return;
	post_any(eng, at, seq, kind, entity, fn, ctx, arg);
}

void sim_post(sim_engine *eng, sim_time at, uint32_t kind, uint64_t entity, sim_event_fn fn,
              void *ctx, uint64_t arg)
{
	uint64_t seq = eng->next_seq++;
	/* the usual case: a later time in the wheel (so not in the past), whose slot has room
	 * in its last block, for a compact unit, and no time watched */
	if (__builtin_expect(queue_in_wheel_ahead(&eng->q, eng->now, at) && !eng->n_watched, 1) &&
	    queue_post_compact(&eng->q, at, seq, kind, entity, fn, ctx, arg))
		return;
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
	if (__builtin_expect(queue_in_wheel_ahead(&eng->q, eng->now, at) &&
	                             queue_post_wheel(&eng->q, at, seq, false, kind, entity, fn, ctx, arg),
	                     1))
		return;
	post_any(eng, at, seq, kind, entity, fn, ctx, arg);
}

void sim_engine_ahead(const sim_engine *eng, sim_event_fn fn, void **ctx, unsigned n)
{
	sim_queue_ahead(&eng->q, fn, ctx, n);
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
		const unit *r = queue_front_compact(&eng->q);
		enum front_kind k = FRONT_COMPACT;
		if (__builtin_expect(!r, 0)) {
			k = sim_queue_settle(&eng->q);
			if (k == FRONT_NONE)
				return SIM_RUN_IDLE;
			r = eng->q.rd;
		}
		if (__builtin_expect(k == FRONT_COMPACT, 1)) {
			/* the usual event: a compact one-shot at the current bucket's time */
			sim_time at = eng->q.last_at;
			if (at > until)
				goto time_limit;
			uint64_t a = r->h.a, b = r->h.b;
			bool e64 = b & TAG_COMPACT_E;
			sim_event tmp = { .at = at, .fn = r->h.fn, .ctx = r->h.ctx, .arg = e64 ? 0 : b >> 32, .entity = e64 ? a : a >> 32, .kind = (uint32_t)(e64 ? b >> 32 : a), .slot = SIM_SLOT_NONE, .owned = 1 };
			eng->q.cur_unit = r;
			eng->q.rd++;
			eng->now = at;
			if (at >= eng->next_tick)
				ticks_run(eng, at);
			eng->q.live--;
			fold(eng, at, tmp.kind, tmp.entity);
			eng->events_run++;
			done++;
			tmp.fn(eng, &tmp);
			if (eng->stop)
				return SIM_RUN_STOPPED;
			continue;
		}
		const entry *top = queue_front_entry(&eng->q);
		if (top->at > until)
			goto time_limit;
		/* copy it before the handler runs: it may post, which may move the flat current
		 * bucket */
		entry e = *top;
		queue_take_any(&eng->q);
		eng->now = e.at;
		eng->q.cur_unit = NULL;
		eng->q.cur_seq = e.seq;
		if (e.at >= eng->next_tick)
			ticks_run(eng, e.at);
		if (e.fn) {
			sim_event tmp = { .at = e.at, .fn = e.fn, .ctx = e.ctx, .arg = e.arg, .entity = e.entity, .kind = e.kind, .slot = SIM_SLOT_NONE, .owned = 1 };
			eng->q.live--;
			fold(eng, e.at, e.kind, e.entity);
			eng->events_run++;
			done++;
			e.fn(eng, &tmp);
		} else {
			sim_event *ev = eng->q.timers[e.timer].ev;
			if (ev->seq != e.seq) {
				/* re-armed later while queued: file it at its real deadline, with the
				 * order the re-arm gave it (a key above the one just taken) */
				e.seq = ev->seq;
				e.at = ev->at;
				ev->queued_at = ev->at;
				sim_queue_put(&eng->q, &e, false);
				continue;
			}
			eng->q.cur_seq = e.seq;
			timer_release(&eng->q, e.timer);
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
	if (queue_front_compact(&eng->q))
		return eng->q.last_at;
	switch (sim_queue_settle(&eng->q)) {
	case FRONT_NONE: return SIM_TIME_NEVER;
	case FRONT_COMPACT: return eng->q.last_at;
	case FRONT_ENTRY: break;
	}
	return queue_front_entry(&eng->q)->at;
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
size_t sim_engine_pending(const sim_engine *eng) { return eng->q.live; }

size_t sim_engine_memory(const sim_engine *eng)
{
	return sizeof(*eng) + sim_queue_memory(&eng->q);
}

void sim_engine_rng(const sim_engine *eng, const char *name, uint64_t index, sim_rng *out)
{
	sim_rng_stream(out, eng->seed, name, index);
}
