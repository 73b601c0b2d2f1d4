/* Simulated RoCE adapters: ports, virtual functions, GID tables, frame reception and the
 * ordered delivery of everything a VF reports to its host. */
#include "sim/rdma/rnic.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/smcr_err.h"
#include "sim/fabric/gid.h"
#include "sim/fabric/speed_contracts.h" /* 1: rnic_vf_notes_writes, rnic_host_writes */
#include "sim/engine/oom.h"
#include "sim/rdma/rnic_int.h"

/* Bytes of headers rxe reserves below the interface MTU when it picks the IB MTU
 * (RXE_MAX_HDR_LENGTH): GRH/IPv6 40 + UDP 8 + BTH 12 + RETH 16 + ICRC 4. */
#define IB_MTU_HEADROOM 80u

void rnic_config_default(rnic_config *c, const char *name, uint16_t pfid)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->pfid = pfid;
	c->nports = 1;
	for (int i = 0; i < RNIC_MAX_PORTS; i++)
		c->ports[i].eth_mtu = 1500;
	c->doorbell_delay = 200;
	c->event_delay = 100;
	c->tx_window = 10 * SIM_US;
	c->ack_req_every = 16;
	c->cc.pcp = -1;
	c->cc.dscp = -1;
	c->cc.cnp_pcp = 6;   /* ConnectX cnp_802p_prio */
	c->cc.cnp_dscp = 48; /* ConnectX cnp_dscp */
	dcqcn_params_default(&c->cc.dp);
}

static smcr_mtu ib_mtu_for(uint32_t eth_mtu)
{
	smcr_mtu best = SMCR_MTU_256;
	for (int m = SMCR_MTU_256; m <= SMCR_MTU_4096; m++)
		if (smcr_mtu_bytes((smcr_mtu)m) + IB_MTU_HEADROOM <= eth_mtu)
			best = (smcr_mtu)m;
	return best;
}

/* --- reports to the host ------------------------------------------------------------- */

static void vf_free(rnic_vf *vf);

static void vf_report_event(sim_engine *eng, sim_event *ev)
{
	rnic_vf *vf = ev->ctx;
	sim_time now = sim_now(eng);
	vf->delivering = true;
	while (vf->item_count && vf->items[vf->item_head].at <= now && !vf->doomed) {
		vf_item it = vf->items[vf->item_head];
		vf->item_head = (vf->item_head + 1) % vf->item_cap;
		vf->item_count--;
		if (it.dead)
			continue;
		if (it.is_async) {
			if (vf->host.async_event)
				vf->host.async_event(vf->host.ctx, it.ev, it.port, it.wc.qp_ctx);
		} else if (vf->host.completion) {
			vf->host.completion(vf->host.ctx, &it.wc);
		}
	}
	vf->delivering = false;
	if (vf->doomed) {
		vf_free(vf);
		return;
	}
	if (vf->item_count)
		sim_event_schedule(eng, &vf->item_ev, vf->items[vf->item_head].at);
}

static void vf_push(rnic_vf *vf, const vf_item *it)
{
	if (vf->item_count == vf->item_cap) {
		size_t cap = vf->item_cap ? vf->item_cap * 2 : 64;
		vf_item *n = sim_xreallocarray(NULL, cap, sizeof(*n), "adapter completion queues");
		for (size_t i = 0; i < vf->item_count; i++)
			n[i] = vf->items[(vf->item_head + i) % vf->item_cap];
		free(vf->items);
		vf->items = n;
		vf->item_cap = cap;
		vf->item_head = 0;
	}
	vf_item *slot = &vf->items[(vf->item_head + vf->item_count) % vf->item_cap];
	*slot = *it;
	slot->at = sim_now(vf->r->eng) +
	           (host_has_costs(vf->costs) ? host_get_profile(vf->costs)->rnic_cqe_ns : vf->r->cfg.event_delay);
	vf->item_count++;
	/* while delivering, vf_report_event() re-arms itself when it is done */
	if (!sim_event_pending(&vf->item_ev) && !vf->delivering)
		sim_event_schedule(vf->r->eng, &vf->item_ev, vf->items[vf->item_head].at);
}

void rnic_vf_report_wc(rnic_vf *vf, const rnic_qp *qp, const smcr_wc *wc)
{
	vf_item it = { .qp = qp, .wc = *wc };
	vf_push(vf, &it);
}

