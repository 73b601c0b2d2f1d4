/* A packet under construction: one contiguous buffer with headroom, so each layer
 * prepends its header in place (lwIP's pbuf layers, without the chains). TCP writes its
 * header and payload at the tail, IPv4 and Ethernet push theirs in front. Frames that
 * come in from a wire are parsed straight from (bytes, length) and never copied into a
 * pkt unless they are forwarded. */
#ifndef SIM_PACKET_H
#define SIM_PACKET_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define PKT_HEADROOM 64  /* Ethernet (14) + 802.1Q (4) + IPv4 (20), rounded up */
#define PKT_MAX_MTU 9000 /* largest IP MTU a netif may have (jumbo frames) */
#define PKT_CAP (PKT_HEADROOM + PKT_MAX_MTU + 64)

typedef struct pkt {
	size_t off;     /* first used byte in buf */
	size_t len;     /* used bytes from off */
	unsigned flags; /* NETIF_* (sim/net/netif.h): what its producer vouches for */
	uint8_t buf[PKT_CAP];
} pkt;

static inline void pkt_init(pkt *p)
{
	p->off = PKT_HEADROOM;
	p->len = 0;
	p->flags = 0;
}

static inline uint8_t *pkt_data(pkt *p) { return p->buf + p->off; }

/* Room for n more bytes in front of the data (a lower layer's header). */
static inline uint8_t *pkt_push(pkt *p, size_t n)
{
	assert(n <= p->off);
	p->off -= n;
	p->len += n;
	return p->buf + p->off;
}

/* Room for n more bytes after the data (payload). */
static inline uint8_t *pkt_put(pkt *p, size_t n)
{
	assert(p->off + p->len + n <= PKT_CAP);
	uint8_t *tail = p->buf + p->off + p->len;
	p->len += n;
	return tail;
}

/* A pkt holding a copy of bytes, with the default headroom in front. */
static inline void pkt_from_bytes(pkt *p, const uint8_t *bytes, size_t len)
{
	pkt_init(p);
	memcpy(pkt_put(p, len), bytes, len);
}

#endif
