/* Ethernet: the layer between netif and ARP/IPv4. */
#include "sim/net/ethernet.h"

#include <string.h>

#include "model/byteorder.h"
#include "sim/net/arp.h"
#include "sim/net/ipv4.h"
#include "sim/net/stack.h"

const uint8_t eth_broadcast[ETH_ALEN] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

void ethernet_output(netif *nif, const uint8_t dst[ETH_ALEN], uint16_t ethertype, pkt *p)
{
	size_t hlen = ETH_HLEN + (nif->vlan_id ? ETH_VLAN_HLEN : 0);
	uint8_t *h = pkt_push(p, hlen);
	h = put_bytes(h, dst, ETH_ALEN);
	h = put_bytes(h, nif->mac, ETH_ALEN);
	if (nif->vlan_id) {
		h = put_be16(h, ETHERTYPE_VLAN);
		h = put_be16(h, nif->vlan_id & 0x0fff); /* PCP 0, DEI 0 */
	}
	put_be16(h, ethertype);
	if (p->len < ETH_MIN_FRAME)
		memset(pkt_put(p, ETH_MIN_FRAME - p->len), 0, ETH_MIN_FRAME - p->len);
	netif_output(nif, pkt_data(p), p->len, p->flags);
}

void ethernet_input(netif *nif, const uint8_t *frame, size_t len, unsigned flags)
{
	if (len < ETH_HLEN) {
		nif->ctr.rx_malformed++;
		return;
	}
	const uint8_t *dst = frame;
	if (memcmp(dst, nif->mac, ETH_ALEN) && memcmp(dst, eth_broadcast, ETH_ALEN)) {
		nif->ctr.rx_not_ours++;
		return;
	}
	size_t off = 12;
	uint16_t type = get_be16(frame + off);
	if (type == ETHERTYPE_VLAN) {
		if (len < ETH_HLEN + ETH_VLAN_HLEN) {
			nif->ctr.rx_malformed++;
			return;
		}
		uint16_t vid = get_be16(frame + 14) & 0x0fff;
		if (!nif->vlan_id || vid != nif->vlan_id) {
			nif->ctr.rx_vlan_mismatch++;
			return;
		}
		off += ETH_VLAN_HLEN;
		type = get_be16(frame + off);
	} else if (nif->vlan_id) {
		nif->ctr.rx_vlan_mismatch++;
		return;
	}
	off += 2;
	netif_rx_host(nif, frame + off, len - off, type);
	switch (type) {
	case ETHERTYPE_ARP:
		arp_input(nif, frame + off, len - off);
		break;
	case ETHERTYPE_IPV4:
		ipv4_input(nif, frame + off, len - off, flags);
		break;
	default:
		nif->ctr.rx_malformed++;
		break;
	}
	host_irq_leave(nif->stack->host);
}
