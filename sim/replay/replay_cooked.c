/* Linux cooked capture pseudo-headers -> Ethernet frames (see replay_cooked.h).
 * SLL (16 bytes): packet type, ARPHRD type, address length, 8 address bytes, protocol.
 * SLL2 (20 bytes): protocol, reserved, interface index, ARPHRD type, packet type,
 * address length, 8 address bytes. */
#include <stdio.h>
#include <string.h>

#include "sim/replay/replay_cooked.h"

#define ARPHRD_ETHER_TYPE 1
#define ETH_HLEN 14

bool rp_linktype_readable(int linktype)
{
	return linktype == RP_LINKTYPE_ETHERNET || linktype == RP_LINKTYPE_LINUX_SLL ||
	       linktype == RP_LINKTYPE_LINUX_SLL2;
}

static uint16_t be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }

rp_cooked_result rp_cooked_to_ethernet(int linktype, const uint8_t *data, uint32_t caplen, uint32_t len, uint8_t *out,
                                       uint32_t *out_caplen, uint32_t *out_len, char *why, size_t whylen)
{
	uint32_t hlen = linktype == RP_LINKTYPE_LINUX_SLL2 ? 20 : 16;
	const char *name = linktype == RP_LINKTYPE_LINUX_SLL2 ? "LINUX_SLL2" : "LINUX_SLL";
	if (caplen < hlen) {
		snprintf(why, whylen, "truncated %s header: %u of %u bytes captured", name, caplen, hlen);
		return RP_COOKED_MALFORMED;
	}
	uint16_t proto, hatype, halen;
	const uint8_t *addr;
	if (linktype == RP_LINKTYPE_LINUX_SLL2) {
		proto = be16(data);
		hatype = be16(data + 8);
		halen = data[11];
		addr = data + 12;
	} else {
		hatype = be16(data + 2);
		halen = be16(data + 4);
		addr = data + 6;
		proto = be16(data + 14);
	}
	/* below 0x0600 the protocol field is a Linux packet type (802.2, CAN, ...), not an
	 * EtherType */
	if (proto < 0x0600) {
		snprintf(why, whylen, "%s frame with Linux protocol 0x%04x, not an EtherType", name, proto);
		return RP_COOKED_OTHER;
	}
	memset(out, 0, 6);
	if (hatype == ARPHRD_ETHER_TYPE && halen == 6)
		memcpy(out + 6, addr, 6);
	else
		memset(out + 6, 0, 6);
	out[12] = (uint8_t)(proto >> 8);
	out[13] = (uint8_t)proto;
	memcpy(out + ETH_HLEN, data + hlen, caplen - hlen);
	*out_caplen = caplen - hlen + ETH_HLEN;
	*out_len = (len > caplen ? len : caplen) - hlen + ETH_HLEN;
	return RP_COOKED_OK;
}
