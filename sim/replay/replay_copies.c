/* Frames captured twice (see replay_copies.h). Recent packets are kept in a direct-mapped
 * table by a 64-bit FNV-1a hash of their bytes: a slot remembers the points (interface,
 * TTL) where its packet was seen since it first appeared. A collision only forgets an
 * older packet early (a copy of it then counts as a packet of its own), never joins two. */
#include <glib.h>
#include <string.h>

#include "sim/replay/replay_copies.h"

#define SLOTS (1u << 14)
#define POINTS 8

typedef struct copy_slot {
	uint64_t hash;
	uint32_t len;
	uint64_t first_ns;
	uint8_t n;
	struct {
		uint32_t iface;
		uint8_t hop;
	} at[POINTS];
} copy_slot;

struct rp_copies {
	uint64_t window_ns;
	copy_slot *slots;
};

rp_copies *rp_copies_new(uint64_t window_ns)
{
	rp_copies *c = g_new0(rp_copies, 1);
	c->window_ns = window_ns ? window_ns : RP_COPY_WINDOW_NS;
	c->slots = g_new0(copy_slot, SLOTS);
	return c;
}

void rp_copies_free(rp_copies *c)
{
	if (!c)
		return;
	g_free(c->slots);
	g_free(c);
}

static uint64_t fnv(uint64_t h, const uint8_t *p, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/* The packet's bytes without what a router rewrites (TTL / hop limit, IPv4 checksum). */
static uint64_t packet_hash(const rp_frame *f, uint8_t *hop)
{
	const uint8_t *p = f->l3 ? f->l3 : f->raw;
	uint32_t n = f->l3 ? f->l3_caplen : f->raw_caplen, wire = f->raw_len - (f->raw_caplen - n);
	uint64_t h = 0xcbf29ce484222325ull;
	h = fnv(h, (const uint8_t *)&wire, sizeof(wire));
	*hop = 0;
	uint32_t i = 0;
	while (i < n) {
		if (f->hop_off >= 0 && i == (uint32_t)f->hop_off) {
			*hop = p[i];
			i++;
			continue;
		}
		if (f->csum_off >= 0 && i == (uint32_t)f->csum_off) {
			i += 2;
			continue;
		}
		uint32_t end = n;
		if (f->hop_off >= 0 && i < (uint32_t)f->hop_off && (uint32_t)f->hop_off < end)
			end = (uint32_t)f->hop_off;
		if (f->csum_off >= 0 && i < (uint32_t)f->csum_off && (uint32_t)f->csum_off < end)
			end = (uint32_t)f->csum_off;
		h = fnv(h, p + i, end - i);
		i = end;
	}
	return h;
}

bool rp_copies_check(rp_copies *c, uint64_t ts_ns, uint32_t iface, const rp_frame *f)
{
	uint8_t hop;
	uint64_t h = packet_hash(f, &hop);
	copy_slot *s = &c->slots[h & (SLOTS - 1)];
	bool recent = s->n && s->hash == h && s->len == f->raw_caplen - (f->l3 ? (uint32_t)(f->l3 - f->raw) : 0) &&
	              ts_ns >= s->first_ns && ts_ns - s->first_ns < c->window_ns;
	bool here = false;
	for (uint8_t i = 0; recent && i < s->n; i++)
		here |= s->at[i].iface == iface && s->at[i].hop == hop;
	if (recent && !here) {
		if (s->n < POINTS) {
			s->at[s->n].iface = iface;
			s->at[s->n].hop = hop;
			s->n++;
		}
		return true;
	}
	/* a packet of its own, or the sender's resend of one: a new instance */
	s->hash = h;
	s->len = f->raw_caplen - (f->l3 ? (uint32_t)(f->l3 - f->raw) : 0);
	s->first_ns = ts_ns;
	s->n = 1;
	s->at[0].iface = iface;
	s->at[0].hop = hop;
	return false;
}