void rnic_vf_report_async(rnic_vf *vf, const rnic_qp *qp, smcr_async_event ev, uint8_t port, void *qp_ctx)
{
	vf_item it = { .qp = qp, .is_async = true, .port = port, .ev = ev };
	it.wc.qp_ctx = qp_ctx;
	vf_push(vf, &it);
}

void rnic_vf_forget_qp(rnic_vf *vf, const rnic_qp *qp)
{
	for (size_t i = 0; i < vf->item_count; i++) {
		vf_item *it = &vf->items[(vf->item_head + i) % vf->item_cap];
		if (it->qp == qp)
			it->dead = true;
	}
}

/* --- receive path ----------------------------------------------------------------- */

static uint64_t vmac_index_key(unsigned pi, uint64_t mac_key) { return ((uint64_t)(pi + 1u) << 48) | mac_key; }

/* Every frame a port receives or turns around asks this: an index, not a scan of the VFs. */
static rnic_vf *vf_by_mac(rnic *r, unsigned pi, uint64_t key)
{
	return u64map_get(&r->vf_by_vmac, vmac_index_key(pi, key));
}

/* vf_by_mac through the port's memo m. */
static rnic_vf *vf_by_mac_memo(rnic *r, const rnic_port *port, vmac_memo *m, uint64_t key)
{
	if (m->key == key && m->gen == r->vmac_gen)
		return m->vf;
	m->vf = vf_by_mac(r, port->num - 1u, key);
	m->key = key;
	m->gen = r->vmac_gen;
	return m->vf;
}

/* 0 = the VF owns this destination; otherwise which counter to bump */
static uint64_t *gid_check(rnic *r, const vf_port *vp, const roce_pkt *pkt)
{
	uint16_t vid = pkt->addr.vlan_tci & SIM_VLAN_VID_MASK;
	smcr_gid_type type = pkt->addr.version == ROCE_V1 ? SMCR_GID_ROCE_V1 : SMCR_GID_ROCE_V2;
	bool vlan_seen = false;
	for (uint32_t i = 0; i < vp->n_gids; i++) {
		const smcr_gid_entry *g = &vp->gids[i];
		if (g->vlan_id != vid)
			continue;
		vlan_seen = true;
		if (g->type == type && memcmp(g->gid, pkt->addr.dgid, 16) == 0)
			return NULL;
	}
	return vlan_seen ? &r->st.rx_gid_mismatch : &r->st.rx_vlan_mismatch;
}

/* What a frame received reads after the port's first line: the adapter's receive
 * counters and its VMAC index (a flood of unknown unicast asks it on every port). */
static void port_rx_prefetch(const void *ctx)
{
	const rnic_port *port = ctx;
	const rnic *r = port->r;
	__builtin_prefetch(&r->st.rx_frames);
	__builtin_prefetch(&r->st.rx_not_mine);
	__builtin_prefetch(&r->vf_by_vmac);
}

/* The ICRC the frame of pkt carries (written: paid, if it was owed). */
static uint32_t icrc_written(const roce_pkt *pkt)
{
	const uint8_t *t = pkt->payload + pkt->payload_len + pkt->bth.pad;
	return (uint32_t)t[0] | (uint32_t)t[1] << 8 | (uint32_t)t[2] << 16 | (uint32_t)t[3] << 24;
}

static void port_rx(sim_endpoint *ep, sim_frame *f)
{
	rnic_port *port = ep->ctx;
	/* the stall check inline: a call per received frame for a feature mostly off */
	if (__builtin_expect(port->rx_stalled, 0) && rnic_rx_stall_hold(port, f))
		return;
	rnic_port_receive(port, f);
}

