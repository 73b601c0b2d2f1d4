/* Routing table: a small array searched linearly (stacks have a handful of routes). */
#include "sim/net/route.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim/net/netif.h"

static uint32_t mask_of(uint8_t len)
{
	return len ? 0xffffffffu << (32 - len) : 0;
}

void route_table_init(route_table *t)
{
	memset(t, 0, sizeof *t);
}

void route_table_free(route_table *t)
{
	free(t->r);
	memset(t, 0, sizeof *t);
}

int route_add(route_table *t, uint32_t prefix, uint8_t prefix_len, uint32_t gateway, netif *nif)
{
	if (prefix_len > 32 || (!gateway && !nif))
		return -EINVAL;
	prefix &= mask_of(prefix_len);
	for (size_t i = 0; i < t->n; i++)
		if (t->r[i].prefix == prefix && t->r[i].prefix_len == prefix_len &&
		    t->r[i].gateway == gateway && t->r[i].nif == nif)
			return -EEXIST;
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 8;
		route *r = realloc(t->r, cap * sizeof *r);
		if (!r)
			return -ENOMEM;
		t->r = r;
		t->cap = cap;
	}
	t->r[t->n++] = (route){ .prefix = prefix, .prefix_len = prefix_len, .gateway = gateway, .nif = gateway ? NULL : nif };
	return 0;
}

static void remove_at(route_table *t, size_t i)
{
	memmove(&t->r[i], &t->r[i + 1], (t->n - i - 1) * sizeof *t->r);
	t->n--;
}

void route_remove_connected(route_table *t, const netif *nif)
{
	for (size_t i = t->n; i-- > 0;)
		if (!t->r[i].gateway && t->r[i].nif == nif)
			remove_at(t, i);
}

/* Longest matching prefix; `connected_only` is used to resolve a gateway. */
static const route *best(const route_table *t, uint32_t dst, bool connected_only)
{
	const route *b = NULL;
	for (size_t i = 0; i < t->n; i++) {
		const route *r = &t->r[i];
		if (connected_only && r->gateway)
			continue;
		if (r->nif && !r->nif->up)
			continue;
		if ((dst & mask_of(r->prefix_len)) != r->prefix)
			continue;
		if (!b || r->prefix_len > b->prefix_len)
			b = r;
	}
	return b;
}

bool route_lookup(const route_table *t, uint32_t dst, netif **out_nif, uint32_t *out_nexthop)
{
	const route *r = best(t, dst, false);
	if (!r)
		return false;
	if (!r->gateway) {
		*out_nif = r->nif;
		*out_nexthop = dst;
		return true;
	}
	const route *via = best(t, r->gateway, true);
	if (!via)
		return false;
	*out_nif = via->nif;
	*out_nexthop = r->gateway;
	return true;
}
