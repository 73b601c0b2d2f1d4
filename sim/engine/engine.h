/* The discrete-event engine every simulated component runs on.
 *
 * Virtual time is a 64-bit count of nanoseconds. Events run in (time, sequence) order;
 * the sequence number comes from a per-engine counter, so two events at the same time
 * run in the order they were scheduled, never in address or hash order. Every executed
 * event is folded into a 64-bit trajectory fingerprint (time, kind, entity), so two runs
 * can be compared at a glance. There is no global state: several engines can coexist
 * (the out-of-memory message remembers which one ran last, to print its clock:
 * sim/engine/oom.h).
 *
 * Two ways to schedule:
 *  - an embedded, cancellable timer: the component owns a sim_event (in its own struct),
 *    sets it up once with sim_event_init() and arms/cancels it as often as it likes;
 *  - a one-shot posting (sim_post): the engine owns the event, it cannot be cancelled.
 * A component must cancel its embedded events before freeing the memory they live in.
 */
#ifndef SIM_ENGINE_H
#define SIM_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/engine/rng.h"

typedef uint64_t sim_time;

#define SIM_NS 1ULL
#define SIM_US 1000ULL
#define SIM_MS 1000000ULL
#define SIM_S 1000000000ULL
#define SIM_TIME_NEVER UINT64_MAX

typedef struct sim_engine sim_engine;
typedef struct sim_event sim_event;

typedef void (*sim_event_fn)(sim_engine *eng, sim_event *ev);

/* An event. Fields are public so handlers can read ctx/arg without accessors; only the
 * engine writes at/slot/flags. */
struct sim_event {
	sim_time at;        /* when it fires (valid while pending) */
	sim_event_fn fn;    /* handler */
	void *ctx;          /* handler's object */
	uint64_t arg;       /* free per-event argument */
	uint64_t entity;    /* stable id of the object it concerns (fingerprinted) */
	uint32_t kind;      /* event category (fingerprinted), see sim_kind() */
	uint32_t slot;      /* engine-internal: live slot, or SIM_SLOT_NONE */
	sim_time queued_at; /* engine-internal: time of the live queue entry */
	uint64_t seq;       /* engine-internal: ordering sequence of the current arming */
	uint8_t owned;      /* set on the transient event a one-shot handler receives */
};

#define SIM_SLOT_NONE UINT32_MAX

/* Why sim_engine_run() returned. */
typedef enum sim_run_result {
	SIM_RUN_IDLE,    /* no pending event left */
	SIM_RUN_TIME,    /* the next event lies after the time limit; now == the limit */
	SIM_RUN_COUNT,   /* the event budget was used up */
	SIM_RUN_STOPPED, /* a handler called sim_engine_stop() */
} sim_run_result;

sim_engine *sim_engine_new(uint64_t seed);
void sim_engine_free(sim_engine *eng);

sim_time sim_now(const sim_engine *eng);

/* Event kinds are 32-bit hashes of a dotted name ("tcp.rto", "qp.retry"): a component
 * computes its kinds once at setup; no central registry, and the fingerprint does not
 * change when a component is added elsewhere. */
uint32_t sim_kind(const char *name);

/* Embedded timers. */
void sim_event_init(sim_event *ev, uint32_t kind, uint64_t entity, sim_event_fn fn, void *ctx);
/* Arm at absolute time `at` (>= now). Re-arming a pending event moves it (it then runs
 * after every event already scheduled for the same time). Moving a pending timer later
 * (the retransmission-timer pattern) costs no queue work: the queued entry is re-filed
 * when it surfaces, with the order the re-arm gave it. */
void sim_event_schedule(sim_engine *eng, sim_event *ev, sim_time at);
void sim_event_schedule_in(sim_engine *eng, sim_event *ev, sim_time delay);
void sim_event_cancel(sim_engine *eng, sim_event *ev);
static inline bool sim_event_pending(const sim_event *ev) { return ev->slot != SIM_SLOT_NONE; }

/* One-shot engine-owned event at absolute time `at`; fn receives a transient sim_event
 * whose ctx/arg/entity/kind are the ones given here. */
void sim_post(sim_engine *eng, sim_time at, uint32_t kind, uint64_t entity, sim_event_fn fn,
              void *ctx, uint64_t arg);