void rnic_port_receive(rnic_port *port, sim_frame *f)
{
	rnic *r = port->r;
	unsigned pi = port->num - 1u;
	r->st.rx_frames++;
	/* VMACs are unicast (rnic_activate makes them 02:…), so a broadcast or multicast is
	 * nobody's without a lookup: an ARP storm brings one to every port per request */
	rnic_vf *vf = f->len >= SIM_ETH_HLEN && !sim_mac_is_multicast(f->data)
	                      ? vf_by_mac_memo(r, port, &port->rx_memo, sim_mac_key(f->data))
	                      : NULL;
	if (!vf) {
		r->st.rx_not_mine++;
		goto drop;
	}
	roce_pkt pkt;
	smcr_decode_err err;
	/* a frame some adapter built and nobody wrote to since has right sums: not computed
	 * again; one whose payload is still deferred may owe its ICRC: paid on the way into
	 * the responder's memory (or below, for the fingerprint, if it never gets there) */
	bool owed = sim_frame_crc_owed(f);
	int rc = !sim_frame_sums_vouched(f) ? roce_parse(f->data, f->len, &pkt, &err)
	         : owed                     ? roce_parse_owed(f->data, f->len, &pkt, &err)
	                                    : roce_parse_vouched(f->data, f->len, &pkt, &err);
	if (rc == SMCR_ERR_TYPE) {
		r->st.rx_not_roce++;
		goto drop;
	}
	if (rc) {
		if (err.field && !strcmp(err.field, "ICRC"))
			r->st.rx_icrc_errors++;
		else
			r->st.rx_malformed++;
		goto drop;
	}
	uint64_t *bad = gid_check(r, &vf->ports[pi], &pkt);
	if (bad) {
		(*bad)++;
		goto drop;
	}
	uint32_t idx = pkt.bth.dest_qp - r->qpn_base;
	rnic_qp *qp = pkt.bth.dest_qp >= r->qpn_base && idx < r->n_qps ? r->qps[idx] : NULL;
	if (!qp || qp->vf != vf || qp->port != port) {
		sim_engine_fold(r->eng, owed ? sim_frame_owed_crc(f) : pkt.icrc);
		r->st.rx_no_qp++;
		goto drop;
	}
	r->st.rx_accepted++;
	if (!owed)
		sim_engine_fold(r->eng, pkt.icrc);
	r->rx_frame = f;
	qp_receive(qp, &pkt);
	r->rx_frame = NULL;
	/* the same place in the fingerprint's chain: nothing folds in between */
	if (owed)
		sim_engine_fold(r->eng, sim_frame_crc_owed(f) ? sim_frame_owed_crc(f) : icrc_written(&pkt));
drop:
	sim_frame_free(f);
}

static void kick_port_qps(rnic_port *port, sim_time now);

static void port_link(sim_endpoint *ep, bool carrier)
{
	rnic_port *port = ep->ctx;
	rnic *r = port->r;
	for (uint32_t i = 0; i < r->n_vf_slots; i++)
		if (r->vfs[i])
			rnic_vf_report_async(r->vfs[i], NULL, carrier ? SMCR_EV_PORT_ACTIVE : SMCR_EV_PORT_ERR, port->num, NULL);
	if (!carrier)
		return;
	/* transmitters stalled by the outage resume, in QP number order */
	kick_port_qps(port, sim_now(r->eng));
}

static void loop_deliver(sim_engine *eng, sim_event *ev)
{
	(void)eng;
	rnic_port *port = ev->ctx;
	rnic_port_receive(port, (sim_frame *)(uintptr_t)ev->arg);
}

bool rnic_port_paused(const rnic_port *port, unsigned prio, sim_time *until)
{
	sim_time u = sim_endpoint_paused_until(&port->ep, prio);
	if (until)
		*until = u;
	return u > sim_now(port->r->eng);
}

static void hold(rnic_port *port, sim_frame *f, unsigned prio, sim_time until)
{
	port->r->st.tx_held++;
	f->next = NULL;
	if (port->held_tail[prio])
		port->held_tail[prio]->next = f;
	else
		port->held_head[prio] = f;
	port->held_tail[prio] = f;
	sim_event *ev = &port->resume_ev[prio];
	if (!sim_event_pending(ev) || ev->at > until)
		sim_event_schedule(port->r->eng, ev, until);
}

