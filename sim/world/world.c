/* The world: building the fabric, adapters, stacks and SMC-R layers of a scenario, and
 * taking them down again. */
#include "sim/world/world_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "model/smcr_err.h"
#include "sim/fabric/endpoint.h"
#include "sim/fabric/frame.h"
#include "sim/net/tcp.h"

void world_opts_default(world_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->style = WORLD_STYLE_SCENARIO;
}

double world_wall_seconds(void)
{
	return (double)sim_realtime_clock_ns() * 1e-9;
}

/* ---- switches and wires ---- */

static void wire_params(sim_wire_params *p, const scn_link_params *l, uint32_t mtu)
{
	sim_wire_params_default(p);
	p->latency = l->latency_ns;
	p->bandwidth_bps = l->bandwidth_bps;
	p->mtu = mtu;
	p->loss = l->loss;
	p->duplicate = l->dup;
	p->reorder = l->reorder;
	p->corrupt = l->corrupt;
}

/* VLANs a port carries: the switch's set, narrowed by a trunk wire's set. Untagged frames
 * belong to VLAN 1 (the default native VLAN of real switches), so a port carries them only
 * when it carries VLAN 1: `vlans=10,20` drops untagged traffic instead of passing it. */
static int port_trunk(sim_switch *sw, uint32_t port, const scn_vlan_set *a, const scn_vlan_set *b)
{
	static uint16_t vids[SIM_VLAN_MAX_VID];
	size_t n = 0;
	bool native = false;
	for (uint16_t v = 1; v <= SIM_VLAN_MAX_VID; v++)
		if (scn_vlan_set_has(a, v) && (!b || scn_vlan_set_has(b, v))) {
			vids[n++] = v;
			native |= v == 1;
		}
	return sim_switch_port_trunk(sw, port, native ? 1 : 0, vids, n);
}

static uint32_t take_port(world *w, uint32_t sw_idx)
{
	return w->sw_used[sw_idx]++;
}

static int plug_to_switch(world *w, sim_wire *wire, uint32_t sw_idx, sim_switch **sw_out, uint32_t *port_out)
{
	uint32_t port = take_port(w, sw_idx);
	sim_switch *sw = w->sw[sw_idx];
	if (port_trunk(sw, port, &w->scn->switches[sw_idx].vlans, NULL))
		return -1;
	if (sim_plug_connect(sim_wire_end(wire, 1), sim_switch_port(sw, port)))
		return -1;
	if (sw_out)
		*sw_out = sw;
	if (port_out)
		*port_out = port;
	return 0;
}

/* A switch's congestion features from the scenario (none without buffer=). */
static int switch_qos(sim_switch *sw, const scn_switch *ss, uint32_t nports, const char *file, char *err, size_t errlen)
{
	const scn_switch_qos *c = &ss->qos;
	if (!c->buffer)
		return 0;
	sim_switch_qos q;
	sim_switch_qos_default(&q);
	q.buffer_bytes = c->buffer;
	q.alpha = c->alpha;
	q.prio_map.trust = c->trust_dscp ? SIM_TRUST_DSCP : SIM_TRUST_PCP;
	q.pfc_mask = c->pfc;
	q.xoff_bytes = c->xoff;
	q.xon_bytes = c->xon;
	q.headroom_bytes = c->headroom;
	q.pause_quanta = c->quanta;
	q.ecn = c->ecn;
	q.kmin_bytes = c->kmin;
	q.kmax_bytes = c->kmax;
	q.pmax = c->pmax;
	if (sim_switch_set_qos(sw, &q)) {
		snprintf(err, errlen,
		         "%s:%u: switch %s: headroom=%" PRIu64 " for %u ports and %d lossless priorities does not fit in "
		         "buffer=%" PRIu64 "; expected a larger buffer or less headroom",
		         file, ss->loc.line, ss->name, c->headroom, nports, __builtin_popcount(c->pfc), c->buffer);
		return -1;
	}
	return 0;
}

