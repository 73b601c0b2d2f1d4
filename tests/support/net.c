/* Test network fixture. */
#include "tests/support/net.h"

#include <stdlib.h>

void test_net_init(test_net *t, uint64_t seed, sim_time latency, sim_ratio loss)
{
	t->eng = sim_engine_new(seed);
	t->n_wires = t->n_stacks = 0;
	test_net_add_wire(t, "lan0", latency, loss);
}

test_wire *test_net_add_wire(test_net *t, const char *name, sim_time latency, sim_ratio loss)
{
	if (t->n_wires == TEST_NET_MAX_WIRES)
		abort();
	test_wire *w = test_wire_new(t->eng, name, latency, loss);
	t->wires[t->n_wires++] = w;
	return w;
}

netif *test_net_add_netif(test_net *t, stack *st, test_wire *w, const char *ifname, uint32_t ip,
                          uint8_t plen, uint16_t vlan)
{
	(void)t;
	netif *nif = stack_add_netif(st, ifname, NULL, 1500, vlan);
	if (!nif || netif_set_ipv4(nif, ip, plen))
		abort();
	test_wire_attach(w, nif);
	return nif;
}

stack *test_net_add_stack(test_net *t, const char *name, stack_personality p, uint32_t ip, uint8_t plen,
                          uint16_t vlan)
{
	if (t->n_stacks == TEST_NET_MAX_STACKS)
		abort();
	stack *st = stack_new(t->eng, name, p, NULL);
	if (!st)
		abort();
	t->stacks[t->n_stacks++] = st;
	test_net_add_netif(t, st, t->wires[0], "eth0", ip, plen, vlan);
	return st;
}

void test_net_run(test_net *t, sim_time until)
{
	/* An idle engine leaves the clock at its last event: move it on to `until`. */
	if (sim_engine_run(t->eng, until, 0) == SIM_RUN_IDLE && sim_now(t->eng) < until)
		sim_engine_advance(t->eng, until);
}

void test_net_free(test_net *t)
{
	for (size_t i = 0; i < t->n_wires; i++)
		test_wire_free(t->wires[i]);
	for (size_t i = 0; i < t->n_stacks; i++)
		stack_free(t->stacks[i]);
	sim_engine_free(t->eng);
	t->n_wires = t->n_stacks = 0;
}
