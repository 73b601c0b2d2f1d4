/* Stack: creation, interfaces, routes, configuration, teardown. */
#include "sim/net/stack.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/net/packet.h"
#include "sim/net/tcp.h"

stack *stack_new(sim_engine *eng, const char *name, stack_personality p, const stack_config *cfg)
{
	stack *st = calloc(1, sizeof *st);
	if (!st)
		return NULL;
	st->eng = eng;
	snprintf(st->name, sizeof st->name, "%s", name);
	st->entity = sim_hash_str(st->name);
	st->personality = p;
	if (cfg)
		st->cfg = *cfg;
	else
		stack_config_defaults(&st->cfg, p);
	route_table_init(&st->routes);
	ipv4_loopback_init(st);
	st->host = host_new(eng, NULL);
	st->tcp = tcp_layer_new(st);
	if (!st->tcp) {
		host_free(st->host);
		free(st);
		return NULL;
	}
	return st;
}

void stack_free(stack *st)
{
	if (!st)
		return;
	/* Connections go silently (no RST): the run is over. */
	tcp_layer_free(st->tcp);
	ipv4_loopback_clear(st);
	for (size_t i = 0; i < st->n_netifs; i++) {
		arp_cache_clear(st->netifs[i]);
		free(st->netifs[i]);
	}
	route_table_free(&st->routes);
	host_free(st->host);
	free(st);
}

int stack_set_host(stack *st, const host_profile *p)
{
	sim_host *h = host_new(st->eng, p);
	host_free(st->host);
	st->host = h;
	return 0;
}

netif *stack_add_netif(stack *st, const char *ifname, const uint8_t *mac, uint16_t mtu, uint16_t vlan_id)
{
	if (st->n_netifs == STACK_MAX_NETIFS || vlan_id > 4094 || mtu < 576 || mtu > PKT_MAX_MTU)
		return NULL;
	netif *nif = calloc(1, sizeof *nif);
	if (!nif)
		return NULL;
	nif->stack = st;
	snprintf(nif->name, sizeof nif->name, "%s", ifname);
	nif->index = (uint32_t)st->n_netifs;
	nif->entity = sim_mix64(st->entity + nif->index + 1);
	if (mac) {
		memcpy(nif->mac, mac, ETH_ALEN);
	} else {
		/* locally administered, unicast, from the stack name and the index */
		uint64_t h = sim_mix64(st->entity ^ (0x6d6163ull + nif->index));
		nif->mac[0] = 0x02;
		for (int i = 1; i < ETH_ALEN; i++)
			nif->mac[i] = (uint8_t)(h >> (8 * i));
	}
	nif->mtu = mtu;
	nif->vlan_id = vlan_id;
	nif->up = true;
	arp_cache_init(&nif->arp);
	st->netifs[st->n_netifs++] = nif;
	return nif;
}

netif *stack_netif(stack *st, const char *ifname)
{
	for (size_t i = 0; i < st->n_netifs; i++)
		if (!strcmp(st->netifs[i]->name, ifname))
			return st->netifs[i];
	return NULL;
}

int stack_add_route(stack *st, uint32_t prefix, uint8_t prefix_len, uint32_t gateway)
{
	if (!gateway)
		return -EINVAL;
	return route_add(&st->routes, prefix, prefix_len, gateway, NULL);
}

int stack_set_default_gateway(stack *st, uint32_t gateway)
{
	for (size_t i = 0; i < st->routes.n; i++) {
		if (st->routes.r[i].prefix_len == 0 && st->routes.r[i].gateway) {
			st->routes.r[i].gateway = gateway;
			return 0;
		}
	}
	return route_add(&st->routes, 0, 0, gateway, NULL);
}

void stack_set_forwarding(stack *st, bool on)
{
	st->cfg.ip.forwarding = on;
}

smcr_config *stack_smcr(stack *st)
{
	return &st->cfg.smcr;
}

void stack_set_smc_hooks(stack *st, const sock_smc_hooks *hooks, void *ctx)
{
	st->smc_hooks = hooks;
	st->smc_ctx = ctx;
}

int stack_ping(stack *st, uint32_t dst, uint16_t seq)
{
	return icmp_send_echo(st, dst, (uint16_t)st->entity, seq, 56);
}