static int build_fabric(world *w, char *err, size_t errlen)
{
	const scn_scenario *s = w->scn;
	uint32_t *need = calloc(s->n_switches ? s->n_switches : 1, sizeof(*need));
	for (size_t i = 0; i < s->n_wires; i++) {
		need[s->wires[i].sw_a]++;
		need[s->wires[i].sw_b]++;
	}
	for (size_t i = 0; i < s->n_adapters; i++)
		for (uint8_t p = 0; p < s->adapters[i].n_ports; p++)
			need[s->adapters[i].port[p].sw]++;
	for (size_t i = 0; i < s->n_stacks; i++)
		for (size_t k = 0; k < s->stacks[i].n_ifaces; k++)
			need[s->stacks[i].ifaces[k].sw]++;
	uint32_t spare = UINT32_MAX;
	if (w->o.spare_port_switch) {
		for (size_t i = 0; i < s->n_switches && spare == UINT32_MAX; i++)
			if (!strcmp(s->switches[i].name, w->o.spare_port_switch))
				spare = (uint32_t)i;
		if (spare == UINT32_MAX) {
			snprintf(err, errlen, "%s: no switch %s in the scenario", s->file, w->o.spare_port_switch);
			free(need);
			return -1;
		}
		need[spare]++;
	}
	w->sw = calloc(s->n_switches ? s->n_switches : 1, sizeof(*w->sw));
	w->sw_used = calloc(s->n_switches ? s->n_switches : 1, sizeof(*w->sw_used));
	for (size_t i = 0; i < s->n_switches; i++) {
		sim_switch_params sp;
		sim_switch_params_default(&sp);
		sp.nports = need[i] ? need[i] : 1;
		w->sw[i] = sim_switch_new(w->fab, s->switches[i].name, &sp);
		if (switch_qos(w->sw[i], &s->switches[i], sp.nports, s->file, err, errlen)) {
			free(need);
			return -1;
		}
	}
	free(need);
	if (spare != UINT32_MAX) {
		w->spare_sw = w->sw[spare];
		w->spare_port = take_port(w, spare);
		if (port_trunk(w->spare_sw, w->spare_port, &s->switches[spare].vlans, NULL)) {
			snprintf(err, errlen, "%s: cannot set up a spare port on switch %s", s->file, w->o.spare_port_switch);
			return -1;
		}
	}
	w->trunks = calloc(s->n_wires ? s->n_wires : 1, sizeof(*w->trunks));
	for (size_t i = 0; i < s->n_wires; i++) {
		const scn_wire *sw = &s->wires[i];
		sim_wire_params wp;
		wire_params(&wp, &sw->link, sw->link.mtu);
		sim_wire *wire = w->trunks[i] = sim_wire_new(w->fab, sw->name, &wp);
		uint32_t pa = take_port(w, sw->sw_a), pb = take_port(w, sw->sw_b);
		if (port_trunk(w->sw[sw->sw_a], pa, &s->switches[sw->sw_a].vlans, &sw->vlans) ||
		    port_trunk(w->sw[sw->sw_b], pb, &s->switches[sw->sw_b].vlans, &sw->vlans) ||
		    sim_plug_connect(sim_wire_end(wire, 0), sim_switch_port(w->sw[sw->sw_a], pa)) ||
		    sim_plug_connect(sim_wire_end(wire, 1), sim_switch_port(w->sw[sw->sw_b], pb))) {
			snprintf(err, errlen, "%s:%u: cannot connect wire %s", s->file, sw->loc.line, sw->name);
			return -1;
		}
	}
	return 0;
}

/* ---- adapters ---- */

#define ROCE_HEADROOM 80u /* RoCE headers below the Ethernet MTU (rnic.c picks the IB MTU so) */

static void cc_from_scenario(rnic_config *c, const scn_adapter_cc *sc)
{
	rnic_cc_config *cc = &c->cc;
	cc->dcqcn = sc->dcqcn;
	cc->pcp = sc->pcp;
	cc->dscp = sc->dscp;
	cc->cnp_pcp = sc->cnp_pcp;
	cc->cnp_dscp = sc->cnp_dscp;
	c->tx_window = sc->txwindow_ns;
	if (sc->rx_stall) {
		c->rx_stall_at = sc->rx_stall_ns;
		c->rx_stall_for = sc->rx_stall_for_ns;
	}
	dcqcn_params *p = &cc->dp;
	p->cnp_interval = sc->cnp_interval_ns;
	p->g = sc->g;
	p->alpha_timer = sc->alpha_timer_ns;
	p->rate_timer = sc->rate_timer_ns;
	p->byte_counter = sc->byte_counter;
	p->recovery = sc->recovery;
	p->rai_bps = sc->rai_bps;
	p->rhai_bps = sc->rhai_bps;
	p->min_bps = sc->min_bps;
}

