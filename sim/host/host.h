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

/* The CPU a new application socket runs on: the profile's app CPUs in turn (a
 * deterministic round robin per host). */
unsigned host_next_app_cpu(sim_host *h);

/* Interrupt sources (a NIC receive queue, an RNIC completion queue): an event at t from
 * the device reaches the CPU as an interrupt unless the source's handler is still
 * running (NAPI polling, completion-queue draining), when it joins that run. Returns
 * true when an interrupt was taken (its latency and entry cost are charged on cpu). */
typedef struct host_irq {
	sim_time poll_until; /* the handler's run ends then (host time) */
} host_irq;
bool host_irq_enter(sim_host *h, host_irq *irq, unsigned cpu, sim_time irq_latency, uint64_t irq_cost_ns);
/* The handler's work for this event is done: the source polls until host_now(). */
void host_irq_leave(sim_host *h, host_irq *irq);

#endif
