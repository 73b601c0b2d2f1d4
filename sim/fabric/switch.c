/* Switches: classification, learning, forwarding, flooding, tagging. */
#include "sim/fabric/switch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/smcr_err.h"
#include "sim/engine/oom.h"
#include "sim/fabric/eth_header.h"
#include "sim/fabric/fdb.h"
#include "sim/fabric/hop_int.h"
#include "sim/fabric/switch_int.h"
#include "sim/fabric/wire.h"

void sim_switch_params_default(sim_switch_params *p)
{
	p->nports = 16;
	p->latency = 500;
	p->mac_aging = 300 * SIM_S;
	p->mac_capacity = 65536; /* a data-centre leaf's table: a 10,000-stack segment (20,000 MACs) is learned, not flooded */
}

static sim_time now_of(const sim_switch *sw) { return sim_now(sim_fabric_engine(sw->fab)); }

static bool vlan_member(const sw_port *p, uint16_t vid)
{
	if (p->mode == SIM_PORT_ACCESS)
		return p->pvid == vid;
	return p->pvid == vid || (p->allowed[vid >> 3] & (1u << (vid & 7))) != 0;
}

static bool port_usable(const sw_port *p) { return sim_plug_carrier(&p->plug); }

static void egress(sim_switch *sw, sw_port *in, sw_port *out, sim_frame *f, uint16_t vid, uint16_t pcp_dei,
                   unsigned prio, sim_time at)
{
	if (out->mode == SIM_PORT_TRUNK && vid != out->pvid)
		sim_vlan_insert(f, (uint16_t)(pcp_dei | vid));
	out->st.tx_frames++;
	if (sw->qos)
		sim_switch_qos_enqueue(sw, in, out, f, prio, at + sw->p.latency);
	else
		sim_plug_send(&out->plug, f, at + sw->p.latency);
}

/* A flood sends into every port's wire, each a few cache misses (the port, then the wire
 * direction behind it, then its FIFO slot) on memory the previous one points to: the
 * ports a few places ahead are asked for in stages, so the misses of many ports overlap. */
#define FLOOD_AHEAD 16
static inline void flood_prefetch(const sim_switch *sw, uint32_t i)
{
	if (i + FLOOD_AHEAD < sw->p.nports) {
		const sw_port *p = &sw->ports[i + FLOOD_AHEAD];
		sim_plug_prefetch(&p->plug);
		__builtin_prefetch(&p->mode);
		__builtin_prefetch(&p->st.tx_frames);
	}
	const sw_port *p;
	if (i + FLOOD_AHEAD / 2 < sw->p.nports && (p = &sw->ports[i + FLOOD_AHEAD / 2])->peer_wire)
		sim_wire_end_prefetch(p->plug.peer, 0);
	if (i + FLOOD_AHEAD / 4 < sw->p.nports && (p = &sw->ports[i + FLOOD_AHEAD / 4])->peer_wire)
		sim_wire_end_prefetch(p->plug.peer, 1);
}