/* A PFC-capable MAC stops a paused priority at the next frame boundary: an adapter whose
 * priority is lossless (PFC enabled for it, as DCBX from its switch sets it) keeps only
 * about a frame queued past that check, 1 us (a 4 KiB frame at 25-40 Gb/s), unless the
 * scenario says otherwise. The priority is the one whose PAUSE it honours (rnic.h). */
#define LOSSLESS_TX_WINDOW SIM_US

static bool adapter_lossless(const scn_scenario *s, const scn_adapter *a, unsigned prio)
{
	for (uint8_t p = 0; p < a->n_ports; p++) {
		const scn_switch_qos *q = &s->switches[a->port[p].sw].qos;
		if (q->buffer && (q->pfc >> prio) & 1u)
			return true;
	}
	return false;
}

static int build_adapters(world *w, char *err, size_t errlen)
{
	const scn_scenario *s = w->scn;
	w->ad = calloc(s->n_adapters ? s->n_adapters : 1, sizeof(*w->ad));
	for (size_t i = 0; i < s->n_adapters; i++) {
		const scn_adapter *a = &s->adapters[i];
		world_adapter *wa = &w->ad[i];
		rnic_config c;
		rnic_config_default(&c, a->name, a->pfid);
		c.nports = a->n_ports;
		c.roce = (uint8_t)((a->roce & SCN_ROCE_V1 ? RNIC_ROCE_V1 : 0) | (a->roce & SCN_ROCE_V2 ? RNIC_ROCE_V2 : 0));
		cc_from_scenario(&c, &a->cc);
		if (!a->cc.txwindow_given && adapter_lossless(s, a, rnic_cc_priority(&c.cc)))
			c.tx_window = LOSSLESS_TX_WINDOW;
		for (uint8_t p = 0; p < a->n_ports; p++) {
			memcpy(c.ports[p].mac, a->port[p].mac, 6);
			snprintf(c.ports[p].pnet_id, sizeof(c.ports[p].pnet_id), "%s", a->port[p].pnetid);
			c.ports[p].eth_mtu = a->mtu + ROCE_HEADROOM;
		}
		wa->r = rnic_new(w->fab, &c);
		if (!wa->r) {
			snprintf(err, errlen, "%s:%u: cannot create adapter %s", s->file, a->loc.line, a->name);
			return -1;
		}
		for (uint8_t p = 0; p < a->n_ports; p++) {
			char name[48];
			snprintf(name, sizeof(name), "%s.p%u", a->name, (unsigned)(p + 1));
			sim_wire_params wp;
			wire_params(&wp, &a->link, a->mtu + ROCE_HEADROOM);
			wa->wire[p] = sim_wire_new(w->fab, name, &wp);
			if (sim_endpoint_attach(rnic_port_endpoint(wa->r, (uint8_t)(p + 1)), sim_wire_end(wa->wire[p], 0)) ||
			    plug_to_switch(w, wa->wire[p], a->port[p].sw, &wa->sw[p], &wa->sw_port[p])) {
				snprintf(err, errlen, "%s:%u: cannot plug adapter %s in", s->file, a->loc.line, a->name);
				return -1;
			}
		}
	}
	return 0;
}

/* ---- stacks ---- */

static void smcr_from_scenario(stack_config *cfg, const scn_stack *ss)
{
	smcr_config *c = &cfg->smcr;
	c->enabled = ss->smcr.enable;
	c->mtu = (uint16_t)ss->smcr.mtu;
	c->fixed_memory = ss->smcr.fixedmemory;
	c->v2 = ss->smcr.v2;
	for (uint8_t i = 0; i < ss->smcr.n_ueids; i++)
		smcr_config_add_ueid(c, ss->smcr.ueids[i]);
	for (size_t i = 0; i < ss->n_smcr_ports; i++)
		smcr_config_add_pfid(c, ss->smcr_ports[i].pfid, ss->smcr_ports[i].port, (uint16_t)ss->smcr_ports[i].mtu);
	c->limit_hs = ss->smcr.limiths;
	if (ss->smcr.keepalive_ns) {
		c->tcp_keepalive_interval = ss->smcr.keepalive_ns;
		cfg->tcp.keepalive_idle = ss->smcr.keepalive_ns;
	}
	cfg->ip.forwarding = ss->forwarding;
}

