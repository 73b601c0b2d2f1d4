/* IPv4 (RFC 791): header with checksum and TTL, local delivery to TCP and ICMP, and
 * forwarding for stacks that route. Nothing is fragmented: this stack sends with DF set
 * and refuses datagrams larger than the interface MTU; a router answers an oversized DF
 * datagram with ICMP "fragmentation needed" carrying the next-hop MTU; received
 * fragments are counted and dropped. Datagrams to one of the stack's own addresses loop
 * back through an engine event (never a direct call, so no re-entrancy). */
#ifndef SIM_IPV4_H
#define SIM_IPV4_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct stack stack;
typedef struct netif netif;
typedef struct pkt pkt;

#define IPV4_HLEN 20
#define IP_PROTO_ICMP 1
#define IP_PROTO_TCP 6

#define IPV4(a, b, c, d) \
	((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (uint32_t)(d))

/* A received datagram as upper layers see it. */
typedef struct ipv4_rx {
	netif *nif; /* arrived on */
	uint32_t src, dst;
	uint8_t proto, ttl;
	const uint8_t *hdr; /* the IPv4 header (for ICMP errors quoting it) */
	size_t hdr_len;
	const uint8_t *payload;
	size_t payload_len;
	bool sums_ok; /* NETIF_SUMS_OK came with it: the TCP checksum needs no check */
} ipv4_rx;

typedef struct ipv4_counters {
	uint64_t out_packets, out_no_route, out_too_big;
	uint64_t in_packets, in_delivered, in_malformed, in_bad_checksum;
	uint64_t in_fragments_dropped, in_not_ours, in_unknown_proto;
	uint64_t forwarded, fwd_ttl_expired, fwd_no_route, fwd_too_big;
	uint64_t loopback;
} ipv4_counters;

/* Send p (the transport payload) from src (0: the outgoing interface's address) to dst.
 * Returns 0, -EHOSTUNREACH (no route), -EMSGSIZE (larger than the MTU; DF is always set)
 * or -ENETDOWN (the interface has no address). */
int ipv4_output(stack *st, uint32_t src, uint32_t dst, uint8_t proto, pkt *p);
/* The datagram after the Ethernet header; flags: NETIF_* from the link. */
void ipv4_input(netif *nif, const uint8_t *dgram, size_t len, unsigned flags);

/* Source address and interface the stack would use towards dst (false: no route). */
bool ipv4_route_source(stack *st, uint32_t dst, uint32_t *src, netif **nif);
/* Is addr one of the stack's interface addresses? */
netif *ipv4_local_netif(stack *st, uint32_t addr);

/* Stack set-up and teardown of the loopback queue. */
void ipv4_loopback_init(stack *st);
void ipv4_loopback_clear(stack *st);

/* Parse a dotted quad; returns false on anything else. */
bool ipv4_pton(const char *s, uint32_t *addr);

#endif
