/* ARP cache and protocol for one interface. */
#include "sim/net/arp.h"

#include <stdlib.h>
#include <string.h>

#include "model/byteorder.h"
#include "sim/net/ethernet.h"
#include "sim/net/netif.h"
#include "sim/net/packet.h"
#include "sim/net/stack.h"
#include "sim/net/tcp.h"

#define ARP_HTYPE_ETHER 1
#define ARP_OP_REQUEST 1
#define ARP_OP_REPLY 2

struct arp_held {
	arp_held *next;
	size_t len;
	uint8_t data[]; /* the IPv4 datagram */
};

static const arp_config *cfg_of(const netif *nif)
{
	return &nif->stack->cfg.arp;
}

void arp_cache_init(arp_cache *c)
{
	memset(c, 0, sizeof *c);
}

static void drop_held(arp_cache *c, arp_entry *e)
{
	while (e->held_head) {
		arp_held *h = e->held_head;
		e->held_head = h->next;
		free(h);
		c->ctr.held_dropped++;
	}
	e->held_tail = NULL;
	e->n_held = 0;
}

static void entry_free(netif *nif, arp_entry *e)
{
	sim_event_cancel(nif->stack->eng, &e->retry);
	drop_held(&nif->arp, e);
	free(e);
}

/* The bit of ip in arp_cache.ip_bits. Most broadcasts a stack hears are requests from
 * senders it does not know: the bits answer those without reaching into the entries. */
static uint64_t ip_bit(uint32_t ip) { return 1ull << ((ip * 0x9E3779B1u) >> 26); }

/* One walk: it finds e and gathers the bits of every other entry on the way. */
static void unlink_entry(arp_cache *c, arp_entry *e)
{
	uint64_t bits = 0;
	arp_entry **pp = &c->head;
	for (; *pp && *pp != e; pp = &(*pp)->next)
		bits |= ip_bit((*pp)->ip);
	if (!*pp)
		return;
	*pp = e->next;
	c->n--;
	if (c->by_ip)
		g_hash_table_remove(c->by_ip, GUINT_TO_POINTER(e->ip));
	for (const arp_entry *x = *pp; x; x = x->next)
		bits |= ip_bit(x->ip);
	c->ip_bits = bits;
}

void arp_cache_clear(netif *nif)
{
	arp_cache *c = &nif->arp;
	while (c->head) {
		arp_entry *e = c->head;
		c->head = e->next;
		entry_free(nif, e);
	}
	c->n = 0;
	c->ip_bits = 0;
	if (c->by_ip)
		g_hash_table_destroy(c->by_ip);
	c->by_ip = NULL;
}

/* A cache of up to this many entries has no table: a walk of the list answers faster and
 * the interface stays small. The table is built when the cache first grows past it. */
#define ARP_WALK_MAX 8

/* Addresses in the cache are unique (an entry is made only when find() has none). */
static arp_entry *find(const arp_cache *c, uint32_t ip)
{
	if (!(c->ip_bits & ip_bit(ip)))
		return NULL;
	if (c->by_ip)
		return g_hash_table_lookup(c->by_ip, GUINT_TO_POINTER(ip));
	for (arp_entry *e = c->head; e; e = e->next)
		if (e->ip == ip)
			return e;
	return NULL;
}

static void send_arp(netif *nif, uint16_t op, const uint8_t tha[6], uint32_t tpa,
                     const uint8_t eth_dst[6])
{
	pkt p;
	pkt_init(&p);
	uint8_t *w = pkt_put(&p, ARP_PKT_LEN);
	w = put_be16(w, ARP_HTYPE_ETHER);
	w = put_be16(w, ETHERTYPE_IPV4);
	w = put_u8(w, 6);
	w = put_u8(w, 4);
	w = put_be16(w, op);
	w = put_bytes(w, nif->mac, 6);
	w = put_be32(w, nif->ip4);
	w = put_bytes(w, tha, 6);
	put_be32(w, tpa);
	if (op == ARP_OP_REQUEST)
		nif->arp.ctr.requests_sent++;
	else
		nif->arp.ctr.replies_sent++;
	ethernet_output(nif, eth_dst, ETHERTYPE_ARP, &p);
}