void rnic_port_send(rnic_port *port, sim_frame *f, unsigned prio)
{
	rnic *r = port->r;
	r->st.tx_frames++;
	r->st.tx_bytes += f->len;
	/* The adapter's embedded switch: a frame for another VF on the same port (stacks
	 * sharing the adapter) is turned around inside the adapter; an external switch never
	 * sends a frame back out of the port it came in on. The port must be up. */
	if (f->len >= SIM_ETH_HLEN && !sim_mac_is_multicast(f->data) &&
	    vf_by_mac_memo(r, port, &port->tx_memo, sim_mac_key(f->data))) {
		if (!sim_endpoint_carrier(&port->ep)) {
			sim_frame_free(f);
			return;
		}
		r->st.tx_looped++;
		if (r->loop_tap) {
			sim_frame_settle(f); /* the tap reads every byte */
			r->loop_tap(r->loop_tap_ctx, &port->ep.plug, SIM_TAP_OUT, sim_now(r->eng), f);
		}
		sim_post(r->eng, sim_now(r->eng) + RNIC_LOOP_DELAY, r->k_loop, port->ep.plug.id, loop_deliver, port,
		         (uint64_t)(uintptr_t)f);
		return;
	}
	/* PFC: the MAC does not start a frame of a paused priority; later frames of that
	 * priority queue behind the held ones */
	prio &= SIM_PRIOS - 1u;
	sim_time until;
	if (rnic_port_paused(port, prio, &until) || port->held_head[prio]) {
		hold(port, f, prio, until > sim_now(r->eng) ? until : sim_now(r->eng));
		return;
	}
	sim_endpoint_send(&port->ep, f);
}

/* A paused priority's timer ran out (or an XON came): send what waited, restart its QPs. */
static void port_resume_event(sim_engine *eng, sim_event *ev)
{
	rnic_port *port = ev->ctx;
	unsigned prio = (unsigned)ev->arg;
	sim_time until;
	if (rnic_port_paused(port, prio, &until)) {
		sim_event_schedule(eng, ev, until);
		return;
	}
	while (port->held_head[prio]) {
		sim_frame *f = port->held_head[prio];
		port->held_head[prio] = f->next;
		f->next = NULL;
		sim_endpoint_send(&port->ep, f);
	}
	port->held_tail[prio] = NULL;
	rnic *r = port->r;
	if (prio != r->prio)
		return;
	kick_port_qps(port, sim_now(eng));
}

/* The link partner paused (until > at) or resumed (until <= at) one priority: the time
 * paused is summed as intervals (a new PFC frame restarts the pause from its arrival). */
static void port_pause(void *ctx, unsigned prio, uint16_t quanta, sim_time until, sim_time at)
{
	(void)quanta;
	rnic_port *port = ctx;
	if (prio >= SIM_PRIOS)
		return;
	port->pause_frames++;
	sim_time *end = &port->pause_end[prio], *total = &port->paused_total[prio];
	if (*end > at)
		*total -= *end - at; /* the running pause ends now ... */
	if (until > at) {
		*total += until - at; /* ... and the new one runs from now */
		*end = until;
	} else if (*end > at) {
		*end = at;
	}
	sim_time now = sim_now(port->r->eng);
	sim_event *ev = &port->resume_ev[prio];
	sim_time when = until > now ? until : now;
	/* XON: restart at once; a pause: held frames (if any) wait for its end */
	if ((until <= at || port->held_head[prio]) && (!sim_event_pending(ev) || ev->at > when))
		sim_event_schedule(port->r->eng, ev, when);
}

sim_time rnic_port_paused_ns(const rnic *r, uint8_t port, unsigned prio)
{
	if (port < 1 || port > r->cfg.nports || prio >= SIM_PRIOS)
		return 0;
	const rnic_port *p = &r->ports[port - 1];
	sim_time now = sim_now(r->eng), total = p->paused_total[prio];
	/* the part of a running pause that lies in the future has not been paused yet */
	return p->pause_end[prio] > now ? total - (p->pause_end[prio] - now) : total;
}

uint64_t rnic_port_pause_frames(const rnic *r, uint8_t port)
{
	return port >= 1 && port <= r->cfg.nports ? r->ports[port - 1].pause_frames : 0;
}

unsigned rnic_priority(const rnic *r) { return r->prio; }

unsigned rnic_cc_priority(const rnic_cc_config *cc)
{
	return cc->pcp >= 0 ? (unsigned)cc->pcp & 7u : cc->dscp >= 0 ? ((unsigned)cc->dscp >> 3) & 7u
	                                                             : 0u;
}

size_t rnic_qp_slots(const rnic *r) { return r->n_qps; }
const rnic_qp *rnic_qp_at(const rnic *r, size_t i) { return i < r->n_qps ? r->qps[i] : NULL; }
const rnic_config *rnic_config_get(const rnic *r) { return &r->cfg; }

