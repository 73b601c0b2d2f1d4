/* The links of a run for the topology picture (topology_run.h). */
#include "sim/observe/topology_run.h"

#include <glib.h>
#include <string.h>

typedef struct link_end {
	uint32_t stack, peer;
	uint32_t adapter;
	uint8_t port;
	uint32_t local_id, remote_id, lgr;
} link_end;

struct topology_run {
	world *w;
	obs_ident *id;
	GArray *ends;  /* link_end, in the order the links became active */
	GArray *links; /* topo_link, made by topology_run_links */
};

static uint32_t adapter_of(const scn_scenario *s, uint16_t pfid)
{
	for (size_t i = 0; i < s->n_adapters; i++)
		if (s->adapters[i].pfid == pfid)
			return (uint32_t)i;
	return SCN_NONE;
}

static void on_core_event(void *ctx, world *w, uint32_t si, const smcr_event *ev)
{
	topology_run *t = ctx;
	if (ev->type != SMCR_EV_LINK_ADDED || !ev->link)
		return;
	obs_link l;
	obs_ident_link_info(t->id, si, ev->link, &l);
	link_end e = { si, l.peer, SCN_NONE, 0, l.local_id, l.remote_id, l.lgr_num };
	smc_layer *layer = world_layer_at(w, si);
	size_t n = layer ? smc_layer_n_ports(layer) : 0;
	for (size_t i = 0; i < n; i++) {
		const smc_layer_port *p = smc_layer_port_get(layer, i);
		if (p->port_index == ev->link->port_index) {
			e.adapter = adapter_of(world_scenario(w), p->pfid);
			e.port = p->port;
		}
	}
	for (guint i = 0; i < t->ends->len; i++) {
		link_end *o = &g_array_index(t->ends, link_end, i);
		if (o->stack == e.stack && o->local_id == e.local_id && o->lgr == e.lgr) {
			*o = e; /* the same link again (re-added): its latest port */
			return;
		}
	}
	g_array_append_val(t->ends, e);
}

topology_run *topology_run_new(world *w, obs_ident *id)
{
	topology_run *t = g_new0(topology_run, 1);
	t->w = w;
	t->id = id;
	t->ends = g_array_new(FALSE, TRUE, sizeof(link_end));
	t->links = g_array_new(FALSE, TRUE, sizeof(topo_link));
	return t;
}

void topology_run_observer(topology_run *t, world_observer *obs)
{
	memset(obs, 0, sizeof(*obs));
	obs->ctx = t;
	obs->core_event = on_core_event;
}

const topo_link *topology_run_links(topology_run *t, size_t *n)
{
	g_array_set_size(t->links, 0);
	for (guint i = 0; i < t->ends->len; i++) {
		const link_end *a = &g_array_index(t->ends, link_end, i);
		for (guint k = i + 1; k < t->ends->len; k++) {
			const link_end *b = &g_array_index(t->ends, link_end, k);
			if (b->stack != a->peer || b->peer != a->stack || b->local_id != a->remote_id || a->local_id != b->remote_id)
				continue;
			topo_link l = { { a->stack, b->stack }, { a->adapter, b->adapter }, { a->port, b->port }, { a->local_id, b->local_id }, a->lgr };
			g_array_append_val(t->links, l);
			break;
		}
	}
	*n = t->links->len;
	return (const topo_link *)(void *)t->links->data;
}

void topology_run_free(topology_run *t)
{
	if (!t)
		return;
	g_array_free(t->ends, TRUE);
	g_array_free(t->links, TRUE);
	g_free(t);
}