static void send_request(netif *nif, arp_entry *e)
{
	static const uint8_t zero_mac[6] = { 0 };
	e->tries++;
	send_arp(nif, ARP_OP_REQUEST, zero_mac, e->ip, eth_broadcast);
	sim_event_schedule_in(nif->stack->eng, &e->retry, cfg_of(nif)->retry_interval);
}

/* The TCP connections whose segments waited for an address that never answered: as
 * Linux's arp_error_report (an ICMP host unreachable to ourselves, tcp_v4_err), TCP is
 * told, so a connect fails with "no route to host" when ARP gives up instead of
 * retrying its SYN for two minutes. Told after the entry is gone (TCP may send again). */
#define ARP_TELL_MAX 8
typedef struct held_tcp {
	uint32_t src, dst;
	uint16_t sport, dport;
} held_tcp;

static size_t held_tcp_tuples(const arp_entry *e, held_tcp out[ARP_TELL_MAX])
{
	size_t n = 0;
	for (const arp_held *h = e->held_head; h && n < ARP_TELL_MAX; h = h->next) {
		const uint8_t *ip = h->data;
		size_t ihl = h->len ? (size_t)(ip[0] & 15) * 4 : 0;
		if (h->len < 20 || (ip[0] >> 4) != 4 || ihl < 20 || h->len < ihl + 4 || ip[9] != 6)
			continue;
		held_tcp t = { get_be32(ip + 12), get_be32(ip + 16), get_be16(ip + ihl), get_be16(ip + ihl + 2) };
		bool seen = false;
		for (size_t k = 0; k < n && !seen; k++)
			seen = !memcmp(&out[k], &t, sizeof(t));
		if (!seen)
			out[n++] = t;
	}
	return n;
}

static void on_retry(sim_engine *eng, sim_event *ev)
{
	(void)eng;
	arp_entry *e = ev->ctx;
	netif *nif = e->nif;
	if (e->state != ARP_PENDING)
		return;
	if (e->tries < cfg_of(nif)->max_tries) {
		send_request(nif, e);
		return;
	}
	/* Give up: drop what waited; the next packet to this address starts over. */
	nif->arp.ctr.failed++;
	unlink_entry(&nif->arp, e);
	held_tcp t[ARP_TELL_MAX];
	size_t n = held_tcp_tuples(e, t);
	uint32_t nexthop = e->ip;
	stack *st = nif->stack;
	entry_free(nif, e);
	for (size_t i = 0; i < n; i++)
		tcp_nexthop_unreachable(st, t[i].src, t[i].sport, t[i].dst, t[i].dport, nexthop);
}

/* Make room for one entry by evicting the oldest resolved one (the list is in creation
 * order, so the choice never depends on addresses). Pending entries are never evicted. */
static bool make_room(netif *nif)
{
	arp_cache *c = &nif->arp;
	if (c->n < cfg_of(nif)->cache_size)
		return true;
	for (arp_entry *e = c->head; e; e = e->next) {
		if (e->state == ARP_RESOLVED) {
			unlink_entry(c, e);
			entry_free(nif, e);
			c->ctr.evicted++;
			return true;
		}
	}
	return false;
}

static arp_entry *new_entry(netif *nif, uint32_t ip)
{
	if (!make_room(nif))
		return NULL;
	arp_entry *e = calloc(1, sizeof *e);
	if (!e)
		return NULL;
	e->nif = nif;
	e->ip = ip;
	e->state = ARP_PENDING;
	sim_event_init(&e->retry, sim_kind("arp.retry"), nif->entity, on_retry, e);
	arp_entry **pp = &nif->arp.head;
	while (*pp)
		pp = &(*pp)->next;
	*pp = e;
	arp_cache *c = &nif->arp;
	c->n++;
	c->ip_bits |= ip_bit(ip);
	if (c->by_ip) {
		g_hash_table_insert(c->by_ip, GUINT_TO_POINTER(ip), e);
	} else if (c->n > ARP_WALK_MAX) {
		c->by_ip = g_hash_table_new(g_direct_hash, g_direct_equal);
		for (arp_entry *x = c->head; x; x = x->next)
			g_hash_table_insert(c->by_ip, GUINT_TO_POINTER(x->ip), x);
	}
	return e;
}

static void send_ip(netif *nif, const uint8_t mac[6], pkt *p)
{
	ethernet_output(nif, mac, ETHERTYPE_IPV4, p);
}

