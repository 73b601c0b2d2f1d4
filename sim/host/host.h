/* The host under a stack: its CPUs and what each piece of networking work costs them.
 *
 * A stack's protocol code runs in zero engine time, as it always has; the host says when
 * that work would really be done. Every piece of work (a send call, a segment built, an
 * interrupt, a completion handled, a copy) costs CPU time on one of the host's CPUs, and
 * waits while that CPU is busy with work that came before it. The time the work in hand
 * has reached is host_now(): it starts at the engine's time when an engine event enters
 * the stack, and each host_run() moves it on. What leaves the host (frames, work requests,
 * what an application sees and measures) is stamped with it. So a busy CPU delays what
 * follows and a saturated one queues work, without an engine event per piece of work: the
 * CPUs are bookkeeping (when each is free again), and effects carry their later time.
 *
 * Order: work on a CPU is served in the order it reaches that CPU in engine order (first
 * come, first served, never pre-empted); an idle gap before work that was charged earlier
 * but starts later is not back-filled (docs/hosts.md, "what the model leaves out").
 *
 * A host without costs (profile "none", the default of the C API) keeps host_now() equal
 * to sim_now() and counts nothing: byte-level tests and benchmarks see no change.
 *
 * Costs are in nanoseconds at reference speed (host_profile.h); a CPU of speed s (in
 * percent of the reference) takes cost * 100 / s. */
#ifndef SIM_HOST_H
#define SIM_HOST_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/engine/engine.h"
#include "sim/host/host_profile.h"

typedef struct sim_host sim_host;

/* What CPU time is spent on, as the reports break it down. */
typedef enum host_cat {
	HOST_CAT_APP,   /* the application's own work between socket calls */
	HOST_CAT_TCPIP, /* socket calls and the TCP/IP path: copies, segments, ACKs, timers */
	HOST_CAT_SMCR,  /* the SMC-R path: copies into and out of buffers, work requests, CDC, CLC, LLC */
	HOST_CAT_IRQ,   /* interrupts and completion polling of NICs and RNICs */
	HOST_NCATS
} host_cat;

const char *host_cat_name(host_cat c); /* "app", "tcpip", "smcr", "irq" */

/* One CPU's account. */
typedef struct host_cpu_stats {
	uint64_t busy_ns[HOST_NCATS]; /* CPU time by category */
	uint64_t items;               /* pieces of work run */
	uint64_t queued_items;        /* pieces that waited for the CPU */
	uint64_t wait_ns;             /* the time they waited, summed */
	uint64_t wait_max_ns;         /* the longest wait */
	sim_time free_at;             /* when its work charged so far is done */
} host_cpu_stats;

/* A host with profile p (copied; NULL: no costs) for a stack on engine eng. */
sim_host *host_new(sim_engine *eng, const host_profile *p);
void host_free(sim_host *h);
/* Give the host another profile (NULL: no costs), its CPUs idle and their accounts zero;
 * whoever holds the host keeps it. */
void host_set_profile(sim_host *h, const host_profile *p);

const host_profile *host_get_profile(const sim_host *h);
bool host_has_costs(const sim_host *h);
unsigned host_ncpus(const sim_host *h);
const host_cpu_stats *host_cpu(const sim_host *h, unsigned cpu);
/* Totals over every CPU (free_at: the latest). */
void host_totals(const sim_host *h, host_cpu_stats *out);

/* The time the work in hand has reached (>= sim_now). A new engine event starts anew at
 * the engine's time. */
sim_time host_now(sim_host *h);
/* The work in hand waits for something outside the CPUs (a device's latency): it goes on
 * no earlier than t. */
void host_wait_until(sim_host *h, sim_time t);
/* Run cost (ns at reference speed) of category cat on CPU cpu (taken modulo the CPU
 * count), after the work in hand and after what that CPU already has. Handing the work
 * to another CPU that sits idle costs the profile's wake-up latency first. Returns the new host_now(). No-op without costs. */
sim_time host_run(sim_host *h, unsigned cpu, host_cat cat, uint64_t cost_ns);

/* How far an application's CPU may run ahead of the engine's time before its next socket
 * call waits for it: a loop of calls made in one engine event would otherwise put all its
 * effects (data in buffers, frames queued) at the loop's start. A shorter slice follows
 * the host's time more closely at one engine event a slice. */
#define HOST_APP_SLICE_NS 10000u

/* The CPU a new application socket runs on: the profile's app CPUs in turn (a
 * deterministic round robin per host). */
unsigned host_next_app_cpu(sim_host *h);

/* The same on the CPU the work in hand runs on (the interrupt CPU when it has run on
 * none yet: timers and device events start there). */
sim_time host_run_here(sim_host *h, host_cat cat, uint64_t cost_ns);

/* Interrupt sources (a NIC receive queue, an RNIC completion queue). A device event
 * (a frame landed, a completion written) reaches the CPU as an interrupt unless the
 * source's handler is still looking for work, when it joins that run: no interrupt
 * latency, no entry cost, and its work queues behind what the run has in hand.
 *  - A completion queue's handler (drains) polls until it finds nothing: its run lasts
 *    until the work for its last event is done (until the work in hand moves on to an
 *    application, host_irq_done, or the event's processing ends, host_irq_leave).
 *  - A NIC's NAPI poll (not drains) looks at its ring after each frame's driver work
 *    (host_irq_looked) and hands what it gathered to the protocols when the ring is
 *    empty: a frame joins only if it landed before that last look. */
typedef struct host_irq {
	sim_time poll_until; /* the handler last looks for work then (host time) */
	uint64_t run;        /* which run that is (1, 2, ...; 0: none yet) */
	uint32_t win_events; /* events in the current window of adaptive moderation */
	sim_time win_start;  /* when that window began */
	bool busy;           /* the last window's events came at a sustained rate */
	bool drains;         /* a completion queue's handler (see above) */
} host_irq;
/* A device event on this source: after latency (interrupt moderation and delivery; not
 * CPU time) an interrupt costing irq_cost_ns on cpu, or a join. Returns true for an
 * interrupt. The source stays open (host_irq_run) until done or left. */
bool host_irq_enter(sim_host *h, host_irq *irq, unsigned cpu, sim_time latency, uint64_t irq_cost_ns);
/* Adaptive moderation, as Linux's DIM: every 64 events the source's rate is measured;
 * `busy` while the last 64 came closer than `gap` apart on average, else `idle`. */
#define HOST_DIM_EVENTS 64u
sim_time host_irq_moderation(sim_host *h, host_irq *irq, sim_time idle, sim_time busy, sim_time gap);
/* The run of the source open in the work in hand (0: none): segments of one flow that
 * arrive in one run are merged (GRO). */
uint64_t host_irq_run(const sim_host *h);
/* When the poll open in the work in hand last looked for work (0: none open): GRO hands
 * what it merged to the protocols then. */
sim_time host_irq_looked_at(const sim_host *h);
/* A NAPI poll looked at its ring now (after a frame's driver work). */
void host_irq_looked(sim_host *h);
/* The interrupt handler's part of the work in hand is over: a draining handler's run
 * lasts until now. */
void host_irq_done(sim_host *h);
/* End of a device event's processing: host_irq_done if still open. */
void host_irq_leave(sim_host *h);

#endif
