/* Disturbances and paths of a scenario (swarm_paths.h). */
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "sim/swarm/swarm_paths.h"

typedef struct interval {
	uint64_t from, to;
} interval;

typedef struct resource {
	GArray *iv; /* interval */
	bool open;
	uint64_t open_from;
	bool faulty;    /* its link has loss/dup/reorder/corrupt now */
	sim_ratio f[4]; /* loss, dup, reorder, corrupt */
} resource;

struct swarm_paths {
	const scn_scenario *scn;
	size_t n_res;
	resource *res;
	size_t base_sw, base_wire, base_if;
	size_t *if_base;     /* per stack: its first interface's resource */
	GArray *fault_times; /* uint64_t */
	uint64_t quiet_from;
};

static size_t res_port(const swarm_paths *p, uint32_t a, uint8_t port)
{
	(void)p;
	return (size_t)a * 2 + (port - 1);
}

static void iv_open(swarm_paths *p, size_t r, uint64_t t)
{
	resource *x = &p->res[r];
	if (x->open)
		return;
	x->open = true;
	x->open_from = t;
	g_array_append_val(p->fault_times, t);
}

static void iv_close(swarm_paths *p, size_t r, uint64_t t)
{
	resource *x = &p->res[r];
	if (!x->open)
		return;
	interval v = { x->open_from, t };
	g_array_append_val(x->iv, v);
	x->open = false;
	if (t > p->quiet_from)
		p->quiet_from = t;
}

static void iv_point(swarm_paths *p, size_t r, uint64_t t)
{
	interval v = { t, t };
	g_array_append_val(p->res[r].iv, v);
	if (t > p->quiet_from)
		p->quiet_from = t;
}

static bool ratio_on(sim_ratio r)
{
	return r.num != 0;
}

/* A link's fault ratios changed: open or close its interval; other changes are instants. */
static void apply_link(swarm_paths *p, size_t r, uint64_t t, uint32_t mask, const scn_link_params *l, bool fail_state)
{
	resource *x = &p->res[r];
	if (mask & SCN_SET_LOSS)
		x->f[0] = l->loss;
	if (mask & SCN_SET_DUP)
		x->f[1] = l->dup;
	if (mask & SCN_SET_REORDER)
		x->f[2] = l->reorder;
	if (mask & SCN_SET_CORRUPT)
		x->f[3] = l->corrupt;
	bool faulty = ratio_on(x->f[0]) || ratio_on(x->f[1]) || ratio_on(x->f[2]) || ratio_on(x->f[3]);
	if (mask & (SCN_SET_LATENCY | SCN_SET_BANDWIDTH))
		iv_point(p, r, t);
	if (faulty && !x->faulty)
		iv_open(p, r, t);
	else if (!faulty && x->faulty && !fail_state)
		iv_close(p, r, t);
	x->faulty = faulty;
}

