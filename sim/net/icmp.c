/* ICMP echo and error messages. */
#include "sim/net/icmp.h"

#include <errno.h>
#include <string.h>

#include "model/byteorder.h"
#include "sim/net/inet_csum.h"
#include "sim/net/packet.h"
#include "sim/net/stack.h"
#include "sim/net/tcp.h"

#define ICMP_HLEN 8

static void finish(pkt *p)
{
	uint8_t *h = pkt_data(p);
	put_be16(h + 2, 0);
	put_be16(h + 2, inet_csum(h, p->len));
}

/* The message quotes our IPv4 header and the first 8 bytes of what it carried: for TCP,
 * the ports of the connection whose path has a smaller MTU. */
static void frag_needed(stack *st, const uint8_t *m, size_t len)
{
	const uint8_t *ip = m + ICMP_HLEN;
	if (len < ICMP_HLEN + IPV4_HLEN)
		return;
	size_t ihl = (size_t)(ip[0] & 15) * 4;
	if ((ip[0] >> 4) != 4 || ihl < IPV4_HLEN || len < ICMP_HLEN + ihl + 4 || ip[9] != IP_PROTO_TCP)
		return;
	const uint8_t *l4 = ip + ihl;
	tcp_pmtu_reduced(st, get_be32(ip + 12), get_be16(l4), get_be32(ip + 16), get_be16(l4 + 2), get_be16(m + 6));
}

void icmp_input(stack *st, const ipv4_rx *rx)
{
	const uint8_t *m = rx->payload;
	if (rx->payload_len < ICMP_HLEN || inet_csum(m, rx->payload_len) != 0) {
		st->icmp.malformed++;
		return;
	}
	switch (m[0]) {
	case ICMP_ECHO_REQUEST: {
		st->icmp.echo_requests_received++;
		if (rx->payload_len > PKT_MAX_MTU)
			return;
		pkt p;
		pkt_from_bytes(&p, m, rx->payload_len);
		pkt_data(&p)[0] = ICMP_ECHO_REPLY;
		finish(&p);
		/* Reply from the address that was asked (not for broadcasts). */
		uint32_t src = ipv4_local_netif(st, rx->dst) ? rx->dst : 0;
		if (ipv4_output(st, src, rx->src, IP_PROTO_ICMP, &p) == 0)
			st->icmp.echo_replies_sent++;
		break;
	}
	case ICMP_ECHO_REPLY:
		st->icmp.echo_replies_received++;
		st->icmp.last_reply_seq = get_be16(m + 6);
		break;
	case ICMP_DEST_UNREACH:
	case ICMP_TIME_EXCEEDED:
		st->icmp.errors_received++;
		if (m[0] == ICMP_DEST_UNREACH && m[1] == ICMP_FRAG_NEEDED)
			frag_needed(st, m, rx->payload_len);
		break;
	default:
		break;
	}
}

void icmp_send_error(stack *st, uint8_t type, uint8_t code, uint16_t mtu, const uint8_t *orig,
                     size_t orig_len)
{
	size_t hlen = (size_t)(orig[0] & 0x0f) * 4;
	if (get_be32(orig + 12) == 0 || get_be32(orig + 16) == 0xffffffffu)
		return;
	if (orig[9] == IP_PROTO_ICMP && orig_len > hlen) {
		uint8_t t = orig[hlen];
		if (t != ICMP_ECHO_REQUEST && t != ICMP_ECHO_REPLY)
			return; /* never an error about an error */
	}
	size_t quote = hlen + 8 < orig_len ? hlen + 8 : orig_len;
	pkt p;
	pkt_init(&p);
	uint8_t *w = pkt_put(&p, ICMP_HLEN + quote);
	w = put_u8(w, type);
	w = put_u8(w, code);
	w = put_be16(w, 0);
	w = put_be16(w, 0);
	w = put_be16(w, type == ICMP_DEST_UNREACH && code == ICMP_FRAG_NEEDED ? mtu : 0);
	put_bytes(w, orig, quote);
	finish(&p);
	if (ipv4_output(st, 0, get_be32(orig + 12), IP_PROTO_ICMP, &p) == 0)
		st->icmp.errors_sent++;
}

int icmp_send_echo(stack *st, uint32_t dst, uint16_t id, uint16_t seq, size_t len)
{
	if (len > PKT_MAX_MTU - IPV4_HLEN - ICMP_HLEN)
		return -EMSGSIZE;
	pkt p;
	pkt_init(&p);
	uint8_t *w = pkt_put(&p, ICMP_HLEN + len);
	w = put_u8(w, ICMP_ECHO_REQUEST);
	w = put_u8(w, 0);
	w = put_be16(w, 0);
	w = put_be16(w, id);
	w = put_be16(w, seq);
	for (size_t i = 0; i < len; i++)
		w[i] = (uint8_t)i;
	finish(&p);
	int rc = ipv4_output(st, 0, dst, IP_PROTO_ICMP, &p);
	if (rc == 0)
		st->icmp.echo_requests_sent++;
	return rc;
}
