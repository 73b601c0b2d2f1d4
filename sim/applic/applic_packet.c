/* Packet headers of a TCP capture (see applic_packet.h). Every length is checked against
 * what was captured; nothing reads past caplen. */
#include "sim/applic/applic_packet.h"

#include <pcap/pcap.h>
#include <stdio.h>
#include <string.h>

#include "model/byteorder.h"

#define ET_IPV4 0x0800
#define ET_IPV6 0x86DD
#define ET_VLAN 0x8100
#define ET_QINQ 0x88A8

bool ap_linktype_ok(int dlt)
{
	switch (dlt) {
	case DLT_EN10MB:
	case DLT_LINUX_SLL:
	case DLT_LINUX_SLL2:
	case DLT_RAW:
	case DLT_IPV4:
	case DLT_IPV6:
	case DLT_NULL:
	case DLT_LOOP:
		return true;
	default:
		return false;
	}
}

static ap_kind say(char *why, size_t n, ap_kind k, const char *text)
{
	snprintf(why, n, "%s", text);
	return k;
}

/* Offset of the network header and its EtherType (0x0800/0x86DD; 0 for another) */
static ap_kind link_layer(int dlt, const uint8_t *d, uint32_t caplen, uint32_t *off, uint16_t *et, uint16_t *vlan,
                          char *why, size_t n)
{
	*vlan = 0;
	switch (dlt) {
	case DLT_EN10MB:
		*off = 12;
		for (;;) {
			if (*off + 2 > caplen)
				return say(why, n, AP_BAD, "Ethernet header cut");
			uint16_t t = get_be16(d + *off);
			if (t != ET_VLAN && t != ET_QINQ) {
				*et = t;
				*off += 2;
				return AP_TCP;
			}
			if (*off + 4 > caplen)
				return say(why, n, AP_BAD, "802.1Q tag cut");
			*vlan = get_be16(d + *off + 2) & 0x0FFF;
			*off += 4;
		}
	case DLT_LINUX_SLL: /* 16 bytes; the protocol last */
		if (caplen < 16)
			return say(why, n, AP_BAD, "Linux cooked (SLL) header cut");
		*et = get_be16(d + 14);
		*off = 16;
		return AP_TCP;
	case DLT_LINUX_SLL2: /* 20 bytes; the protocol first */
		if (caplen < 20)
			return say(why, n, AP_BAD, "Linux cooked (SLL2) header cut");
		*et = get_be16(d);
		*off = 20;
		return AP_TCP;
	case DLT_NULL:
	case DLT_LOOP: { /* a 4-byte address family, in the writer's or network byte order */
		if (caplen < 4)
			return say(why, n, AP_BAD, "loopback header cut");
		uint32_t af = dlt == DLT_LOOP ? get_be32(d) : (uint32_t)d[0] | (uint32_t)d[1] << 8 | (uint32_t)d[2] << 16 |
		                                                      (uint32_t)d[3] << 24;
		if (af > 0xFFFF)
			af = get_be32(d);
		*off = 4;
		*et = af == 2 ? ET_IPV4 : (af == 10 || af == 24 || af == 28 || af == 30) ? ET_IPV6 : 0;
		return AP_TCP;
	}
	default: /* raw IP: the version nibble says which */
		*off = 0;
		if (caplen < 1)
			return say(why, n, AP_BAD, "empty record");
		*et = (d[0] >> 4) == 4 ? ET_IPV4 : (d[0] >> 4) == 6 ? ET_IPV6 : 0;
		return AP_TCP;
	}
}

/* IPv4: the TCP header's offset and the bytes of TCP segment the IP header announces */
static ap_kind ipv4(const uint8_t *d, uint32_t caplen, uint32_t len, uint32_t off, ap_packet *p, uint32_t *tcp,
                    uint32_t *seg, char *why, size_t n)
{
	if (off + 20 > caplen)
		return say(why, n, AP_BAD, "IPv4 header cut");
	const uint8_t *ip = d + off;
	uint32_t ihl = (ip[0] & 0x0Fu) * 4u, tot = get_be16(ip + 2);
	if ((ip[0] >> 4) != 4 || ihl < 20)
		return say(why, n, AP_BAD, "not an IPv4 header");
	if ((get_be16(ip + 6) & 0x1FFF) || (get_be16(ip + 6) & 0x2000))
		return say(why, n, AP_NOT_TCP, "IPv4 fragment");
	if (ip[9] != 6)
		return say(why, n, AP_NOT_TCP, ip[9] == 17 ? "UDP" : "IPv4, not TCP");
	if (!tot && len > off + ihl)
		tot = len - off; /* BIG TCP / TSO on the sender: the length field is 0 */
	if (tot < ihl)
		return say(why, n, AP_BAD, "IPv4 total length shorter than its header");
	p->family = 4;
	memcpy(p->src, ip + 12, 4);
	memcpy(p->dst, ip + 16, 4);
	*tcp = off + ihl;
	*seg = tot - ihl;
	return AP_TCP;
}