static void port_receive(sim_plug *self, sim_frame *f, sim_time at)
{
	sw_port *in = self->owner;
	sim_switch *sw = in->sw;
	if (sw->failed || !in->admin_up) {
		sw->st.dropped_failed++;
		sim_frame_free(f);
		return;
	}
	in->st.rx_frames++;
	sim_eth_hdr eh;
	if (!sim_eth_parse(f->data, f->len, &eh)) {
		in->st.runts++;
		sim_frame_free(f);
		return;
	}
	/* MAC control (PAUSE, PFC) ends at the MAC: a bridge never forwards it */
	if (eh.ethertype == SIM_ETHERTYPE_MAC_CONTROL) {
		if (sw->qos)
			sim_switch_qos_mac_control(sw, in, f, at);
		else
			sim_frame_free(f);
		return;
	}
	/* classified before the tag goes: PCP, or DSCP, as the switch trusts */
	unsigned prio = sw->qos ? sim_frame_priority(&sw->qos->prio_map, f->data, f->len) : 0;
	/* classify */
	uint16_t vid, pcp_dei = 0;
	if (eh.tagged) {
		vid = eh.tci & SIM_VLAN_VID_MASK;
		pcp_dei = eh.tci & 0xF000u;
		if (vid == 0) /* priority tag only */
			vid = in->pvid;
		if (vid == 0 || vid > SIM_VLAN_MAX_VID || !vlan_member(in, vid)) {
			in->st.vlan_drops++;
			sim_frame_free(f);
			return;
		}
		sim_vlan_strip(f);
	} else {
		vid = in->pvid;
		if (vid == 0) {
			in->st.vlan_drops++;
			sim_frame_free(f);
			return;
		}
	}
	const uint8_t *dst = f->data, *src = f->data + 6;
	uint64_t moves = sw->fdb.moves;
	if (!sim_mac_is_multicast(src) && !sim_fdb_learn(&sw->fdb, vid, src, in->idx, at, now_of(sw)))
		sw->st.learn_full++;
	if (__builtin_expect(sw->fdb.moves != moves, 0))
		sim_hops_abort(sim_fabric_hops(sw->fab), sw); /* a station moved: crossings made early go again */

	if (!sim_mac_is_multicast(dst)) {
		int port = sim_switch_lookup(sw, vid, dst);
		if (port >= 0) {
			sw_port *out = &sw->ports[port];
			if (out == in) {
				sw->st.filtered++;
				sim_frame_free(f);
				return;
			}
			sw->st.forwarded++;
			egress(sw, in, out, f, vid, pcp_dei, prio, at);
			return;
		}
	}
	/* flood: a copy to every member port but the last, which gets the original */
	sw->st.floods++;
	sw_port *last = NULL;
	for (uint32_t i = 0; i < sw->p.nports; i++) {
		sw_port *out = &sw->ports[i];
		flood_prefetch(sw, i);
		if (out == in || !vlan_member(out, vid) || !port_usable(out))
			continue;
		if (last) {
			last->st.flooded++;
			egress(sw, in, last, sim_frame_clone(f), vid, pcp_dei, prio, at);
		}
		last = out;
	}
	if (last) {
		last->st.flooded++;
		egress(sw, in, last, f, vid, pcp_dei, prio, at);
	} else {
		sim_frame_free(f);
	}
}

/* --- event-free hops (sim/fabric/hop_int.h) --------------------------------------------- */

/* The table entries for the frame's source and destination, through the port's memo. */
static bool hop_entries(sw_port *in, const uint8_t *macs, uint16_t vid, sim_fdb_entry **src, sim_fdb_entry **dst)
{
	sim_fdb *t = &in->sw->fdb;
	if (in->hop_memo.gen == t->gen && in->hop_memo.dst && !memcmp(in->hop_memo.macs, macs, 12)) {
		*src = in->hop_memo.src;
		*dst = in->hop_memo.dst;
		return true;
	}
	*src = sim_mac_is_multicast(macs + 6) ? NULL : sim_fdb_entry_of(t, vid, macs + 6);
	*dst = sim_fdb_entry_of(t, vid, macs);
	if (!*dst || (!*src && !sim_mac_is_multicast(macs + 6)))
		return false;
	in->hop_memo.gen = t->gen;
	memcpy(in->hop_memo.macs, macs, 12);
	in->hop_memo.src = *src;
	in->hop_memo.dst = *dst;
	return true;
}