/* --- adapter ------------------------------------------------------------------------ */

rnic *rnic_new(sim_fabric *fab, const rnic_config *cfg)
{
	if (cfg->nports < 1 || cfg->nports > RNIC_MAX_PORTS)
		return NULL;
	rnic *r = sim_xcalloc(1, sizeof(*r), "adapters");
	r->fab = fab;
	r->eng = sim_fabric_engine(fab);
	r->frames = sim_fabric_frames(fab);
	r->id = sim_fabric_new_id(fab);
	r->cfg = *cfg;
	r->qpn_base = RNIC_QPN_BASE + ((uint32_t)(cfg->pfid & 0x3FFu) << 12);
	r->vmac_gen = 1;
	if (!r->cfg.ack_req_every)
		r->cfg.ack_req_every = 1;
	r->k_qp_tx = sim_kind("qp.tx");
	r->k_qp_retry = sim_kind("qp.retry");
	r->k_qp_rnr = sim_kind("qp.rnr");
	r->k_vf_report = sim_kind("rnic.report");
	r->k_loop = sim_kind("rnic.loop");
	r->k_qp_cc = sim_kind("qp.dcqcn");
	r->k_qp_cnp = sim_kind("qp.cnp");
	r->k_resume = sim_kind("rnic.resume");
	const rnic_cc_config *cc = &cfg->cc;
	r->prio = (uint8_t)rnic_cc_priority(cc);
	r->cnp_prio = (uint8_t)(cc->pcp >= 0 ? cc->cnp_pcp & 7 : (cc->cnp_dscp >> 3) & 7);
	static const uint8_t zero[6];
	for (uint8_t i = 0; i < cfg->nports; i++) {
		rnic_port *p = &r->ports[i];
		const rnic_port_config *pc = &cfg->ports[i];
		p->r = r;
		p->num = (uint8_t)(i + 1);
		if (memcmp(pc->mac, zero, 6) == 0) {
			uint8_t m[6] = { 0x06, (uint8_t)(cfg->pfid >> 8), (uint8_t)cfg->pfid, p->num, 0, 0 };
			memcpy(p->pmac, m, 6);
		} else {
			memcpy(p->pmac, pc->mac, 6);
		}
		snprintf(p->pnet_id, sizeof(p->pnet_id), "%s", pc->pnet_id);
		p->eth_mtu = pc->eth_mtu ? pc->eth_mtu : 1500;
		p->ib_mtu = ib_mtu_for(p->eth_mtu);
		char n[48];
		snprintf(n, sizeof(n), "%.30s.port%u", cfg->name, p->num);
		sim_endpoint_init(&p->ep, fab, n, p->pmac, port_rx, port_link, p);
		sim_endpoint_set_rx_prefetch(&p->ep, port_rx_prefetch);
		sim_endpoint_takes_deferred(&p->ep); /* the responder copies payloads where they are */
		sim_endpoint_set_pause_handler(&p->ep, port_pause, p);
		for (unsigned q = 0; q < SIM_PRIOS; q++) {
			sim_event_init(&p->resume_ev[q], r->k_resume, p->ep.plug.id, port_resume_event, p);
			p->resume_ev[q].arg = q;
		}
		rnic_rx_stall_init(p);
	}
	return r;
}

void rnic_free(rnic *r)
{
	if (!r)
		return;
	for (uint32_t i = 0; i < r->n_vf_slots; i++)
		if (r->vfs[i])
			rnic_deactivate(r->vfs[i]);
	for (uint8_t i = 0; i < r->cfg.nports; i++) {
		rnic_port *p = &r->ports[i];
		for (unsigned q = 0; q < SIM_PRIOS; q++) {
			sim_event_cancel(r->eng, &p->resume_ev[q]);
			while (p->held_head[q]) {
				sim_frame *f = p->held_head[q];
				p->held_head[q] = f->next;
				sim_frame_free(f);
			}
		}
		rnic_rx_stall_free(p);
		sim_endpoint_destroy(&p->ep);
	}
	free(r->qps);
	u64map_free(&r->vf_by_vmac);
	free(r);
}

sim_endpoint *rnic_port_endpoint(rnic *r, uint8_t port)
{
	return port >= 1 && port <= r->cfg.nports ? &r->ports[port - 1].ep : NULL;
}