static void set_fail(swarm_paths *p, size_t r, uint64_t t, bool fail)
{
	if (fail)
		iv_open(p, r, t);
	else if (!p->res[r].faulty)
		iv_close(p, r, t);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

swarm_paths *swarm_paths_new(const scn_scenario *scn)
{
	swarm_paths *p = g_new0(swarm_paths, 1);
	p->scn = scn;
	p->base_sw = scn->n_adapters * 2;
	p->base_wire = p->base_sw + scn->n_switches;
	p->base_if = p->base_wire + scn->n_wires;
	p->if_base = g_new0(size_t, scn->n_stacks + 1);
	size_t n = p->base_if;
	for (size_t i = 0; i < scn->n_stacks; i++) {
		p->if_base[i] = n;
		n += scn->stacks[i].n_ifaces;
	}
	p->n_res = n;
	p->res = g_new0(resource, n ? n : 1);
	for (size_t i = 0; i < n; i++)
		p->res[i].iv = g_array_new(FALSE, FALSE, sizeof(interval));
	p->fault_times = g_array_new(FALSE, FALSE, sizeof(uint64_t));
	/* faults the scenario's own attributes give, from the start */
	for (uint32_t a = 0; a < scn->n_adapters; a++)
		for (uint8_t port = 1; port <= scn->adapters[a].n_ports; port++)
			apply_link(p, res_port(p, a, port), 0, SCN_SET_LOSS | SCN_SET_DUP | SCN_SET_REORDER | SCN_SET_CORRUPT,
			           &scn->adapters[a].link, false);
	for (uint32_t w = 0; w < scn->n_wires; w++)
		apply_link(p, p->base_wire + w, 0, SCN_SET_LOSS | SCN_SET_DUP | SCN_SET_REORDER | SCN_SET_CORRUPT,
		           &scn->wires[w].link, false);
	for (uint32_t s = 0; s < scn->n_stacks; s++)
		for (uint32_t k = 0; k < scn->stacks[s].n_ifaces; k++)
			apply_link(p, p->if_base[s] + k, 0, SCN_SET_LOSS | SCN_SET_DUP | SCN_SET_REORDER | SCN_SET_CORRUPT,
			           &scn->stacks[s].ifaces[k].link, false);
	bool *failed = g_new0(bool, n ? n : 1);
	for (size_t i = 0; i < scn->n_events; i++) {
		const scn_event *ev = &scn->events[i];
		if (ev->kind != SCN_EV_FAIL && ev->kind != SCN_EV_RESTORE && ev->kind != SCN_EV_SET)
			continue;
		size_t rs[2];
		size_t nr = 0;
		switch (ev->target_kind) {
		case SCN_TGT_ADAPTER:
			for (uint8_t port = 1; port <= scn->adapters[ev->target].n_ports; port++)
				if (!ev->port || ev->port == port)
					rs[nr++] = res_port(p, ev->target, port);
			break;
		case SCN_TGT_SWITCH:
			rs[nr++] = p->base_sw + ev->target;
			break;
		case SCN_TGT_WIRE:
			rs[nr++] = p->base_wire + ev->target;
			break;
		case SCN_TGT_INTERFACE:
			rs[nr++] = p->if_base[ev->stack] + ev->target;
			break;
		case SCN_TGT_NONE:
		case SCN_TGT_APP:
			break;
		}
		for (size_t k = 0; k < nr; k++) {
			if (ev->kind == SCN_EV_SET) {
				apply_link(p, rs[k], ev->at_ns, ev->set_mask, &ev->set, failed[rs[k]]);
			} else {
				/* a whole adapter and its ports fail separately: a port is down while either is */
				failed[rs[k]] = ev->kind == SCN_EV_FAIL;
				set_fail(p, rs[k], ev->at_ns, ev->kind == SCN_EV_FAIL);
			}
		}
	}
	g_free(failed);
	for (size_t i = 0; i < n; i++)
		if (p->res[i].open) {
			iv_close(p, i, SWARM_FOREVER);
			p->quiet_from = SWARM_FOREVER;
		}
	g_array_sort(p->fault_times, cmp_u64);
	/* each once */
	guint w = 0;
	for (guint i = 0; i < p->fault_times->len; i++) {
		uint64_t t = g_array_index(p->fault_times, uint64_t, i);
		if (!w || g_array_index(p->fault_times, uint64_t, w - 1) != t)
			g_array_index(p->fault_times, uint64_t, w++) = t;
	}
	g_array_set_size(p->fault_times, w);
	return p;
}

void swarm_paths_free(swarm_paths *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_res; i++)
		g_array_free(p->res[i].iv, TRUE);
	g_free(p->res);
	g_free(p->if_base);
	g_array_free(p->fault_times, TRUE);
	g_free(p);
}

size_t swarm_paths_fault_times(const swarm_paths *p, const uint64_t **times)
{
	*times = (const uint64_t *)(void *)p->fault_times->data;
	return p->fault_times->len;
}

uint64_t swarm_paths_quiet_from(const swarm_paths *p)
{
	return p->quiet_from;
}

static bool clear(const swarm_paths *p, size_t r, uint64_t from, uint64_t to)
{
	const GArray *iv = p->res[r].iv;
	for (guint i = 0; i < iv->len; i++) {
		const interval *v = &g_array_index(iv, interval, i);
		if (v->from <= to && from <= v->to)
			return false;
	}
	return true;
}

bool swarm_paths_any_disturbed(const swarm_paths *p, uint64_t from, uint64_t to)
{
	for (size_t r = 0; r < p->n_res; r++)
		if (!clear(p, r, from, to))
			return true;
	return false;
}

/* The switches and trunks between two switches (a tree per segment: BFS finds the one
 * path); false if not connected. Each is checked clear over [from, to]. */
static bool switch_path_clear(const swarm_paths *p, uint32_t x, uint32_t y, uint64_t from, uint64_t to, bool *found)
{
	const scn_scenario *s = p->scn;
	*found = false;
	if (s->switches[x].segment != s->switches[y].segment)
		return false;
	uint32_t *prev_sw = g_new(uint32_t, s->n_switches), *prev_wire = g_new(uint32_t, s->n_switches);
	uint32_t *q = g_new(uint32_t, s->n_switches);
	for (size_t i = 0; i < s->n_switches; i++)
		prev_sw[i] = SCN_NONE;
	size_t qh = 0, qt = 0;
	q[qt++] = x;
	prev_sw[x] = x;
	while (qh < qt && prev_sw[y] == SCN_NONE) {
		uint32_t u = q[qh++];
		for (uint32_t w = 0; w < s->n_wires; w++) {
			uint32_t v = s->wires[w].sw_a == u ? s->wires[w].sw_b : s->wires[w].sw_b == u ? s->wires[w].sw_a
			                                                                              : SCN_NONE;
			if (v != SCN_NONE && prev_sw[v] == SCN_NONE) {
				prev_sw[v] = u;
				prev_wire[v] = w;
				q[qt++] = v;
			}
		}
	}
	bool ok = prev_sw[y] != SCN_NONE;
	*found = ok;
	for (uint32_t v = y; ok; v = prev_sw[v]) {
		ok = clear(p, p->base_sw + v, from, to);
		if (v == x)
			break;
		ok = ok && clear(p, p->base_wire + prev_wire[v], from, to);
	}
	g_free(prev_sw);
	g_free(prev_wire);
	g_free(q);
	return ok;
}

