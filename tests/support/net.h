/* A small test network: an engine, one test wire, and stacks with one interface each on
 * that wire. Teardown order is handled here (wire, stacks, engine). */
#ifndef TESTS_SUPPORT_NET_H
#define TESTS_SUPPORT_NET_H

#include <stdint.h>

#include "sim/engine/engine.h"
#include "sim/net/stack.h"
#include "tests/support/wire.h"

#define TEST_NET_MAX_STACKS 8
#define TEST_NET_MAX_WIRES 4

typedef struct test_net {
	sim_engine *eng;
	test_wire *wires[TEST_NET_MAX_WIRES];
	size_t n_wires;
	stack *stacks[TEST_NET_MAX_STACKS];
	size_t n_stacks;
} test_net;

/* An engine with the seed and one wire ("lan0"). */
void test_net_init(test_net *t, uint64_t seed, sim_time latency, sim_ratio loss);
test_wire *test_net_add_wire(test_net *t, const char *name, sim_time latency, sim_ratio loss);
/* A stack with interface "eth0" (MTU 1500) on wire 0 with address ip/plen. */
stack *test_net_add_stack(test_net *t, const char *name, stack_personality p, uint32_t ip, uint8_t plen,
                          uint16_t vlan);
/* Another interface on stack st, attached to wire w. */
netif *test_net_add_netif(test_net *t, stack *st, test_wire *w, const char *ifname, uint32_t ip,
                          uint8_t plen, uint16_t vlan);
/* Run the engine until `until` (absolute); the clock ends at `until`. */
void test_net_run(test_net *t, sim_time until);
void test_net_free(test_net *t);

#endif