uint64_t rnic_id(const rnic *r) { return r->id; }
uint16_t rnic_pfid(const rnic *r) { return r->cfg.pfid; }
uint8_t rnic_nports(const rnic *r) { return r->cfg.nports; }
const rnic_stats *rnic_stats_get(const rnic *r) { return &r->st; }

const rnic_qp *rnic_find_qp(const rnic *r, uint32_t qpn)
{
	uint32_t idx = qpn - r->qpn_base;
	return qpn >= r->qpn_base && idx < r->n_qps ? r->qps[idx] : NULL;
}

void rnic_set_loop_tap(rnic *r, sim_tap_fn fn, void *ctx)
{
	r->loop_tap = fn;
	r->loop_tap_ctx = ctx;
}

bool rnic_port_active(const rnic *r, uint8_t port)
{
	return port >= 1 && port <= r->cfg.nports && sim_endpoint_carrier(&r->ports[port - 1].ep);
}

uint32_t rnic_register_qp(rnic *r, rnic_qp *qp)
{
	if (r->qpn_base + r->n_qps > 0xFFFFFFu) {
		/* QP numbers are 24 bits and never reused: a fixed pool nothing can fall back from */
		char detail[128];
		snprintf(detail, sizeof detail, "adapter %s (PFID %04X) has created %zu queue pairs", r->cfg.name,
		         r->cfg.pfid, r->n_qps);
		sim_out_of_resource("queue pair numbers", detail,
		                    "run fewer connections or link groups on one adapter, or a shorter run");
	}
	if (r->n_qps == r->cap_qps) {
		r->cap_qps = r->cap_qps ? r->cap_qps * 2 : 64;
		r->qps = sim_xreallocarray(r->qps, r->cap_qps, sizeof(*r->qps), "queue pair numbers");
	}
	r->qps[r->n_qps] = qp;
	rnic_port *port = qp->port;
	qp->port_prev = port->qps_tail;
	qp->port_next = NULL;
	if (port->qps_tail)
		port->qps_tail->port_next = qp;
	else
		port->qps_head = qp;
	port->qps_tail = qp;
	return r->qpn_base + (uint32_t)r->n_qps++;
}

void rnic_unregister_qp(rnic *r, rnic_qp *qp)
{
	uint32_t idx = qp->qpn - r->qpn_base;
	if (!(idx < r->n_qps && r->qps[idx] == qp))
		return;
	r->qps[idx] = NULL;
	rnic_port *port = qp->port;
	if (qp->port_prev)
		qp->port_prev->port_next = qp->port_next;
	else
		port->qps_head = qp->port_next;
	if (qp->port_next)
		qp->port_next->port_prev = qp->port_prev;
	else
		port->qps_tail = qp->port_prev;
	qp->port_prev = qp->port_next = NULL;
}

/* Restart the transmitters of the port's QPs (a link or a priority came back), in QP
 * number order. */
static void kick_port_qps(rnic_port *port, sim_time now)
{
	for (rnic_qp *qp = port->qps_head; qp; qp = qp->port_next)
		req_kick(qp, now);
}

/* --- virtual functions ------------------------------------------------------------- */

static void vf_rebuild_gids(rnic_vf *vf, unsigned pi)
{
	vf_port *vp = &vf->ports[pi];
	uint8_t types = vf->r->cfg.roce ? vf->r->cfg.roce : (RNIC_ROCE_V1 | RNIC_ROCE_V2);
	uint32_t n = 0;
	for (uint32_t i = 0; (types & RNIC_ROCE_V1) && i < vp->n_vlans && n < SMCR_MAX_GIDS; i++, n++) {
		smcr_gid_entry *g = &vp->gids[n];
		gid_from_mac(vp->vmac, g->gid);
		g->index = (uint16_t)n;
		g->vlan_id = vp->vlans[i];
		g->type = SMCR_GID_ROCE_V1;
		g->prefix_len = 0;
	}
	for (uint32_t i = 0; (types & RNIC_ROCE_V2) && i < vp->n_ipv4 && n < SMCR_MAX_GIDS; i++, n++) {
		smcr_gid_entry *g = &vp->gids[n];
		gid_from_ipv4(vp->ipv4[i].addr, g->gid);
		g->index = (uint16_t)n;
		g->vlan_id = vp->ipv4[i].vid;
		g->type = SMCR_GID_ROCE_V2;
		g->prefix_len = vp->ipv4[i].prefix_len;
	}
	vp->n_gids = n;
}

