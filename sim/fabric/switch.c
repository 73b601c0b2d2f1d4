/* Switches: classification, learning, forwarding, flooding, tagging. */
#include "sim/fabric/switch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/smcr_err.h"
#include "sim/fabric/eth_header.h"

typedef struct sw_port {
	sim_plug plug;
	sim_switch *sw;
	uint32_t idx;
	bool admin_up;
	sim_port_mode mode;
	uint16_t pvid;          /* access VLAN, or trunk native VLAN (0 = none) */
	uint8_t allowed[512];   /* trunk: bit v set = VLAN v allowed */
	sim_switch_port_stats st;
} sw_port;

/* Open-addressing MAC table; key = vid << 48 | mac, 0 = empty slot. */
typedef struct mac_entry {
	uint64_t key;
	sim_time seen;
	uint32_t port;
} mac_entry;

struct sim_switch {
	sim_fabric *fab;
	uint64_t id;
	char name[48];
	sim_switch_params p;
	bool failed;
	sw_port *ports;
	mac_entry *table;
	size_t table_cap;  /* power of two, >= 2 * mac_capacity */
	size_t table_used;
	sim_switch_stats st;
};

void sim_switch_params_default(sim_switch_params *p)
{
	p->nports = 16;
	p->latency = 500;
	p->mac_aging = 300 * SIM_S;
	p->mac_capacity = 8192;
}

#define ALL_PORTS UINT32_MAX       /* table_rebuild(): drop every entry */
#define NO_PORT (UINT32_MAX - 1)   /* table_rebuild(): drop no port's entries */

static void table_rebuild(sim_switch *sw, uint32_t port, bool expire);

static inline uint64_t mac_table_key(uint16_t vid, const uint8_t *mac)
{
	/* the VID is stored +1 so that no valid key is 0 */
	return ((uint64_t)(vid + 1u) << 48) | sim_mac_key(mac);
}

static inline size_t slot_of(const sim_switch *sw, uint64_t key)
{
	return (size_t)(sim_mix64(key) & (sw->table_cap - 1));
}

static mac_entry *table_find(const sim_switch *sw, uint64_t key)
{
	for (size_t i = slot_of(sw, key);; i = (i + 1) & (sw->table_cap - 1)) {
		mac_entry *e = &sw->table[i];
		if (e->key == key || e->key == 0)
			return e;
	}
}

static void table_learn(sim_switch *sw, uint16_t vid, const uint8_t *mac, uint32_t port, sim_time now)
{
	uint64_t key = mac_table_key(vid, mac);
	mac_entry *e = table_find(sw, key);
	if (e->key == 0) {
		if (sw->table_used >= sw->p.mac_capacity) {
			table_rebuild(sw, NO_PORT, true);
			e = table_find(sw, key);
		}
		if (sw->table_used >= sw->p.mac_capacity) {
			sw->st.learn_full++;
			return;
		}
		e->key = key;
		sw->table_used++;
	}
	e->port = port;
	e->seen = now;
}

static bool aged(const sim_switch *sw, const mac_entry *e, sim_time now)
{
	return now > e->seen && now - e->seen > sw->p.mac_aging;
}

/* Rebuild the table without the entries of `port` (every entry: ALL_PORTS) and, when
 * expire is set, without aged entries. Rare: link loss, reconfiguration, a full table. */
static void table_rebuild(sim_switch *sw, uint32_t port, bool expire)
{
	sim_time now = sim_now(sim_fabric_engine(sw->fab));
	mac_entry *old = sw->table;
	sw->table = calloc(sw->table_cap, sizeof(*sw->table));
	if (!sw->table)
		abort();
	sw->table_used = 0;
	for (size_t i = 0; i < sw->table_cap; i++) {
		if (!old[i].key || port == ALL_PORTS || old[i].port == port || (expire && aged(sw, &old[i], now)))
			continue;
		mac_entry *e = table_find(sw, old[i].key);
		*e = old[i];
		sw->table_used++;
	}
	free(old);
}

static bool vlan_member(const sw_port *p, uint16_t vid)
{
	if (p->mode == SIM_PORT_ACCESS)
		return p->pvid == vid;
	return p->pvid == vid || (p->allowed[vid >> 3] & (1u << (vid & 7))) != 0;
}

static bool port_usable(const sw_port *p) { return sim_plug_carrier(&p->plug); }