bool sim_switch_hop_decide(const sim_plug *port, const sim_frame *f, sim_time at, hop_fwd *fwd)
{
	sw_port *in = port->owner;
	sim_switch *sw = in->sw;
	if (sw->failed || !in->admin_up || sw->qos || f->len < SIM_ETH_HLEN)
		return false;
	const uint8_t *dst = f->data;
	uint16_t type = (uint16_t)(f->data[12] << 8 | f->data[13]);
	/* an untagged unicast frame of the port's VLAN (a tag is rewritten, MAC control ends here) */
	if (sim_mac_is_multicast(dst) || type == SIM_ETHERTYPE_VLAN || type == SIM_ETHERTYPE_MAC_CONTROL || !in->pvid)
		return false;
	uint16_t vid = in->pvid;
	sim_fdb_entry *se, *de;
	if (!hop_entries(in, dst, vid, &se, &de))
		return false;
	/* learning the source must only refresh an entry of this port still fresh at `at`; the
	 * destination is learned on another port, fresh at `at` */
	if ((se && (se->port != in->idx || sim_fdb_aged(&sw->fdb, se, at))) || sim_fdb_aged(&sw->fdb, de, at) ||
	    de->port == in->idx)
		return false;
	const sw_port *out = &sw->ports[de->port];
	if (out->mode == SIM_PORT_TRUNK && vid != out->pvid)
		return false;
	*fwd = (hop_fwd){ .sw = sw, .in = in->idx, .out = de->port, .vid = vid, .src = se, .egress = &sw->ports[de->port].plug };
	if (se)
		fwd->seen_was = se->seen;
	return true;
}

sim_time sim_switch_hop_latency(const hop_fwd *fwd) { return fwd->sw->p.latency; }

void sim_switch_hop_apply(hop_fwd *fwd, const sim_frame *f, sim_time at)
{
	(void)f;
	sim_switch *sw = fwd->sw;
	sw->ports[fwd->in].st.rx_frames++;
	if (fwd->src)
		fwd->src->seen = at; /* sim_fdb_learn of an entry on its own port: a refresh */
	sw->st.forwarded++;
	sw->ports[fwd->out].st.tx_frames++;
}

void sim_switch_hop_undo(const hop_fwd *fwd, const sim_frame *f, sim_time at)
{
	sim_switch *sw = fwd->sw;
	sw->ports[fwd->in].st.rx_frames--;
	if (fwd->src)
		sim_fdb_unrefresh(&sw->fdb, fwd->vid, f->data + 6, fwd->in, at, fwd->seen_was);
	sw->st.forwarded--;
	sw->ports[fwd->out].st.tx_frames--;
}

static void port_carrier_changed(sim_plug *self)
{
	sw_port *p = self->owner;
	p->peer_wire = self->peer && self->peer->kind == SIM_PLUG_WIRE_END;
	/* a link that went away takes its learned stations with it */
	if (!sim_plug_carrier(self)) {
		sim_hops_abort(sim_fabric_hops(p->sw->fab), p->sw);
		sim_fdb_flush_port(&p->sw->fdb, p->idx);
	}
}

static void switch_free(void *obj)
{
	sim_switch *sw = obj;
	sim_switch_qos_free(sw);
	free(sw->ports);
	sim_fdb_destroy(&sw->fdb);
	free(sw);
}

sim_switch *sim_switch_new(sim_fabric *fab, const char *name, const sim_switch_params *params)
{
	sim_switch_params def;
	if (!params) {
		sim_switch_params_default(&def);
		params = &def;
	}
	sim_switch *sw = sim_xcalloc(1, sizeof(*sw), "a switch");
	sw->fab = fab;
	sw->id = sim_fabric_new_id(fab);
	snprintf(sw->name, sizeof(sw->name), "%s", name);
	sw->p = *params;
	if (sw->p.nports == 0)
		sw->p.nports = 1;
	if (sw->p.mac_capacity == 0)
		sw->p.mac_capacity = 1;
	sim_fdb_init(&sw->fdb, sw->p.mac_capacity, sw->p.mac_aging, sw->p.nports);
	sw->ports = sim_xcalloc(sw->p.nports, sizeof(*sw->ports), "a switch's ports");
	for (uint32_t i = 0; i < sw->p.nports; i++) {
		sw_port *p = &sw->ports[i];
		char n[48];
		snprintf(n, sizeof(n), "%.32s.p%u", sw->name, i);
		sim_plug_init(&p->plug, fab, SIM_PLUG_SWITCH_PORT, n, p, port_receive, port_carrier_changed);
		p->sw = sw;
		p->idx = i;
		p->admin_up = true;
		p->mode = SIM_PORT_ACCESS;
		p->pvid = 1;
	}
	sim_fabric_adopt(fab, sw, switch_free);
	return sw;
}