static void layer_config(smc_layer_config *lc, const scn_stack *ss)
{
	smc_layer_config_default(lc);
	lc->core.rmb_size = (uint32_t)ss->smcr.rmbsize;
	lc->core.sndbuf_size = (uint32_t)ss->smcr.sndbufsize;
	lc->core.testlink_time = ss->smcr.testlink_ns;
	lc->core.max_links = ss->smcr.maxlinks;
	lc->core.max_conns = ss->smcr.maxconns;
	lc->core.release = ss->smcr.release;
	lc->core.feature_mask = ss->smcr.feature_mask;
	lc->core.rmbe_max_code = ss->smcr.rmbe_max_code;
	lc->core.autocorking_size = (uint32_t)ss->smcr.autocork;
	lc->hs_queue = ss->smcr.hsqueue;
	memset(lc->core.hostname, ' ', sizeof(lc->core.hostname));
	size_t n = strlen(ss->hostname);
	memcpy(lc->core.hostname, ss->hostname, n < sizeof(lc->core.hostname) ? n : sizeof(lc->core.hostname));
}

static int build_stacks(world *w, char *err, size_t errlen)
{
	const scn_scenario *s = w->scn;
	w->st = calloc(s->n_stacks ? s->n_stacks : 1, sizeof(*w->st));
	rnic **adapters = calloc(s->n_adapters ? s->n_adapters : 1, sizeof(*adapters));
	for (size_t i = 0; i < s->n_adapters; i++)
		adapters[i] = w->ad[i].r;
	int rc = 0;
	for (size_t i = 0; i < s->n_stacks && !rc; i++) {
		const scn_stack *ss = &s->stacks[i];
		world_host *ws = &w->st[i];
		ws->report_id = (uint32_t)i + 1;
		stack_personality p = ss->personality == SCN_PERS_ZOS ? STACK_ZOS : STACK_LINUX;
		stack_config cfg;
		stack_config_defaults(&cfg, p);
		smcr_from_scenario(&cfg, ss);
		if (ss->tcp_sndbuf)
			cfg.tcp.sndbuf = (uint32_t)ss->tcp_sndbuf;
		if (ss->tcp_rcvbuf)
			cfg.tcp.rcvbuf = (uint32_t)ss->tcp_rcvbuf;
		ws->st = stack_new(w->eng, ss->name, p, &cfg);
		if (!ws->st) {
			snprintf(err, errlen, "%s:%u: cannot create stack %s", s->file, ss->loc.line, ss->name);
			rc = -1;
			break;
		}
		/* real devices run on real hosts: their CPUs are not simulated */
		if (!w->o.real_hw)
			stack_set_host(ws->st, &ss->host);
		ws->ifs = calloc(ss->n_ifaces ? ss->n_ifaces : 1, sizeof(*ws->ifs));
		ws->n_ifs = ss->n_ifaces;
		for (size_t k = 0; k < ss->n_ifaces && !rc; k++) {
			const scn_interface *si = &ss->ifaces[k];
			world_iface *wi = &ws->ifs[k];
			wi->nif = stack_add_netif(ws->st, si->name, si->mac, (uint16_t)si->link.mtu, si->vlan);
			char name[72];
			snprintf(name, sizeof(name), "%s.%s", ss->name, si->name);
			sim_wire_params wp;
			wire_params(&wp, &si->link, si->link.mtu);
			wi->wire = sim_wire_new(w->fab, name, &wp);
			if (!wi->nif || netif_set_ipv4(wi->nif, si->ip, si->prefix_len) ||
			    netif_fabric_attach(&wi->port, wi->nif, w->fab, sim_wire_end(wi->wire, 0)) ||
			    plug_to_switch(w, wi->wire, si->sw, &wi->sw, &wi->sw_port)) {
				snprintf(err, errlen, "%s:%u: cannot set up interface %s", s->file, si->loc.line, name);
				rc = -1;
			}
		}
		for (size_t k = 0; k < ss->n_routes && !rc; k++) {
			const scn_route *r = &ss->routes[k];
			if (stack_add_route(ws->st, r->dest, r->prefix_len, r->via)) {
				snprintf(err, errlen, "%s:%u: cannot add the route", s->file, r->loc.line);
				rc = -1;
			}
		}
		if (rc || !ss->smcr.enable)
			continue;
		smc_layer_config lc;
		layer_config(&lc, ss);
		lc.real_hw = w->o.real_hw != NULL;
		ws->l = smc_layer_new(ws->st, &lc);
		if (!ws->l) {
			snprintf(err, errlen, "%s:%u: cannot create the SMC-R layer of %s", s->file, ss->loc.line, ss->name);
			rc = -1;
			break;
		}
		smc_layer_set_event_fn(ws->l, world_on_layer_event, w);
		world_obs_attach(w, ws);
		smc_layer_set_port_fn(ws->l, world_on_port_event, w);
		for (size_t k = 0; k < ss->n_ifaces; k++)
			smc_layer_set_pnet(ws->l, ws->ifs[k].nif, ss->ifaces[k].pnetid);
		/* an adapter port shares its network with the interfaces on its switch */
		for (size_t k = 0; k < ss->n_smcr_ports && !rc; k++) {
			const scn_smcr_port *sp = &ss->smcr_ports[k];
			if (sp->adapter >= s->n_adapters || sp->port < 1 || sp->port > s->adapters[sp->adapter].n_ports)
				continue;
			uint32_t sw = s->adapters[sp->adapter].port[sp->port - 1].sw;
			for (size_t j = 0; j < ss->n_ifaces && !rc; j++)
				if (ss->ifaces[j].sw == sw && smc_layer_associate(ws->l, sp->pfid, sp->port, ws->ifs[j].nif)) {
					snprintf(err, errlen, "%s:%u: too many interfaces share the adapter ports of %s", s->file,
					         sp->loc.line, ss->name);
					rc = -1;
				}
		}
		if (rc)
			break;
		if (w->o.real_hw) {
			if (smc_layer_activate_real(ws->l, w->real.port, w->real.n, err, errlen) < 0)
				rc = -1;
			continue;
		}
		int n = smc_layer_activate(ws->l, adapters, s->n_adapters);
		if (n < 0) {
			snprintf(err, errlen, "%s:%u: stack %s cannot activate its RoCE ports: %s", s->file, ss->smcr.loc.line,
			         ss->name, smcr_strerror(n));
			rc = -1;
		}
	}
	free(adapters);
	return rc;
}

