/* Routed RoCE v2 into the VF: a frame that a router delivered to one of the stack's
 * interfaces (it resolved the RoCE v2 address, which is the interface's own, to the
 * interface's MAC) is handed to the VF whose GID holds that address.
 *
 * Why: a stack's RoCE v2 GIDs carry its interface addresses (as Linux derives them from
 * the netdev). On a converged NIC the hardware steers UDP port 4791 to the RDMA engine;
 * here the interface and the adapter port are separate fabric attachments, so the layer
 * does the steering: it watches frames arriving at the interface (the netif tap), copies
 * RoCE v2 ones for a local GID, readdresses them to the VF's VMAC and delivers them to the
 * adapter port from an engine event (the same path as a frame off the wire). The stack
 * itself ignores them (UDP is not its business). Directly reachable peers (same subnet)
 * send to the VMAC in the first place and never take this path. */
#include <string.h>

#include "model/byteorder.h"
#include "sim/fabric/eth_header.h"
#include "sim/fabric/fabric.h"
#include "sim/fabric/frame.h"
#include "sim/smc/smc_layer_int.h"

#define ROCE_V2_UDP_PORT 4791u

static bool gid_has_ipv4(const smcr_port_desc *d, uint32_t ip, uint16_t vid)
{
	for (uint32_t i = 0; i < d->n_gids; i++) {
		const smcr_gid_entry *g = &d->gids[i];
		if (g->type == SMCR_GID_ROCE_V2 && g->vlan_id == vid && get_be32(g->gid + 12) == ip)
			return true;
	}
	return false;
}

static void deliver(sim_engine *eng, sim_event *ev)
{
	(void)eng;
	sim_endpoint *ep = ev->ctx;
	sim_frame *f = (sim_frame *)(uintptr_t)ev->arg;
	ep->rx(ep, f);
}

static void steer(smc_layer *l, const netif *nif, const uint8_t *frame, size_t len)
{
	if (len < SIM_ETH_HLEN + 20 + 8 || memcmp(frame, nif->mac, 6))
		return;
	size_t off = 12;
	uint16_t type = get_be16(frame + off);
	uint16_t vid = 0;
	if (type == SIM_ETHERTYPE_VLAN) {
		vid = get_be16(frame + off + 2) & SIM_VLAN_VID_MASK;
		off += 4;
		type = get_be16(frame + off);
	}
	off += 2;
	if (type != SIM_ETHERTYPE_IPV4 || len < off + 28)
		return;
	const uint8_t *ip = frame + off;
	size_t ihl = (size_t)(ip[0] & 0x0f) * 4;
	if ((ip[0] >> 4) != 4 || ip[9] != 17 || len < off + ihl + 8)
		return;
	if (get_be16(ip + ihl + 2) != ROCE_V2_UDP_PORT)
		return;
	uint32_t dst = get_be32(ip + 16);
	for (size_t i = 0; i < l->n_ports; i++) {
		const smc_layer_port *p = &l->ports[i];
		if (!p->vf)
			continue; /* a real device: the kernel delivers its frames */
		smcr_port_desc d;
		rnic_vf_port_desc(p->vf, p->port, &d);
		if (!gid_has_ipv4(&d, dst, vid))
			continue;
		sim_endpoint *ep = rnic_port_endpoint(p->adapter, p->port);
		sim_frame *f = sim_frame_alloc_len(sim_fabric_frames(ep->plug.fab), (uint32_t)len);
		memcpy(sim_frame_put(f, (uint32_t)len), frame, len);
		memcpy(f->data, d.mac, 6);
		l->ctr.steered_frames++;
		sim_post(l->st->eng, sim_now(l->st->eng), l->k_steer, nif->entity, deliver, ep, (uint64_t)(uintptr_t)f);
		return;
	}
}

static void on_tap(void *ctx, const netif *nif, netif_dir dir, const uint8_t *frame, size_t len)
{
	smc_steer_tap *t = ctx;
	if (t->prev)
		t->prev(t->prev_ctx, nif, dir, frame, len);
	if (dir == NETIF_RX)
		steer(t->l, nif, frame, len);
}

void smc_steer_attach(smc_layer *l)
{
	stack *st = l->st;
	for (size_t i = 0; i < st->n_netifs && i < STACK_MAX_NETIFS; i++) {
		netif *nif = st->netifs[i];
		smc_steer_tap *t = &l->taps[i];
		if (t->nif)
			continue;
		t->l = l;
		t->nif = nif;
		t->prev = nif->tap;
		t->prev_ctx = nif->tap_ctx;
		netif_set_tap(nif, on_tap, t);
	}
}

void smc_steer_detach(smc_layer *l)
{
	for (size_t i = 0; i < STACK_MAX_NETIFS; i++) {
		smc_steer_tap *t = &l->taps[i];
		if (!t->nif)
			continue;
		if (t->nif->tap == on_tap && t->nif->tap_ctx == t)
			netif_set_tap(t->nif, t->prev, t->prev_ctx);
		t->nif = NULL;
	}
}
