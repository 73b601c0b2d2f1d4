/* Network interface: the seam between a stack and its link. */
#include "sim/net/netif.h"

#include <errno.h>
#include <stdlib.h>

#include "model/byteorder.h"
#include "sim/engine/oom.h"

#include "sim/net/ethernet.h"
#include "sim/net/route.h"
#include "sim/net/stack.h"

void netif_set_link(netif *nif, netif_link_output_fn fn, void *link_ctx)
{
	nif->link_output = fn;
	nif->link_ctx = link_ctx;
}

void netif_set_tap(netif *nif, netif_tap_fn fn, void *tap_ctx)
{
	nif->tap = fn;
	nif->tap_ctx = tap_ctx;
}

void netif_set_up(netif *nif, bool up)
{
	nif->up = up;
}

uint32_t netif_netmask(const netif *nif)
{
	return nif->ip4_prefix_len ? 0xffffffffu << (32 - nif->ip4_prefix_len) : 0;
}

bool netif_on_subnet(const netif *nif, uint32_t addr)
{
	if (!nif->ip4)
		return false;
	uint32_t mask = netif_netmask(nif);
	return (addr & mask) == (nif->ip4 & mask);
}

int netif_set_ipv4(netif *nif, uint32_t addr, uint8_t prefix_len)
{
	if (prefix_len > 32 || (addr && prefix_len == 0))
		return -EINVAL;
	route_table *rt = &nif->stack->routes;
	if (nif->ip4)
		route_remove_connected(rt, nif);
	nif->ip4 = addr;
	nif->ip4_prefix_len = addr ? prefix_len : 0;
	if (addr)
		return route_add(rt, addr & netif_netmask(nif), prefix_len, 0, nif);
	return 0;
}

void netif_input_flags(netif *nif, const uint8_t *frame, size_t len, unsigned flags)
{
	if (nif->tap)
		nif->tap(nif->tap_ctx, nif, NETIF_RX, frame, len);
	if (!nif->up)
		return;
	nif->ctr.rx_frames++;
	nif->ctr.rx_bytes += len;
	ethernet_input(nif, frame, len, flags);
}

void netif_input(netif *nif, const uint8_t *frame, size_t len)
{
	netif_input_flags(nif, frame, len, 0);
}

/* RSS: the receive queue of an IPv4 frame by its addresses (and TCP/UDP ports), as a NIC
 * hashes them; everything else on queue 0. */
static unsigned rx_queue(const host_profile *p, const uint8_t *l3, size_t len, uint16_t ethertype)
{
	if (p->rx_queues <= 1 || ethertype != ETHERTYPE_IPV4 || len < 20)
		return 0;
	uint64_t key = (uint64_t)get_be32(l3 + 12) << 32 | get_be32(l3 + 16);
	size_t ihl = (size_t)(l3[0] & 0x0f) * 4;
	if ((l3[9] == 6 || l3[9] == 17) && ihl >= 20 && len >= ihl + 4)
		key ^= (uint64_t)get_be32(l3 + ihl) * 0x9e3779b97f4a7c15ull;
	return (unsigned)(sim_mix64(key) % p->rx_queues);
}

void netif_rx_host(netif *nif, const uint8_t *l3, size_t len, uint16_t ethertype)
{
	sim_host *h = nif->stack->host;
	if (!host_has_costs(h))
		return;
	const host_profile *p = host_get_profile(h);
	unsigned q = rx_queue(p, l3, len, ethertype);
	host_irq *irq = &nif->rx_irq;
	if (q) {
		if (!nif->rx_irqs)
			nif->rx_irqs = sim_xcalloc(p->rx_queues, sizeof *nif->rx_irqs, "a NIC's receive queues");
		irq = &nif->rx_irqs[q];
	}
	host_wait_until(h, host_now(h) + p->nic_rx_ns);
	sim_time mod = host_irq_moderation(h, irq, p->nic_irq_delay_ns, p->nic_irq_busy_ns, p->nic_dim_gap_ns);
	host_irq_enter(h, irq, p->irq_cpu + q, mod, p->irq_ns);
	host_run_here(h, HOST_CAT_IRQ, p->tcp_rx_pkt_ns);
	/* Under load (the busy moderation) the poll keeps looking at its ring after each frame
	 * and GRO gathers what it finds; at low load the interrupt takes what had landed
	 * when it fired and the next frame brings the next interrupt. */
	if (mod == p->nic_irq_busy_ns && mod != p->nic_irq_delay_ns)
		host_irq_looked(h);
}

void netif_output(netif *nif, const uint8_t *frame, size_t len, unsigned flags)
{
	if (!nif->up || !nif->link_output) {
		nif->ctr.tx_no_link++;
		return;
	}
	sim_host *h = nif->stack->host;
	if (host_has_costs(h)) /* the driver's work on the frame; the NIC's own delay is the link's */
		host_run_here(h, HOST_CAT_TCPIP, host_get_profile(h)->tcp_tx_pkt_ns);
	if (nif->tap)
		nif->tap(nif->tap_ctx, nif, NETIF_TX, frame, len);
	nif->ctr.tx_frames++;
	nif->ctr.tx_bytes += len;
	nif->link_output(nif->link_ctx, nif, frame, len, flags);
}
