/* An IPv4 routing table: connected routes (added with an interface address), static
 * routes via a gateway, and the default gateway (0.0.0.0/0). Lookup is longest prefix
 * first; among equal prefixes the route added first wins. A route via a gateway leaves
 * through the interface whose connected subnet holds the gateway. */
#ifndef SIM_ROUTE_H
#define SIM_ROUTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct netif netif;

typedef struct route {
	uint32_t prefix; /* host order, masked */
	uint8_t prefix_len;
	uint32_t gateway; /* 0 = directly connected */
	netif *nif;       /* connected routes: the interface; gateway routes: NULL (resolved) */
} route;

typedef struct route_table {
	route *r;
	size_t n, cap;
} route_table;

void route_table_init(route_table *t);
void route_table_free(route_table *t);

/* Returns 0, -EEXIST for an identical route, -EINVAL, or -ENOMEM. */
int route_add(route_table *t, uint32_t prefix, uint8_t prefix_len, uint32_t gateway, netif *nif);
void route_remove_connected(route_table *t, const netif *nif);

/* Where a packet to dst goes: the interface and the next hop (dst itself when the route
 * is connected). Returns false when there is no usable route. */
bool route_lookup(const route_table *t, uint32_t dst, netif **out_nif, uint32_t *out_nexthop);

#endif