const char *sim_switch_name(const sim_switch *sw) { return sw->name; }

sim_plug *sim_switch_port(sim_switch *sw, uint32_t port)
{
	return port < sw->p.nports ? &sw->ports[port].plug : NULL;
}

int sim_switch_port_access(sim_switch *sw, uint32_t port, uint16_t pvid)
{
	if (port >= sw->p.nports || pvid == 0 || pvid > SIM_VLAN_MAX_VID)
		return SMCR_ERR_INVAL;
	sim_hops_abort(sim_fabric_hops(sw->fab), sw);
	sw_port *p = &sw->ports[port];
	p->mode = SIM_PORT_ACCESS;
	p->pvid = pvid;
	memset(p->allowed, 0, sizeof(p->allowed));
	sim_fdb_flush_port(&sw->fdb, port);
	return SMCR_ERR_OK;
}

int sim_switch_port_trunk(sim_switch *sw, uint32_t port, uint16_t native_vid, const uint16_t *allowed,
                          size_t n_allowed)
{
	if (port >= sw->p.nports || native_vid > SIM_VLAN_MAX_VID)
		return SMCR_ERR_INVAL;
	for (size_t i = 0; i < n_allowed; i++)
		if (allowed[i] == 0 || allowed[i] > SIM_VLAN_MAX_VID)
			return SMCR_ERR_INVAL;
	sim_hops_abort(sim_fabric_hops(sw->fab), sw);
	sw_port *p = &sw->ports[port];
	p->mode = SIM_PORT_TRUNK;
	p->pvid = native_vid;
	memset(p->allowed, 0, sizeof(p->allowed));
	for (size_t i = 0; i < n_allowed; i++)
		p->allowed[allowed[i] >> 3] |= (uint8_t)(1u << (allowed[i] & 7));
	sim_fdb_flush_port(&sw->fdb, port);
	return SMCR_ERR_OK;
}

static void port_apply(sim_switch *sw, sw_port *p) { sim_plug_set_up(&p->plug, p->admin_up && !sw->failed); }

void sim_switch_port_set_up(sim_switch *sw, uint32_t port, bool up)
{
	if (port >= sw->p.nports)
		return;
	sim_hops_abort(sim_fabric_hops(sw->fab), sw);
	sw->ports[port].admin_up = up;
	port_apply(sw, &sw->ports[port]);
}

void sim_switch_fail(sim_switch *sw)
{
	if (sw->failed)
		return;
	sim_hops_abort(sim_fabric_hops(sw->fab), sw);
	sw->failed = true;
	for (uint32_t i = 0; i < sw->p.nports; i++)
		port_apply(sw, &sw->ports[i]);
	sim_fdb_flush(&sw->fdb); /* a failed switch forgets what it learned */
}

void sim_switch_restore(sim_switch *sw)
{
	if (!sw->failed)
		return;
	sim_hops_abort(sim_fabric_hops(sw->fab), sw);
	sw->failed = false;
	for (uint32_t i = 0; i < sw->p.nports; i++)
		port_apply(sw, &sw->ports[i]);
}

int sim_switch_lookup(const sim_switch *sw, uint16_t vid, const uint8_t *mac)
{
	return sim_fdb_lookup(&sw->fdb, vid, mac, now_of(sw));
}

size_t sim_switch_mac_count(const sim_switch *sw) { return sim_fdb_count(&sw->fdb); }
const sim_switch_stats *sim_switch_stats_get(const sim_switch *sw) { return &sw->st; }

const sim_switch_port_stats *sim_switch_port_stats_get(const sim_switch *sw, uint32_t port)
{
	return port < sw->p.nports ? &sw->ports[port].st : NULL;
}