rnic_vf *rnic_activate(rnic *r, const char *stack_name, const rnic_host *host)
{
	uint32_t slot = 0;
	while (slot < r->n_vf_slots && r->vfs[slot])
		slot++;
	if (slot == RNIC_MAX_VFS || r->vf_counter == 0xFFFF)
		return NULL;
	rnic_vf *vf = sim_xcalloc(1, sizeof(*vf), "virtual functions");
	vf->r = r;
	vf->number = ++r->vf_counter;
	vf->id = sim_fabric_new_id(r->fab);
	snprintf(vf->stack, sizeof(vf->stack), "%s", stack_name ? stack_name : "");
	if (host)
		vf->host = *host;
	vf->mr_free = UINT32_MAX;
	vf->next_iova = 0x0000700000000000ULL | ((uint64_t)vf->number << 36);
	for (uint8_t i = 0; i < r->cfg.nports; i++) {
		vf_port *vp = &vf->ports[i];
		uint8_t m[6] = { 0x02, (uint8_t)(r->cfg.pfid >> 8), (uint8_t)r->cfg.pfid, (uint8_t)(i + 1),
			         (uint8_t)(vf->number >> 8), (uint8_t)vf->number };
		memcpy(vp->vmac, m, 6);
		vp->vmac_key = sim_mac_key(m);
		u64map_put(&r->vf_by_vmac, vmac_index_key(i, vp->vmac_key), vf);
		r->vmac_gen++;
		vp->vlans[0] = 0;
		vp->n_vlans = 1;
		vf_rebuild_gids(vf, i);
	}
	sim_event_init(&vf->item_ev, r->k_vf_report, vf->id, vf_report_event, vf);
	r->vfs[slot] = vf;
	if (slot == r->n_vf_slots)
		r->n_vf_slots++;
	return vf;
}

static void vf_free(rnic_vf *vf)
{
	sim_event_cancel(vf->r->eng, &vf->item_ev);
	free(vf->items);
	free(vf);
}

void rnic_deactivate(rnic_vf *vf)
{
	if (!vf || vf->doomed)
		return;
	rnic *r = vf->r;
	while (vf->qps)
		rnic_qp_destroy(vf->qps);
	rnic_mr_free_all(vf);
	for (uint32_t i = 0; i < r->n_vf_slots; i++)
		if (r->vfs[i] == vf)
			r->vfs[i] = NULL;
	for (uint8_t i = 0; i < r->cfg.nports; i++)
		u64map_del(&r->vf_by_vmac, vmac_index_key(i, vf->ports[i].vmac_key));
	r->vmac_gen++;
	if (vf->delivering) {
		vf->doomed = true;
		return;
	}
	vf_free(vf);
}

uint32_t rnic_vf_number(const rnic_vf *vf) { return vf->number; }

void rnic_vf_notes_writes(rnic_vf *vf) { vf->notes_writes = true; }
void rnic_vf_set_host(rnic_vf *vf, sim_host *h) { vf->costs = h; }

void rnic_host_writes(rnic *r, const void *p, size_t n)
{
	if (sim_frame_pool_deferred(r->frames))
		sim_frame_pool_settle_range(r->frames, p, n);
}

const uint8_t *rnic_vf_vmac(const rnic_vf *vf, uint8_t port)
{
	return port >= 1 && port <= vf->r->cfg.nports ? vf->ports[port - 1].vmac : NULL;
}

const smcr_gid_entry *rnic_vf_gid(const rnic_vf *vf, uint8_t port, uint16_t index)
{
	if (port < 1 || port > vf->r->cfg.nports)
		return NULL;
	const vf_port *vp = &vf->ports[port - 1];
	return index < vp->n_gids ? &vp->gids[index] : NULL;
}

static uint32_t gid_budget_used(const vf_port *vp) { return vp->n_vlans + vp->n_ipv4; }