bool swarm_paths_same_segment(const swarm_paths *p, uint32_t a, uint8_t pa, uint32_t b, uint8_t pb)
{
	const scn_scenario *s = p->scn;
	return s->switches[s->adapters[a].port[pa - 1].sw].segment == s->switches[s->adapters[b].port[pb - 1].sw].segment;
}

bool swarm_paths_roce_clear(const swarm_paths *p, uint32_t a, uint8_t pa, uint32_t b, uint8_t pb, uint64_t from,
                            uint64_t to)
{
	const scn_scenario *s = p->scn;
	if (a >= s->n_adapters || b >= s->n_adapters || !pa || !pb || pa > s->adapters[a].n_ports ||
	    pb > s->adapters[b].n_ports)
		return false;
	if (!clear(p, res_port(p, a, pa), from, to) || !clear(p, res_port(p, b, pb), from, to))
		return false;
	bool found;
	return switch_path_clear(p, s->adapters[a].port[pa - 1].sw, s->adapters[b].port[pb - 1].sw, from, to, &found);
}

/* The interface (stack, iface) that owns an address; false if none. */
static bool iface_of(const swarm_paths *p, uint32_t ip, uint32_t *stack, uint32_t *iface)
{
	const scn_scenario *s = p->scn;
	for (uint32_t i = 0; i < s->n_stacks; i++)
		for (uint32_t k = 0; k < s->stacks[i].n_ifaces; k++)
			if (s->stacks[i].ifaces[k].ip == ip) {
				*stack = i;
				*iface = k;
				return true;
			}
	return false;
}

static bool same_subnet(const scn_interface *a, const scn_interface *b)
{
	uint32_t m = a->prefix_len ? ~0u << (32 - a->prefix_len) : 0;
	return a->prefix_len == b->prefix_len && (a->ip & m) == (b->ip & m) && a->vlan == b->vlan;
}

static bool hop_clear(const swarm_paths *p, uint32_t s1, uint32_t i1, uint32_t s2, uint32_t i2, uint64_t from, uint64_t to)
{
	const scn_scenario *s = p->scn;
	bool found;
	return clear(p, p->if_base[s1] + i1, from, to) && clear(p, p->if_base[s2] + i2, from, to) &&
	       switch_path_clear(p, s->stacks[s1].ifaces[i1].sw, s->stacks[s2].ifaces[i2].sw, from, to, &found);
}

bool swarm_paths_tcp_clear(const swarm_paths *p, uint32_t client_ip, uint32_t server_ip, uint64_t from, uint64_t to)
{
	const scn_scenario *s = p->scn;
	uint32_t cs, ci, ss, si;
	if (!iface_of(p, client_ip, &cs, &ci) || !iface_of(p, server_ip, &ss, &si))
		return false;
	const scn_interface *c = &s->stacks[cs].ifaces[ci], *v = &s->stacks[ss].ifaces[si];
	if (same_subnet(c, v))
		return hop_clear(p, cs, ci, ss, si, from, to);
	/* through a forwarding stack with an interface on each subnet */
	for (uint32_t r = 0; r < s->n_stacks; r++) {
		if (!s->stacks[r].forwarding)
			continue;
		uint32_t ra = SCN_NONE, rb = SCN_NONE;
		for (uint32_t k = 0; k < s->stacks[r].n_ifaces; k++) {
			if (same_subnet(&s->stacks[r].ifaces[k], c))
				ra = k;
			if (same_subnet(&s->stacks[r].ifaces[k], v))
				rb = k;
		}
		if (ra != SCN_NONE && rb != SCN_NONE)
			return hop_clear(p, cs, ci, r, ra, from, to) && hop_clear(p, r, rb, ss, si, from, to);
	}
	return false;
}

uint32_t swarm_paths_adapter_by_pfid(const swarm_paths *p, uint32_t pfid)
{
	for (uint32_t a = 0; a < p->scn->n_adapters; a++)
		if (p->scn->adapters[a].pfid == pfid)
			return a;
	return SCN_NONE;
}
