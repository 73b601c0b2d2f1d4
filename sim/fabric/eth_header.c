/* Ethernet/802.1Q helpers. */
#include "sim/fabric/eth_header.h"

#include <string.h>

#include "model/byteorder.h"

bool sim_eth_parse(const uint8_t *p, uint32_t len, sim_eth_hdr *out)
{
	if (len < SIM_ETH_HLEN)
		return false;
	out->dst = p;
	out->src = p + 6;
	uint16_t type = get_be16(p + 12);
	if (type == SIM_ETHERTYPE_VLAN) {
		if (len < SIM_ETH_HLEN + SIM_VLAN_HLEN)
			return false;
		out->tagged = true;
		out->tci = get_be16(p + 14);
		out->ethertype = get_be16(p + 16);
		out->hlen = SIM_ETH_HLEN + SIM_VLAN_HLEN;
	} else {
		out->tagged = false;
		out->tci = 0;
		out->ethertype = type;
		out->hlen = SIM_ETH_HLEN;
	}
	return true;
}

uint32_t sim_eth_write(uint8_t *p, const uint8_t *dst, const uint8_t *src, uint16_t vlan_tci,
                       uint16_t ethertype)
{
	uint8_t *q = put_bytes(p, dst, 6);
	q = put_bytes(q, src, 6);
	if (vlan_tci) {
		q = put_be16(q, SIM_ETHERTYPE_VLAN);
		q = put_be16(q, vlan_tci);
	}
	q = put_be16(q, ethertype);
	return (uint32_t)(q - p);
}

void sim_vlan_insert(sim_frame *f, uint16_t tci)
{
	/* move both MACs 4 bytes to the front and write the tag behind them */
	uint8_t *p = sim_frame_push(f, SIM_VLAN_HLEN);
	memmove(p, p + SIM_VLAN_HLEN, 12);
	put_be16(put_be16(p + 12, SIM_ETHERTYPE_VLAN), tci);
}

uint16_t sim_vlan_strip(sim_frame *f)
{
	uint8_t *p = sim_frame_writable(f);
	uint16_t tci = get_be16(p + 14);
	memmove(p + SIM_VLAN_HLEN, p, 12);
	sim_frame_pull(f, SIM_VLAN_HLEN);
	return tci;
}