static void egress(sim_switch *sw, sw_port *out, sim_frame *f, uint16_t vid, uint16_t pcp_dei, sim_time at)
{
	if (out->mode == SIM_PORT_TRUNK && vid != out->pvid)
		sim_vlan_insert(f, (uint16_t)(pcp_dei | vid));
	out->st.tx_frames++;
	sim_plug_send(&out->plug, f, at + sw->p.latency);
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
	if (!sim_mac_is_multicast(src))
		table_learn(sw, vid, src, in->idx, at);

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
			egress(sw, out, f, vid, pcp_dei, at);
			return;
		}
	}
	/* flood: a copy to every member port but the last, which gets the original */
	sw->st.floods++;
	sw_port *last = NULL;
	for (uint32_t i = 0; i < sw->p.nports; i++) {
		sw_port *out = &sw->ports[i];
		if (out == in || !vlan_member(out, vid) || !port_usable(out))
			continue;
		if (last) {
			last->st.flooded++;
			egress(sw, last, sim_frame_clone(f), vid, pcp_dei, at);
		}
		last = out;
	}
	if (last) {
		last->st.flooded++;
		egress(sw, last, f, vid, pcp_dei, at);
	} else {
		sim_frame_free(f);
	}
}

static void port_carrier_changed(sim_plug *self)
{
	sw_port *p = self->owner;
	/* a link that went away takes its learned stations with it */
	if (!sim_plug_carrier(self))
		table_rebuild(p->sw, p->idx, false);
}

static void switch_free(void *obj)
{
	sim_switch *sw = obj;
	free(sw->ports);
	free(sw->table);
	free(sw);
}

sim_switch *sim_switch_new(sim_fabric *fab, const char *name, const sim_switch_params *params)
{
	sim_switch_params def;
	if (!params) {
		sim_switch_params_default(&def);
		params = &def;
	}
	sim_switch *sw = calloc(1, sizeof(*sw));
	if (!sw)
		abort();
	sw->fab = fab;
	sw->id = sim_fabric_new_id(fab);
	snprintf(sw->name, sizeof(sw->name), "%s", name);
	sw->p = *params;
	if (sw->p.nports == 0)
		sw->p.nports = 1;
	if (sw->p.mac_capacity == 0)
		sw->p.mac_capacity = 1;
	sw->table_cap = 16;
	while (sw->table_cap < 2u * (size_t)sw->p.mac_capacity)
		sw->table_cap *= 2;
	sw->table = calloc(sw->table_cap, sizeof(*sw->table));
	sw->ports = calloc(sw->p.nports, sizeof(*sw->ports));
	if (!sw->table || !sw->ports)
		abort();
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
	sw_port *p = &sw->ports[port];
	p->mode = SIM_PORT_ACCESS;
	p->pvid = pvid;
	memset(p->allowed, 0, sizeof(p->allowed));
	table_rebuild(sw, port, false);
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
	sw_port *p = &sw->ports[port];
	p->mode = SIM_PORT_TRUNK;
	p->pvid = native_vid;
	memset(p->allowed, 0, sizeof(p->allowed));
	for (size_t i = 0; i < n_allowed; i++)
		p->allowed[allowed[i] >> 3] |= (uint8_t)(1u << (allowed[i] & 7));
	table_rebuild(sw, port, false);
	return SMCR_ERR_OK;
}

static void port_apply(sim_switch *sw, sw_port *p) { sim_plug_set_up(&p->plug, p->admin_up && !sw->failed); }

void sim_switch_port_set_up(sim_switch *sw, uint32_t port, bool up)
{
	if (port >= sw->p.nports)
		return;
	sw->ports[port].admin_up = up;
	port_apply(sw, &sw->ports[port]);
}

void sim_switch_fail(sim_switch *sw)
{
	if (sw->failed)
		return;
	sw->failed = true;
	for (uint32_t i = 0; i < sw->p.nports; i++)
		port_apply(sw, &sw->ports[i]);
	table_rebuild(sw, ALL_PORTS, false); /* a failed switch forgets what it learned */
}

void sim_switch_restore(sim_switch *sw)
{
	if (!sw->failed)
		return;
	sw->failed = false;
	for (uint32_t i = 0; i < sw->p.nports; i++)
		port_apply(sw, &sw->ports[i]);
}

int sim_switch_lookup(const sim_switch *sw, uint16_t vid, const uint8_t *mac)
{
	const mac_entry *e = table_find(sw, mac_table_key(vid, mac));
	if (e->key == 0)
		return -1;
	if (aged(sw, e, sim_now(sim_fabric_engine(sw->fab))))
		return -1;
	return (int)e->port;
}

size_t sim_switch_mac_count(const sim_switch *sw) { return sw->table_used; }
const sim_switch_stats *sim_switch_stats_get(const sim_switch *sw) { return &sw->st; }

const sim_switch_port_stats *sim_switch_port_stats_get(const sim_switch *sw, uint32_t port)
{
	return port < sw->p.nports ? &sw->ports[port].st : NULL;
}
