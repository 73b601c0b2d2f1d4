/* A host's CPUs as bookkeeping: when each is free again, and what it spent its time on.
 * No engine events: work is placed arithmetically and its effects carry the time. */
#include "sim/host/host.h"

#include <stdlib.h>
#include <string.h>

#include "sim/engine/oom.h"

struct sim_host {
	sim_engine *eng;
	host_profile p;
	host_cpu_stats *cpu;
	uint64_t ev_seen; /* the engine event the work in hand belongs to */
	sim_time t;       /* the time the work in hand has reached */
	int cur;          /* the CPU it ran on last, -1: none yet */
	uint32_t next_app;
};

static const char *const cat_names[HOST_NCATS] = { "app", "tcpip", "smcr", "irq" };

const char *host_cat_name(host_cat c) { return (unsigned)c < HOST_NCATS ? cat_names[c] : "?"; }

sim_host *host_new(sim_engine *eng, const host_profile *p)
{
	sim_host *h = sim_xcalloc(1, sizeof *h, "a host");
	h->eng = eng;
	if (p && p->costs)
		h->p = *p;
	else
		h->p = *host_profile_find("none");
	if (h->p.cpus == 0)
		h->p.cpus = 1;
	if (h->p.cpus > HOST_MAX_CPUS)
		h->p.cpus = HOST_MAX_CPUS;
	if (h->p.speed_pct == 0)
		h->p.speed_pct = 100;
	h->cpu = sim_xcalloc(h->p.cpus, sizeof *h->cpu, "a host's CPUs");
	h->ev_seen = UINT64_MAX;
	h->cur = -1;
	return h;
}

void host_free(sim_host *h)
{
	if (!h)
		return;
	free(h->cpu);
	free(h);
}

const host_profile *host_get_profile(const sim_host *h) { return &h->p; }
bool host_has_costs(const sim_host *h) { return h && h->p.costs; }
unsigned host_ncpus(const sim_host *h) { return h->p.cpus; }
const host_cpu_stats *host_cpu(const sim_host *h, unsigned cpu) { return &h->cpu[cpu % h->p.cpus]; }

void host_totals(const sim_host *h, host_cpu_stats *out)
{
	memset(out, 0, sizeof *out);
	for (unsigned i = 0; i < h->p.cpus; i++) {
		const host_cpu_stats *c = &h->cpu[i];
		for (unsigned k = 0; k < HOST_NCATS; k++)
			out->busy_ns[k] += c->busy_ns[k];
		out->items += c->items;
		out->queued_items += c->queued_items;
		out->wait_ns += c->wait_ns;
		if (c->wait_max_ns > out->wait_max_ns)
			out->wait_max_ns = c->wait_max_ns;
		if (c->free_at > out->free_at)
			out->free_at = c->free_at;
	}
}

/* A new engine event begins new work at the engine's time. */
static void refresh(sim_host *h)
{
	uint64_t n = sim_engine_events_run(h->eng);
	if (n != h->ev_seen) {
		h->ev_seen = n;
		h->t = sim_now(h->eng);
		h->cur = -1;
	}
}

sim_time host_now(sim_host *h)
{
	if (!h || !h->p.costs)
		return h ? sim_now(h->eng) : 0;
	refresh(h);
	return h->t;
}

void host_wait_until(sim_host *h, sim_time t)
{
	if (!h || !h->p.costs)
		return;
	refresh(h);
	if (t > h->t)
		h->t = t;
}

sim_time host_run(sim_host *h, unsigned cpu, host_cat cat, uint64_t cost_ns)
{
	if (!h || !h->p.costs)
		return h ? sim_now(h->eng) : 0;
	refresh(h);
	cpu %= h->p.cpus;
	host_cpu_stats *c = &h->cpu[cpu];
	/* Handing work to another CPU that sits idle wakes it (its task is asleep); one
	 * still busy picks the work up when it gets to it. */
	if (h->cur >= 0 && (unsigned)h->cur != cpu && c->free_at <= h->t)
		h->t += h->p.wakeup_ns;
	h->cur = (int)cpu;
	sim_time start = c->free_at > h->t ? c->free_at : h->t;
	uint64_t cost = h->p.speed_pct == 100 ? cost_ns : cost_ns * 100u / h->p.speed_pct;
	if (start > h->t) {
		uint64_t w = start - h->t;
		c->queued_items++;
		c->wait_ns += w;
		if (w > c->wait_max_ns)
			c->wait_max_ns = w;
	}
	c->items++;
	c->busy_ns[cat < HOST_NCATS ? cat : HOST_CAT_APP] += cost;
	c->free_at = start + cost;
	h->t = c->free_at;
	return h->t;
}

unsigned host_next_app_cpu(sim_host *h)
{
	if (!h || h->p.cpus <= 1)
		return 0;
	/* applications go to the CPUs other than the interrupts' one, in turn (the way a
	 * benchmark is pinned away from the NIC's interrupt: assumed, docs/hosts.md) */
	unsigned n = h->p.cpus - 1;
	unsigned k = h->next_app++ % n;
	return k >= h->p.irq_cpu % h->p.cpus ? k + 1 : k;
}

bool host_irq_enter(sim_host *h, host_irq *irq, unsigned cpu, sim_time irq_latency, uint64_t irq_cost_ns)
{
	if (!h || !h->p.costs)
		return false;
	refresh(h);
	if (h->t < irq->poll_until) {
		/* the handler is still polling this source: the event joins its run */
		h->cur = (int)(cpu % h->p.cpus);
		return false; /* served after what the poll has in hand: host_run queues it */
	}
	h->t += irq_latency;
	h->cur = (int)(cpu % h->p.cpus);
	host_run(h, cpu, HOST_CAT_IRQ, irq_cost_ns);
	return true;
}

void host_irq_leave(sim_host *h, host_irq *irq)
{
	if (!h || !h->p.costs)
		return;
	if (h->t > irq->poll_until)
		irq->poll_until = h->t;
}