/* ---- real devices (--real-hw) ---- */

/* Every mapped PFID/port must be an adapter port of the scenario; the map takes its PNet
 * id and MTU. Timeline changes of an adapter's simulated wire have no meaning on a real
 * device and are refused. */
static int real_check(world *w, char *err, size_t errlen)
{
	const scn_scenario *s = w->scn;
	w->real = *w->o.real_hw;
	for (size_t i = 0; i < w->real.n; i++) {
		smc_real_port *p = &w->real.port[i];
		const scn_adapter *a = NULL;
		for (size_t k = 0; k < s->n_adapters && !a; k++)
			if (s->adapters[k].pfid == p->pfid)
				a = &s->adapters[k];
		if (!a || p->port > a->n_ports) {
			char have[256] = "";
			size_t off = 0;
			for (size_t k = 0; k < s->n_adapters && off + 24 < sizeof(have); k++)
				off += (size_t)snprintf(have + off, sizeof(have) - off, "%s%s %04X", k ? ", " : "",
				                        s->adapters[k].name, (unsigned)s->adapters[k].pfid);
			if (a)
				snprintf(err, errlen, "--real-hw maps PFID %04X port %u, but adapter %s has %u port(s)",
				         (unsigned)p->pfid, (unsigned)p->port, a->name, (unsigned)a->n_ports);
			else
				snprintf(err, errlen, "--real-hw maps PFID %04X, which is no adapter of %s (adapters: %s)",
				         (unsigned)p->pfid, s->file, off ? have : "none");
			return -1;
		}
		snprintf(p->pnet_id, sizeof(p->pnet_id), "%s", a->port[p->port - 1].pnetid);
		p->mtu = a->mtu;
	}
	for (size_t i = 0; i < s->n_stacks; i++) {
		const scn_stack *ss = &s->stacks[i];
		for (size_t k = 0; ss->smcr.enable && k < ss->n_smcr_ports; k++) {
			bool mapped = false;
			for (size_t m = 0; m < w->real.n; m++)
				mapped |= w->real.port[m].pfid == ss->smcr_ports[k].pfid && w->real.port[m].port == ss->smcr_ports[k].port;
			if (!mapped) {
				snprintf(err, errlen,
				         "%s:%u: stack %s activates PFID %04X port %u, which --real-hw does not map to a device "
				         "(add %04X%s=DEV[:PORT])",
				         s->file, ss->smcr_ports[k].loc.line, ss->name, (unsigned)ss->smcr_ports[k].pfid,
				         (unsigned)ss->smcr_ports[k].port, (unsigned)ss->smcr_ports[k].pfid,
				         ss->smcr_ports[k].port == 2 ? "/2" : "");
				return -1;
			}
		}
	}
	for (size_t i = 0; i < s->n_events; i++) {
		const scn_event *ev = &s->events[i];
		if (ev->kind == SCN_EV_SET && ev->target_kind == SCN_TGT_ADAPTER) {
			snprintf(err, errlen,
			         "%s:%u: 'set adapter %s' changes a simulated access wire; with --real-hw the adapter is a "
			         "real device (supported for adapters: fail and restore)",
			         s->file, ev->loc.line, s->adapters[ev->target].name);
			return -1;
		}
	}
	return 0;
}

