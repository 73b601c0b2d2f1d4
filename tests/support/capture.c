/* Frame capture for tests. */
#include "tests/support/capture.h"

#include <stdlib.h>
#include <string.h>

#include "model/byteorder.h"

static void on_frame(void *ctx, const netif *nif, netif_dir dir, const uint8_t *frame, size_t len)
{
	(void)nif;
	capture *c = ctx;
	if ((dir == NETIF_TX && !c->tx) || (dir == NETIF_RX && !c->rx))
		return;
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 64;
		c->f = realloc(c->f, c->cap * sizeof *c->f);
		if (!c->f)
			abort();
	}
	cap_frame *f = &c->f[c->n++];
	f->at = sim_now(c->eng);
	f->dir = dir;
	f->len = len;
	f->data = malloc(len);
	if (!f->data)
		abort();
	memcpy(f->data, frame, len);
}

void capture_init(capture *c, sim_engine *eng, netif *nif, bool tx, bool rx)
{
	memset(c, 0, sizeof *c);
	c->eng = eng;
	c->tx = tx;
	c->rx = rx;
	netif_set_tap(nif, on_frame, c);
}

void capture_free(capture *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->f[i].data);
	free(c->f);
	memset(c, 0, sizeof *c);
}

uint16_t cap_ethertype(const cap_frame *f, uint16_t *vlan)
{
	*vlan = 0;
	if (f->len < 14)
		return 0;
	uint16_t t = get_be16(f->data + 12);
	if (t == 0x8100 && f->len >= 18) {
		*vlan = get_be16(f->data + 14) & 0x0fff;
		t = get_be16(f->data + 16);
	}
	return t;
}

bool cap_parse_tcp(const cap_frame *f, cap_tcp *o)
{
	uint16_t vlan;
	if (cap_ethertype(f, &vlan) != 0x0800)
		return false;
	size_t off = vlan ? 18 : 14;
	const uint8_t *ip = f->data + off;
	if (f->len < off + 20 || ip[9] != 6)
		return false;
	size_t ihl = (size_t)(ip[0] & 0x0f) * 4;
	size_t total = get_be16(ip + 2);
	if (total > f->len - off || total < ihl + 20)
		return false;
	const uint8_t *t = ip + ihl;
	size_t doff = (size_t)(t[12] >> 4) * 4;
	if (doff < 20 || ihl + doff > total)
		return false;
	o->src = get_be32(ip + 12);
	o->dst = get_be32(ip + 16);
	o->ttl = ip[8];
	o->sport = get_be16(t);
	o->dport = get_be16(t + 2);
	o->seq = get_be32(t + 4);
	o->ack = get_be32(t + 8);
	o->flags = t[13];
	o->wnd = get_be16(t + 14);
	o->opt = t + 20;
	o->opt_len = doff - 20;
	o->payload_len = total - ihl - doff;
	return true;
}

long cap_find_tcp(const capture *c, size_t start, uint8_t flags, uint8_t not_flags, cap_tcp *out)
{
	for (size_t i = start; i < c->n; i++) {
		cap_tcp t;
		if (!cap_parse_tcp(&c->f[i], &t))
			continue;
		if ((t.flags & flags) == flags && !(t.flags & not_flags)) {
			if (out)
				*out = t;
			return (long)i;
		}
	}
	return -1;
}
