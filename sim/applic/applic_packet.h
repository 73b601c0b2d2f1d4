/* One captured packet as the applicability reader needs it: the TCP header fields and the
 * payload length, from the headers alone (a capture may hold 96 bytes of each frame), for
 * the link types tcpdump writes: Ethernet (802.1Q/802.1ad tags), Linux cooked (SLL, SLL2:
 * `tcpdump -i any`), raw IP (LINKTYPE_RAW, IPV4, IPV6) and BSD loopback (NULL, LOOP).
 *
 * The payload length is the IP header's (IPv4 total length, IPv6 payload length) less the
 * IP and TCP headers, so a segment cut by the snap length counts whole, and a segment far
 * above the MTU (TSO/GSO, captured on the sending host before the adapter cuts it) counts
 * as the one large write it is. A length field of 0 (IPv4 BIG TCP, an IPv6 jumbogram)
 * takes the frame's length instead. */
#ifndef SIM_APPLIC_PACKET_H
#define SIM_APPLIC_PACKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AP_FIN 0x01
#define AP_SYN 0x02
#define AP_RST 0x04
#define AP_PSH 0x08
#define AP_ACK 0x10

typedef struct ap_packet {
	uint8_t family; /* 4 or 6 */
	uint8_t src[16], dst[16];
	uint16_t sport, dport;
	uint32_t seq, ack;
	uint8_t flags;
	uint32_t payload; /* TCP payload bytes on the wire */
	uint16_t vlan;    /* innermost 802.1Q id, 0 untagged */
	bool smc_option;  /* the SMC experimental option (kind 254, E2 D4 C3 D9), when captured */
} ap_packet;

typedef enum ap_kind {
	AP_TCP,     /* a TCP segment: p is filled */
	AP_NOT_TCP, /* well-formed, not TCP (ARP, UDP, a later IP fragment...): why says what */
	AP_BAD,     /* cut before the TCP header or inconsistent: why says what */
} ap_kind;

/* A link type the reader handles. */
bool ap_linktype_ok(int dlt);
/* Dissect a record of link type dlt: caplen bytes captured of len on the wire. */
ap_kind ap_parse(int dlt, const uint8_t *data, uint32_t caplen, uint32_t len, ap_packet *p, char *why, size_t whylen);

#endif