static void real_start(world *w)
{
	w->rt = sim_realtime_new(w->eng);
	for (size_t i = 0; i < w->scn->n_stacks; i++)
		if (w->st[i].l)
			smc_layer_real_watch(w->st[i].l, w->rt);
}

/* ---- the world ---- */

world *world_new(const scn_scenario *scn, const world_opts *o, char *err, size_t errlen)
{
	world *w = calloc(1, sizeof(*w));
	if (!w) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	w->scn = scn;
	if (o)
		w->o = *o;
	else
		world_opts_default(&w->o);
	w->out = w->o.out ? w->o.out : stdout;
	w->seed = w->o.has_seed ? w->o.seed : scn->seed;
	w->end_ns = w->o.has_end ? w->o.end_ns : scn->end_ns;
	w->has_end = w->o.has_end || scn->has_end;
	w->eng = sim_engine_new(w->seed);
	w->fab = sim_fabric_new(w->eng);
	if (w->o.event_hops)
		sim_fabric_set_event_hops(w->fab, true);
	w->flow_by_key = g_hash_table_new(g_int64_hash, g_int64_equal);
	if ((w->o.real_hw && real_check(w, err, errlen)) || build_fabric(w, err, errlen) ||
	    build_adapters(w, err, errlen) || build_stacks(w, err, errlen) || world_capture_open(w, err, errlen)) {
		world_free(w);
		return NULL;
	}
	if (w->o.real_hw)
		real_start(w);
	world_apps_init(w);
	return w;
}

int world_free(world *w)
{
	if (!w)
		return 0;
	const scn_scenario *s = w->scn;
	world_apps_free(w);
	if (w->st) {
		for (size_t i = 0; i < s->n_stacks; i++)
			smc_layer_free(w->st[i].l);
		for (size_t i = 0; i < s->n_stacks; i++) {
			world_host *ws = &w->st[i];
			for (size_t k = 0; k < ws->n_ifs; k++)
				if (ws->ifs[k].nif)
					netif_fabric_detach(&ws->ifs[k].port);
			stack_free(ws->st);
			free(ws->ifs);
			free(ws->lgrs_seen);
		}
	}
	if (w->ad)
		for (size_t i = 0; i < s->n_adapters; i++)
			rnic_free(w->ad[i].r);
	sim_realtime_free(w->rt); /* after the layers: they end their watches */
	sim_fabric_free(w->fab);
	sim_engine_free(w->eng);
	int rc = 0;
	if (world_capture_close(w)) {
		fprintf(stderr, "smcr-sim: writing a capture failed (disk full?)\n");
		rc = -1;
	}
	g_hash_table_destroy(w->flow_by_key);
	if (w->failures) {
		g_array_free(w->failures, TRUE);
		g_string_chunk_free(w->failure_text);
	}
	free(w->sw);
	free(w->sw_used);
	free(w->trunks);
	free(w->ad);
	free(w->st);
	free(w->events);
	free(w);
	return rc;
}

