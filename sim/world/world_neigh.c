/* Neighbour caches against the truth: does a stack's ARP entry for an address hold the MAC
 * of the interface that owns that address? ARP carries no checksum, so a frame corrupted
 * past the FCS (a wire's or adapter's corrupt=) can teach a cache a wrong MAC; the swarm's
 * checker asks this to tell such a world from a protocol hang. */
#include <stdio.h>
#include <string.h>

#include "sim/net/arp.h"
#include "sim/net/netif.h"
#include "sim/net/stack.h"
#include "sim/world/world_int.h"

typedef struct owner {
	const netif *nif;
	const char *stack;
} owner;

static bool find_owner(const world *w, uint32_t ip, owner *o)
{
	for (uint32_t i = 0; i < w->scn->n_stacks; i++) {
		const stack *st = w->st[i].st;
		for (size_t k = 0; st && k < st->n_netifs; k++)
			if (st->netifs[k] && st->netifs[k]->ip4 == ip) {
				o->nif = st->netifs[k];
				o->stack = w->scn->stacks[i].name;
				return true;
			}
	}
	return false;
}

static void put_mac(char *out, size_t len, const uint8_t m[6])
{
	snprintf(out, len, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
}

bool world_arp_wrong(const world *w, uint32_t from_ip, uint32_t to_ip, char *out, size_t len)
{
	owner from, to;
	if (!find_owner(w, from_ip, &from) || !find_owner(w, to_ip, &to) || !netif_on_subnet(from.nif, to_ip))
		return false;
	uint8_t mac[6];
	if (!arp_lookup(from.nif, to_ip, mac) || !memcmp(mac, to.nif->mac, sizeof(mac)))
		return false;
	char held[18], real[18];
	put_mac(held, sizeof(held), mac);
	put_mac(real, sizeof(real), to.nif->mac);
	snprintf(out, len, "%s.%s's ARP entry for %u.%u.%u.%u holds %s, not %s.%s's %s", from.stack, from.nif->name,
	         to_ip >> 24, (to_ip >> 16) & 255u, (to_ip >> 8) & 255u, to_ip & 255u, held, to.stack, to.nif->name, real);
	return true;
}
