/* IPv4 input, output, forwarding and loopback. */
#include "sim/net/ipv4.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/byteorder.h"
#include "sim/net/arp.h"
#include "sim/net/icmp.h"
#include "sim/net/inet_csum.h"
#include "sim/net/netif.h"
#include "sim/net/packet.h"
#include "sim/net/stack.h"
#include "sim/net/tcp.h"

#define IPV4_FLAG_DF 0x4000
#define IPV4_FLAG_MF 0x2000
#define IPV4_FRAG_MASK 0x1fff

struct loop_dgram {
	loop_dgram *next;
	netif *nif;
	size_t len;
	uint8_t data[];
};

netif *ipv4_local_netif(stack *st, uint32_t addr)
{
	for (size_t i = 0; i < st->n_netifs; i++)
		if (st->netifs[i]->ip4 && st->netifs[i]->ip4 == addr)
			return st->netifs[i];
	return NULL;
}

bool ipv4_route_source(stack *st, uint32_t dst, uint32_t *src, netif **nif)
{
	netif *local = ipv4_local_netif(st, dst);
	if (local) {
		*src = dst;
		*nif = local;
		return true;
	}
	uint32_t nexthop;
	if (!route_lookup(&st->routes, dst, nif, &nexthop) || !(*nif)->ip4)
		return false;
	*src = (*nif)->ip4;
	return true;
}

static void write_header(stack *st, uint8_t *h, uint32_t src, uint32_t dst, uint8_t proto,
                         uint8_t ttl, size_t total)
{
	uint8_t *w = h;
	w = put_u8(w, 0x45);
	w = put_u8(w, 0);
	w = put_be16(w, (uint16_t)total);
	w = put_be16(w, st->ip_id++);
	w = put_be16(w, IPV4_FLAG_DF);
	w = put_u8(w, ttl);
	w = put_u8(w, proto);
	w = put_be16(w, 0);
	w = put_be32(w, src);
	put_be32(w, dst);
	put_be16(h + 10, inet_csum20(h));
}

static void on_loopback(sim_engine *eng, sim_event *ev)
{
	(void)eng;
	stack *st = ev->ctx;
	/* One datagram per event, so the order of events stays the order of sends. */
	loop_dgram *d = st->loop_head;
	if (!d)
		return;
	st->loop_head = d->next;
	if (!st->loop_head)
		st->loop_tail = NULL;
	else
		sim_event_schedule(st->eng, &st->loop_ev, sim_now(st->eng));
	ipv4_input(d->nif, d->data, d->len, 0);
	free(d);
}

static int loopback(stack *st, netif *nif, const pkt *p)
{
	loop_dgram *d = malloc(sizeof *d + p->len);
	if (!d)
		return -ENOMEM;
	d->next = NULL;
	d->nif = nif;
	d->len = p->len;
	memcpy(d->data, p->buf + p->off, p->len);
	if (st->loop_tail)
		st->loop_tail->next = d;
	else
		st->loop_head = d;
	st->loop_tail = d;
	st->ip.loopback++;
	if (!sim_event_pending(&st->loop_ev))
		sim_event_schedule(st->eng, &st->loop_ev, sim_now(st->eng));
	return 0;
}

void ipv4_loopback_init(stack *st)
{
	sim_event_init(&st->loop_ev, sim_kind("ip.loopback"), st->entity, on_loopback, st);
}

void ipv4_loopback_clear(stack *st)
{
	sim_event_cancel(st->eng, &st->loop_ev);
	while (st->loop_head) {
		loop_dgram *d = st->loop_head;
		st->loop_head = d->next;
		free(d);
	}
	st->loop_tail = NULL;
}

int ipv4_output(stack *st, uint32_t src, uint32_t dst, uint8_t proto, pkt *p)
{
	netif *local = ipv4_local_netif(st, dst);
	netif *nif = local;
	uint32_t nexthop = dst;
	if (!local && !route_lookup(&st->routes, dst, &nif, &nexthop)) {
		st->ip.out_no_route++;
		return -EHOSTUNREACH;
	}
	if (!nif->ip4)
		return -ENETDOWN;
	if (!src)
		src = nif->ip4;
	size_t total = p->len + IPV4_HLEN;
	if (total > nif->mtu) {
		st->ip.out_too_big++;
		return -EMSGSIZE;
	}
	write_header(st, pkt_push(p, IPV4_HLEN), src, dst, proto, st->cfg.ip.ttl, total);
	st->ip.out_packets++;
	if (local)
		return loopback(st, local, p);
	arp_output(nif, nexthop, p);
	return 0;
}