sim_engine *world_engine(const world *w) { return w->eng; }
sim_fabric *world_fabric(const world *w) { return w->fab; }
rnic *world_rnic(const world *w, uint32_t index) { return index < w->scn->n_adapters ? w->ad[index].r : NULL; }
uint64_t world_end_time(const world *w) { return w->has_end ? w->end_ns : 0; }
const scn_scenario *world_scenario(const world *w) { return w->scn; }
sim_plug *world_spare_port(const world *w) { return w->spare_sw ? sim_switch_port(w->spare_sw, w->spare_port) : NULL; }
uint64_t world_fingerprint(const world *w) { return sim_engine_fingerprint(w->eng); }
uint64_t world_events(const world *w) { return sim_engine_events_run(w->eng); }

stack *world_stack(const world *w, const char *name)
{
	uint32_t i = scn_find_stack(w->scn, name);
	return i == SCN_NONE ? NULL : w->st[i].st;
}

smc_layer *world_layer(const world *w, const char *name)
{
	uint32_t i = scn_find_stack(w->scn, name);
	return i == SCN_NONE ? NULL : w->st[i].l;
}

world_host *world_stack_of_layer(world *w, const smc_layer *l)
{
	for (size_t i = 0; i < w->scn->n_stacks; i++)
		if (w->st[i].l == l)
			return &w->st[i];
	return NULL;
}

typedef struct live_conns {
	world_live *out;
	const char *stack;
} live_conns;

static void count_conn_left(void *arg, const smc_layer_conn *c)
{
	live_conns *lc = arg;
	if (!lc->out->smc_conns++)
		snprintf(lc->out->first_conn, sizeof(lc->out->first_conn),
		         "%s %u.%u.%u.%u:%u -> %u.%u.%u.%u:%u, %s, %s%s, core state %d", lc->stack, c->local_ip >> 24,
		         (c->local_ip >> 16) & 255, (c->local_ip >> 8) & 255, c->local_ip & 255, c->local_port, c->peer_ip >> 24,
		         (c->peer_ip >> 16) & 255, (c->peer_ip >> 8) & 255, c->peer_ip & 255, c->peer_port,
		         c->server ? "server" : "client", sock_mode_name(c->mode), c->handshake ? " in the handshake" : "",
		         c->has_core ? (int)c->core_info.state : -1);
}

static void count_lgr_any(void *arg, const smcr_lgr_info *li)
{
	(void)li;
	(*(size_t *)arg)++;
}

static void count_link_any(void *arg, const smcr_link_info *li)
{
	(void)li;
	(*(size_t *)arg)++;
}

void world_live_count(const world *w, world_live *out)
{
	memset(out, 0, sizeof(*out));
	out->pending_events = sim_engine_pending(w->eng);
	out->frames = sim_frame_pool_in_use(sim_fabric_frames(w->fab));
	for (size_t i = 0; w->ad && i < w->scn->n_adapters; i++) {
		size_t q, m;
		rnic_live_objects(w->ad[i].r, &q, &m);
		out->qps += q;
		out->mrs += m;
	}
	for (size_t i = 0; i < w->scn->n_stacks; i++) {
		out->tcp_pcbs += tcp_pcb_count(w->st[i].st);
		if (w->st[i].l) {
			live_conns lc = { out, w->scn->stacks[i].name };
			smc_layer_foreach_conn(w->st[i].l, count_conn_left, &lc);
			smcr_ctx_foreach_lgr(smc_layer_ctx(w->st[i].l), count_lgr_any, &out->lgrs);
			smcr_ctx_foreach_link(smc_layer_ctx(w->st[i].l), count_link_any, &out->links);
		}
	}
	for (size_t i = 0; i < w->scn->n_apps; i++) {
		const scn_app *a = &w->scn->apps[i];
		bool on = a->role == SCN_ROLE_LISTEN && w->apps[i].listener != NULL;
		out->listeners += on;
	}
}