static void hold(netif *nif, arp_entry *e, const pkt *p)
{
	if (e->n_held >= cfg_of(nif)->queue_len) {
		/* Keep the newest packets: drop the oldest (a retransmission replaces it). */
		arp_held *old = e->held_head;
		e->held_head = old->next;
		if (!e->held_head)
			e->held_tail = NULL;
		free(old);
		e->n_held--;
		nif->arp.ctr.held_dropped++;
	}
	arp_held *h = malloc(sizeof *h + p->len);
	if (!h) {
		nif->arp.ctr.held_dropped++;
		return;
	}
	h->next = NULL;
	h->len = p->len;
	memcpy(h->data, p->buf + p->off, p->len);
	if (e->held_tail)
		e->held_tail->next = h;
	else
		e->held_head = h;
	e->held_tail = h;
	e->n_held++;
}

void arp_output(netif *nif, uint32_t nexthop, pkt *p)
{
	sim_time now = sim_now(nif->stack->eng);
	arp_entry *e = find(&nif->arp, nexthop);
	if (e && e->state == ARP_RESOLVED && now < e->expires) {
		send_ip(nif, e->mac, p);
		return;
	}
	if (e && e->state == ARP_RESOLVED) {
		/* Stale: resolve again and hold the packet meanwhile. */
		e->state = ARP_PENDING;
		e->tries = 0;
		hold(nif, e, p);
		send_request(nif, e);
		return;
	}
	if (!e) {
		e = new_entry(nif, nexthop);
		if (!e) {
			nif->arp.ctr.held_dropped++;
			return;
		}
		hold(nif, e, p);
		send_request(nif, e);
		return;
	}
	hold(nif, e, p);
}

/* Record ip -> mac; if the entry was pending, send what it held. */
static void learn(netif *nif, arp_entry *e, const uint8_t mac[6])
{
	sim_time now = sim_now(nif->stack->eng);
	bool was_pending = e->state == ARP_PENDING;
	memcpy(e->mac, mac, 6);
	e->state = ARP_RESOLVED;
	e->expires = now + cfg_of(nif)->timeout;
	e->tries = 0;
	sim_event_cancel(nif->stack->eng, &e->retry);
	if (!was_pending)
		return;
	nif->arp.ctr.resolved++;
	while (e->held_head) {
		arp_held *h = e->held_head;
		e->held_head = h->next;
		if (!e->held_head)
			e->held_tail = NULL;
		e->n_held--;
		pkt p;
		pkt_from_bytes(&p, h->data, h->len);
		free(h);
		send_ip(nif, e->mac, &p);
	}
}

void arp_input(netif *nif, const uint8_t *m, size_t len)
{
	if (len < ARP_PKT_LEN || get_be16(m) != ARP_HTYPE_ETHER || get_be16(m + 2) != ETHERTYPE_IPV4 ||
	    m[4] != 6 || m[5] != 4) {
		nif->arp.ctr.malformed++;
		return;
	}
	uint16_t op = get_be16(m + 6);
	const uint8_t *sha = m + 8;
	uint32_t spa = get_be32(m + 14);
	uint32_t tpa = get_be32(m + 24);
	if (op != ARP_OP_REQUEST && op != ARP_OP_REPLY) {
		nif->arp.ctr.malformed++;
		return;
	}
	if (op == ARP_OP_REQUEST)
		nif->arp.ctr.requests_received++;
	else
		nif->arp.ctr.replies_received++;
	if (!nif->ip4 || !spa)
		return;
	bool for_us = tpa == nif->ip4;
	/* RFC 826 merge: refresh a known sender; learn a new one only if it talks to us. */
	arp_entry *e = find(&nif->arp, spa);
	if (e)
		learn(nif, e, sha);
	else if (for_us && netif_on_subnet(nif, spa) && (e = new_entry(nif, spa))) {
		e->state = ARP_RESOLVED; /* learned unasked: nothing held, nothing to count */
		learn(nif, e, sha);
	}
	if (for_us && op == ARP_OP_REQUEST)
		send_arp(nif, ARP_OP_REPLY, sha, spa, sha);
}

bool arp_lookup(const netif *nif, uint32_t ip, uint8_t mac[6])
{
	const arp_entry *e = find(&nif->arp, ip);
	if (!e || e->state != ARP_RESOLVED || sim_now(nif->stack->eng) >= e->expires)
		return false;
	memcpy(mac, e->mac, 6);
	return true;
}