static bool is_for_us(stack *st, const netif *nif, uint32_t dst)
{
	if (dst == 0xffffffffu || ipv4_local_netif(st, dst))
		return true;
	/* the directed broadcast of the arrival subnet */
	return nif->ip4 && nif->ip4_prefix_len < 31 && dst == (nif->ip4 | ~netif_netmask(nif));
}

static void forward(stack *st, const uint8_t *d, size_t len)
{
	uint8_t ttl = d[8];
	uint32_t dst = get_be32(d + 16);
	if (ttl <= 1) {
		st->ip.fwd_ttl_expired++;
		icmp_send_error(st, ICMP_TIME_EXCEEDED, 0, 0, d, len);
		return;
	}
	netif *out;
	uint32_t nexthop;
	if (!route_lookup(&st->routes, dst, &out, &nexthop)) {
		st->ip.fwd_no_route++;
		icmp_send_error(st, ICMP_DEST_UNREACH, ICMP_NET_UNREACH, 0, d, len);
		return;
	}
	if (len > out->mtu) {
		st->ip.fwd_too_big++;
		if (get_be16(d + 6) & IPV4_FLAG_DF)
			icmp_send_error(st, ICMP_DEST_UNREACH, ICMP_FRAG_NEEDED, out->mtu, d, len);
		return; /* without DF we would fragment; this simulator does not */
	}
	pkt p;
	pkt_from_bytes(&p, d, len);
	uint8_t *h = pkt_data(&p);
	size_t hlen = (size_t)(h[0] & 0x0f) * 4;
	h[8] = (uint8_t)(ttl - 1);
	put_be16(h + 10, 0);
	put_be16(h + 10, inet_csum(h, hlen));
	st->ip.forwarded++;
	arp_output(out, nexthop, &p);
}

void ipv4_input(netif *nif, const uint8_t *d, size_t len, unsigned flags)
{
	stack *st = nif->stack;
	st->ip.in_packets++;
	if (len < IPV4_HLEN || (d[0] >> 4) != 4) {
		st->ip.in_malformed++;
		return;
	}
	size_t hlen = (size_t)(d[0] & 0x0f) * 4;
	size_t total = get_be16(d + 2);
	if (hlen < IPV4_HLEN || hlen > len || total < hlen || total > len) {
		st->ip.in_malformed++;
		return;
	}
	bool sums_ok = flags & NETIF_SUMS_OK;
	if (!sums_ok && (hlen == IPV4_HLEN ? inet_csum20(d) : inet_csum(d, hlen)) != 0) {
		st->ip.in_bad_checksum++;
		return;
	}
	len = total; /* Ethernet padding after the datagram is not ours to read */
	uint16_t frag = get_be16(d + 6);
	if ((frag & IPV4_FLAG_MF) || (frag & IPV4_FRAG_MASK)) {
		st->ip.in_fragments_dropped++;
		return;
	}
	uint32_t dst = get_be32(d + 16);
	if (!is_for_us(st, nif, dst)) {
		if (st->cfg.ip.forwarding)
			forward(st, d, len);
		else
			st->ip.in_not_ours++;
		return;
	}
	ipv4_rx rx = {
		.nif = nif,
		.src = get_be32(d + 12),
		.dst = dst,
		.proto = d[9],
		.ttl = d[8],
		.hdr = d,
		.hdr_len = hlen,
		.payload = d + hlen,
		.payload_len = len - hlen,
		.sums_ok = sums_ok,
	};
	switch (rx.proto) {
	case IP_PROTO_TCP:
		st->ip.in_delivered++;
		tcp_input(st, &rx);
		break;
	case IP_PROTO_ICMP:
		st->ip.in_delivered++;
		icmp_input(st, &rx);
		break;
	default:
		st->ip.in_unknown_proto++;
		break;
	}
}

bool ipv4_pton(const char *s, uint32_t *addr)
{
	uint32_t v = 0;
	for (int part = 0; part < 4; part++) {
		if (*s < '0' || *s > '9')
			return false;
		uint32_t n = 0;
		int digits = 0;
		while (*s >= '0' && *s <= '9') {
			n = n * 10 + (uint32_t)(*s++ - '0');
			if (++digits > 3 || n > 255)
				return false;
		}
		v = v << 8 | n;
		if (part < 3 && *s++ != '.')
			return false;
	}
	if (*s)
		return false;
	*addr = v;
	return true;
}
