/* netif <-> fabric endpoint adapter. */
#include "sim/net/netif_fabric.h"

#include <stdio.h>
#include <string.h>

#include "sim/fabric/fabric.h"
#include "sim/fabric/frame.h"
#include "sim/net/stack.h"

static void port_output(void *ctx, netif *nif, const uint8_t *frame, size_t len, unsigned flags)
{
	netif_fabric_port *p = ctx;
	sim_frame *f = sim_frame_alloc_len(sim_fabric_frames(p->fab), (uint32_t)len);
	if (len > sim_frame_tailroom(f)) {
		sim_frame_free(f);
		p->tx_dropped++;
		return;
	}
	memcpy(sim_frame_put(f, (uint32_t)len), frame, len);
	if (flags & NETIF_SUMS_OK)
		sim_frame_vouch_sums(f);
	sim_host *h = nif->stack->host;
	bool sent = host_has_costs(h) ? sim_endpoint_send_at(&p->ep, f, host_now(h) + host_get_profile(h)->nic_tx_ns)
	                              : sim_endpoint_send(&p->ep, f);
	if (!sent)
		p->tx_dropped++;
}

/* The endpoint's ctx is the netif itself: one pointer less to follow per frame (a
 * broadcast reaches every interface of the segment). */
static void port_rx(sim_endpoint *ep, sim_frame *f)
{
	netif_input_flags(ep->ctx, f->data, f->len, sim_frame_sums_vouched(f) ? NETIF_SUMS_OK : 0);
	sim_frame_free(f);
}

/* What a frame received reads after the netif's first line: its counters, the ARP
 * cache's counters and the tap's object (the SMC-R layer watches every interface). */
static void port_rx_prefetch(const void *ctx)
{
	const netif *nif = ctx;
	__builtin_prefetch(&nif->ctr.rx_frames);
	__builtin_prefetch(&nif->arp.ctr);
	if (nif->tap_ctx)
		__builtin_prefetch(nif->tap_ctx);
}

int netif_fabric_attach(netif_fabric_port *p, netif *nif, sim_fabric *fab, sim_plug *where)
{
	char name[64];
	snprintf(name, sizeof name, "%s.%s", nif->stack->name, nif->name);
	memset(p, 0, sizeof *p);
	p->nif = nif;
	p->fab = fab;
	sim_endpoint_init(&p->ep, fab, name, nif->mac, port_rx, NULL, nif);
	sim_endpoint_set_rx_prefetch(&p->ep, port_rx_prefetch);
	int rc = sim_endpoint_attach(&p->ep, where);
	if (rc) {
		sim_endpoint_destroy(&p->ep);
		return rc;
	}
	netif_set_link(nif, port_output, p);
	return 0;
}

void netif_fabric_detach(netif_fabric_port *p)
{
	netif_set_link(p->nif, NULL, NULL);
	sim_endpoint_destroy(&p->ep);
}
