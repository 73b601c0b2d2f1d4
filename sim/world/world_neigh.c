/* Neighbour caches against the truth: which stacks' ARP entries hold a MAC other than that
 * of the interface owning the address? ARP carries no checksum, so a frame corrupted past
 * the FCS (a wire's or adapter's corrupt=) can teach a cache a wrong MAC; the swarm's
 * checker asks this to tell such a world from a protocol hang. */
#include <stdio.h>
#include <string.h>

#include "sim/net/arp.h"
#include "sim/net/netif.h"
#include "sim/net/stack.h"
#include "sim/world/world_int.h"

static const netif *owner_of(const world *w, uint32_t ip, const char **stack_name)
{
	for (uint32_t i = 0; i < w->scn->n_stacks; i++) {
		const stack *st = w->st[i].st;
		for (size_t k = 0; st && k < st->n_netifs; k++)
			if (st->netifs[k] && st->netifs[k]->ip4 == ip) {
				*stack_name = w->scn->stacks[i].name;
				return st->netifs[k];
			}
	}
	return NULL;
}

static void put_mac(char *out, size_t len, const uint8_t m[6])
{
	snprintf(out, len, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
}

void world_foreach_wrong_arp(const world *w, void (*fn)(void *arg, const world_wrong_arp *e), void *arg)
{
	sim_time now = sim_now(w->eng);
	for (uint32_t i = 0; i < w->scn->n_stacks; i++) {
		const stack *st = w->st[i].st;
		for (size_t k = 0; st && k < st->n_netifs; k++) {
			const netif *nif = st->netifs[k];
			for (const arp_entry *e = nif ? nif->arp.head : NULL; e; e = e->next) {
				const char *owner_stack = NULL;
				const netif *owner = owner_of(w, e->ip, &owner_stack);
				if (e->state != ARP_RESOLVED || now >= e->expires || !owner || !memcmp(e->mac, owner->mac, 6))
					continue;
				world_wrong_arp r = { .holder_ip = nif->ip4, .target_ip = e->ip };
				char held[18], real[18];
				put_mac(held, sizeof(held), e->mac);
				put_mac(real, sizeof(real), owner->mac);
				snprintf(r.text, sizeof(r.text), "%s.%s's ARP entry for %u.%u.%u.%u holds %s, not %s.%s's %s",
				         w->scn->stacks[i].name, nif->name, e->ip >> 24, (e->ip >> 16) & 255u, (e->ip >> 8) & 255u,
				         e->ip & 255u, held, owner_stack, owner->name, real);
				fn(arg, &r);
			}
		}
	}
}