/* A FIFO of future one-shot events that keeps only its head in the queue (a wire's
 * frames in flight): sim_engine_take_seq() gives the order an event posted now would
 * have, sim_post_seq() posts it later with that order. The caller keeps its FIFO in
 * (at, seq) order and posts an entry no earlier than the one running, so the run is
 * the same as with every entry posted at once, without a queue entry each. */
uint64_t sim_engine_take_seq(sim_engine *eng);
/* sim_engine_take_seq for a posting that will be at `at` (a watcher hears of it). */
uint64_t sim_engine_take_seq_at(sim_engine *eng, sim_time at);
void sim_post_seq(sim_engine *eng, sim_time at, uint64_t seq, uint32_t kind, uint64_t entity, sim_event_fn fn,
                  void *ctx, uint64_t arg);

/* For prefetching only: ctx[k] is the object of the one-shot posting that runs k events
 * after the one running now (k = 0: the next, k < n) if it is queued for the current
 * time and runs fn, NULL otherwise (also when it lies further on in the queue than a look
 * can see). A handler whose events come in long runs (a flood's arrivals, thousands at
 * one time) asks for the memory of the ones a few places ahead, so the cache misses of
 * many deliveries overlap instead of following each other. It changes nothing. */
void sim_engine_ahead(const sim_engine *eng, sim_event_fn fn, void **ctx, unsigned n);

/* Watched times, for a component that runs an event's work earlier than its place in the
 * order (sim/fabric/hop.c: a switch crossing decided when the frame enters the wire, its
 * arrival at the far end queued then). Its event must still run where the order would
 * put it among the other events of its time, so the watcher hears of every sequence
 * taken for a watched time (by sim_post, a timer's arming, sim_engine_take_seq_at) before
 * the posting is filed, with that sequence; it may then undo what it ran early and post
 * it the usual way. A watched time costs one bit test per posting; one watcher an
 * engine (false: another has it). The watcher may post; it does not hear of those. */
typedef void (*sim_watch_fn)(void *ctx, sim_time at, uint64_t seq);
bool sim_engine_set_watcher(sim_engine *eng, sim_watch_fn fn, void *ctx); /* fn NULL: ctx lets go */
void sim_engine_watch(sim_engine *eng, sim_time at);
void sim_engine_unwatch(sim_engine *eng, sim_time at);
/* Whether the run has not reached (at, seq) yet: the event running now (or the last one,
 * between events) comes before it in the run order. */
bool sim_engine_before(const sim_engine *eng, sim_time at, uint64_t seq);

/* Run events with time <= until, at most max_events of them (0 = no limit). */
sim_run_result sim_engine_run(sim_engine *eng, sim_time until, uint64_t max_events);
void sim_engine_stop(sim_engine *eng);

/* Time of the earliest pending event, or SIM_TIME_NEVER. */
sim_time sim_engine_next_time(sim_engine *eng);
/* Move virtual time forward without running anything (until <= next event time). Used by
 * the real-time driver, which lets wall time pass between events. */
void sim_engine_advance(sim_engine *eng, sim_time to);

uint64_t sim_engine_fingerprint(const sim_engine *eng);
uint64_t sim_engine_events_run(const sim_engine *eng);
size_t sim_engine_pending(const sim_engine *eng);
/* Bytes the engine itself holds (heap, slots, pooled events). */
size_t sim_engine_memory(const sim_engine *eng);

/* Housekeeping: fn(ctx, now) runs between events once virtual time has advanced by
 * `every` since it last ran (or was added), just before the first event at or after that
 * time. A tick is not an event: it is never folded into the fingerprint, never ordered
 * with events, and must not change the simulation (schedule, send, alter state): it is
 * for bookkeeping such as giving idle memory back (sim/rdma/lazy_arena.h). A tick must
 * not add or remove ticks. */
typedef void (*sim_tick_fn)(void *ctx, sim_time now);
typedef struct sim_tick {
	sim_tick_fn fn;
	void *ctx;
	sim_time every, due;
} sim_tick;
void sim_engine_tick_add(sim_engine *eng, sim_time every, sim_tick_fn fn, void *ctx);
void sim_engine_tick_remove(sim_engine *eng, sim_tick_fn fn, void *ctx);

/* Fold extra data (e.g. a delivered frame's hash) into the fingerprint. */
void sim_engine_fold(sim_engine *eng, uint64_t value);

/* A named random stream derived from the run seed and (name, index): independent of
 * every other stream, so adding a component never changes another's draws. */
void sim_engine_rng(const sim_engine *eng, const char *name, uint64_t index, sim_rng *out);

#endif