/* IPv6 with its extension headers (a fragment is counted, not read) */
static ap_kind ipv6(const uint8_t *d, uint32_t caplen, uint32_t len, uint32_t off, ap_packet *p, uint32_t *tcp,
                    uint32_t *seg, char *why, size_t n)
{
	if (off + 40 > caplen)
		return say(why, n, AP_BAD, "IPv6 header cut");
	const uint8_t *ip = d + off;
	if ((ip[0] >> 4) != 6)
		return say(why, n, AP_BAD, "not an IPv6 header");
	uint32_t plen = get_be16(ip + 4);
	if (!plen && len > off + 40)
		plen = len - off - 40; /* a jumbogram, or BIG TCP */
	uint8_t next = ip[6];
	uint32_t at = off + 40, used = 0;
	for (int k = 0; k < 8; k++) {
		if (next == 6)
			break;
		if (next == 44)
			return say(why, n, AP_NOT_TCP, "IPv6 fragment");
		if (next != 0 && next != 43 && next != 60)
			return say(why, n, AP_NOT_TCP, next == 17 ? "UDP" : "IPv6, not TCP");
		if (at + 8 > caplen)
			return say(why, n, AP_BAD, "IPv6 extension header cut");
		uint32_t ext = ((uint32_t)d[at + 1] + 1) * 8;
		next = d[at];
		at += ext;
		used += ext;
	}
	if (next != 6)
		return say(why, n, AP_NOT_TCP, "IPv6, not TCP");
	if (used > plen)
		return say(why, n, AP_BAD, "IPv6 extension headers longer than the payload");
	p->family = 6;
	memcpy(p->src, ip + 8, 16);
	memcpy(p->dst, ip + 24, 16);
	*tcp = at;
	*seg = plen - used;
	return AP_TCP;
}

/* The SMC option, in the options that were captured */
static bool smc_option(const uint8_t *o, uint32_t olen)
{
	for (uint32_t i = 0; i < olen;) {
		if (o[i] == 0)
			break;
		if (o[i] == 1) {
			i++;
			continue;
		}
		if (i + 1 >= olen || o[i + 1] < 2)
			break;
		if (o[i] == 254 && o[i + 1] == 6 && i + 6 <= olen && o[i + 2] == 0xE2 && o[i + 3] == 0xD4 && o[i + 4] == 0xC3 &&
		    o[i + 5] == 0xD9)
			return true;
		i += o[i + 1];
	}
	return false;
}

ap_kind ap_parse(int dlt, const uint8_t *d, uint32_t caplen, uint32_t len, ap_packet *p, char *why, size_t whylen)
{
	memset(p, 0, sizeof(*p));
	if (len < caplen)
		len = caplen;
	uint32_t off;
	uint16_t et;
	ap_kind k = link_layer(dlt, d, caplen, &off, &et, &p->vlan, why, whylen);
	if (k != AP_TCP)
		return k;
	uint32_t tcp, seg;
	if (et == ET_IPV4)
		k = ipv4(d, caplen, len, off, p, &tcp, &seg, why, whylen);
	else if (et == ET_IPV6)
		k = ipv6(d, caplen, len, off, p, &tcp, &seg, why, whylen);
	else
		return say(why, whylen, AP_NOT_TCP, "not IP");
	if (k != AP_TCP)
		return k;
	if (tcp + 20 > caplen)
		return say(why, whylen, AP_BAD, "TCP header cut");
	const uint8_t *t = d + tcp;
	uint32_t thl = (uint32_t)(t[12] >> 4) * 4u;
	if (thl < 20 || thl > seg)
		return say(why, whylen, AP_BAD, "TCP header length beyond the segment");
	p->sport = get_be16(t);
	p->dport = get_be16(t + 2);
	p->seq = get_be32(t + 4);
	p->ack = get_be32(t + 8);
	p->flags = t[13];
	p->payload = seg - thl;
	uint32_t have = caplen - tcp < thl ? caplen - tcp : thl;
	p->smc_option = (p->flags & AP_SYN) && have > 20 && smc_option(t + 20, have - 20);
	return AP_TCP;
}