int rnic_vf_set_vlans(rnic_vf *vf, uint8_t port, const uint16_t *vids, size_t n)
{
	if (port < 1 || port > vf->r->cfg.nports || n == 0)
		return SMCR_ERR_INVAL;
	if (n > RNIC_MAX_VLANS)
		return SMCR_ERR_LIMIT;
	for (size_t i = 0; i < n; i++)
		if (vids[i] > SIM_VLAN_MAX_VID)
			return SMCR_ERR_INVAL;
	vf_port *vp = &vf->ports[port - 1];
	if (n + vp->n_ipv4 > SMCR_MAX_GIDS)
		return SMCR_ERR_LIMIT;
	memcpy(vp->vlans, vids, n * sizeof(*vids));
	vp->n_vlans = (uint32_t)n;
	vf_rebuild_gids(vf, port - 1u);
	rnic_vf_report_async(vf, NULL, SMCR_EV_GID_CHANGE, port, NULL);
	return SMCR_ERR_OK;
}

int rnic_vf_add_ipv4(rnic_vf *vf, uint8_t port, uint32_t ipv4, uint8_t prefix_len, uint16_t vid)
{
	if (port < 1 || port > vf->r->cfg.nports || vid > SIM_VLAN_MAX_VID || ipv4 == 0 || prefix_len > 32)
		return SMCR_ERR_INVAL;
	vf_port *vp = &vf->ports[port - 1];
	for (uint32_t i = 0; i < vp->n_ipv4; i++)
		if (vp->ipv4[i].addr == ipv4)
			return SMCR_ERR_INVAL;
	if (gid_budget_used(vp) >= SMCR_MAX_GIDS)
		return SMCR_ERR_LIMIT;
	vp->ipv4[vp->n_ipv4++] = (vf_ipv4){ ipv4, vid, prefix_len };
	vf_rebuild_gids(vf, port - 1u);
	rnic_vf_report_async(vf, NULL, SMCR_EV_GID_CHANGE, port, NULL);
	return SMCR_ERR_OK;
}

int rnic_vf_del_ipv4(rnic_vf *vf, uint8_t port, uint32_t ipv4)
{
	if (port < 1 || port > vf->r->cfg.nports)
		return SMCR_ERR_INVAL;
	vf_port *vp = &vf->ports[port - 1];
	for (uint32_t i = 0; i < vp->n_ipv4; i++) {
		if (vp->ipv4[i].addr != ipv4)
			continue;
		memmove(&vp->ipv4[i], &vp->ipv4[i + 1], (vp->n_ipv4 - i - 1) * sizeof(vp->ipv4[0]));
		vp->n_ipv4--;
		vf_rebuild_gids(vf, port - 1u);
		rnic_vf_report_async(vf, NULL, SMCR_EV_GID_CHANGE, port, NULL);
		return SMCR_ERR_OK;
	}
	return SMCR_ERR_NOTFOUND;
}

void rnic_vf_port_desc(const rnic_vf *vf, uint8_t port, smcr_port_desc *out)
{
	memset(out, 0, sizeof(*out));
	const rnic *r = vf->r;
	if (port < 1 || port > r->cfg.nports)
		return;
	const rnic_port *p = &r->ports[port - 1];
	const vf_port *vp = &vf->ports[port - 1];
	out->dev = (smcr_tp_dev *)(void *)vf;
	out->port = port;
	out->pfid = r->cfg.pfid;
	snprintf(out->name, sizeof(out->name), "%s", r->cfg.name);
	snprintf(out->pnet_id, sizeof(out->pnet_id), "%s", p->pnet_id);
	memcpy(out->mac, vp->vmac, 6);
	out->active_mtu = p->ib_mtu;
	out->state = sim_endpoint_carrier(&p->ep) ? SMCR_PORT_ACTIVE : SMCR_PORT_DOWN;
	out->n_gids = vp->n_gids;
	memcpy(out->gids, vp->gids, vp->n_gids * sizeof(vp->gids[0]));
}

void rnic_live_objects(const rnic *r, size_t *qps, size_t *mrs)
{
	*qps = *mrs = 0;
	for (uint32_t i = 0; i < r->n_vf_slots; i++) {
		const rnic_vf *vf = r->vfs[i];
		if (!vf)
			continue;
		for (const rnic_qp *q = vf->qps; q; q = q->next_in_vf)
			(*qps)++;
		for (uint32_t k = 0; k < vf->n_mr_slots; k++)
			*mrs += vf->mrs[k].mr != NULL;
	}
}
