/* Stacks: configuration and personalities, SMC-R settings, stable MACs, independence
 * of stacks in one run, and determinism (same seed, same frames and fingerprint). */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "sim/app/app.h"
#include "sim/net/stack.h"
#include "sim/net/tcp.h"
#include "tests/support/net.h"

Test(stack, personalities_bring_their_defaults)
{
	stack_config l, z;
	stack_config_defaults(&l, STACK_LINUX);
	stack_config_defaults(&z, STACK_ZOS);
	cr_assert(l.tcp.sack && l.tcp.timestamps);
	cr_assert_not(z.tcp.sack || z.tcp.timestamps);
	cr_assert_eq(l.tcp.msl * 2, 60 * SIM_S);
	cr_assert_eq(z.tcp.fin_wait2_timeout, 600 * SIM_S);
	cr_assert_eq(z.arp.timeout, 20 * 60 * SIM_S);
	cr_assert_not(l.smcr.enabled || z.smcr.enabled);
	cr_assert_eq(z.smcr.mtu, 1024);
	cr_assert_eq(z.smcr.fixed_memory, 256ull << 20);
	cr_assert_eq(z.smcr.tcp_keepalive_interval, 300 * SIM_S);
	cr_assert_str_eq(stack_personality_name(STACK_ZOS), "zos");
}

Test(stack, smcr_configuration_is_stored_and_validated)
{
	sim_engine *eng = sim_engine_new(1);
	stack *st = stack_new(eng, "zos1", STACK_ZOS, NULL);
	smcr_config *c = stack_smcr(st);
	c->enabled = true;
	cr_assert_eq(smcr_config_add_pfid(c, 0x0018, 1, 0), 0);
	cr_assert_eq(smcr_config_add_pfid(c, 0x0019, 2, 2048), 0);
	cr_assert_eq(smcr_config_add_pfid(c, 0x001a, 3, 0), -EINVAL, "ports are 1 or 2");
	cr_assert_eq(c->n_pfids, 2);
	cr_assert_eq(c->pfids[1].pfid, 0x0019);
	cr_assert_eq(c->pfids[1].mtu, 2048);
	cr_assert_eq(smcr_config_exclude_port(c, 21), 0);
	cr_assert_eq(smcr_config_exclude_port(c, 21), 0, "idempotent");
	cr_assert_eq(c->n_excluded_ports, 1);
	cr_assert(smcr_config_port_excluded(c, 21));
	cr_assert_not(smcr_config_port_excluded(c, 22));
	c->v2 = true;
	cr_assert_eq(smcr_config_add_ueid(c, "SMCV2-UEID-1"), 0);
	cr_assert_eq(smcr_config_add_ueid(c, ""), -EINVAL);
	cr_assert_eq(smcr_config_add_ueid(c, "123456789012345678901234567890123"), -EINVAL, "33 chars");
	cr_assert_str_eq(c->ueids[0], "SMCV2-UEID-1");
	c->v2_ipaddr = IPV4(10, 1, 1, 1);
	for (int i = 0; i < 14; i++)
		smcr_config_add_pfid(c, (uint16_t)(0x100 + i), 1, 0);
	cr_assert_eq(smcr_config_add_pfid(c, 0x200, 1, 0), -ENOSPC);
	stack_free(st);
	sim_engine_free(eng);
}

Test(stack, macs_are_stable_local_and_distinct)
{
	sim_engine *e1 = sim_engine_new(1), *e2 = sim_engine_new(99);
	stack *a1 = stack_new(e1, "alpha", STACK_LINUX, NULL);
	stack *a2 = stack_new(e2, "alpha", STACK_LINUX, NULL);
	stack *b1 = stack_new(e1, "beta", STACK_LINUX, NULL);
	netif *x = stack_add_netif(a1, "eth0", NULL, 1500, 0);
	netif *y = stack_add_netif(a2, "eth0", NULL, 1500, 0);
	netif *z = stack_add_netif(b1, "eth0", NULL, 1500, 0);
	netif *x2 = stack_add_netif(a1, "eth1", NULL, 9000, 5);
	cr_assert_arr_eq(x->mac, y->mac, 6, "a name gives the same MAC in every run");
	cr_assert(memcmp(x->mac, z->mac, 6));
	cr_assert(memcmp(x->mac, x2->mac, 6));
	cr_assert_eq(x->mac[0], 0x02, "locally administered unicast");
	cr_assert_eq(stack_netif(a1, "eth1"), x2);
	cr_assert_null(stack_netif(a1, "eth9"));
	cr_assert_null(stack_add_netif(a1, "bad", NULL, 1500, 4095), "VLAN ids end at 4094");
	cr_assert_null(stack_add_netif(a1, "bad", NULL, 9500, 0));
	cr_assert_eq(netif_set_ipv4(x, IPV4(10, 0, 0, 1), 33), -EINVAL);
	stack_free(a1);
	stack_free(a2);
	stack_free(b1);
	sim_engine_free(e1);
	sim_engine_free(e2);
}

/* A busy little run: bulk under loss plus request/response, on two wires. */
typedef struct run_result {
	uint64_t wire_hash[2];
	uint64_t fingerprint;
	uint64_t events;
} run_result;

static void busy_run(uint64_t seed, bool with_second_pair, run_result *out)
{
	test_net n;
	test_net_init(&n, seed, 40 * SIM_US, (sim_ratio){ 5, 100 });
	stack *a = test_net_add_stack(&n, "a", STACK_LINUX, IPV4(10, 0, 0, 1), 24, 0);
	stack *b = test_net_add_stack(&n, "b", STACK_ZOS, IPV4(10, 0, 0, 2), 24, 0);
	int err;
	app_listener *k = app_serve(b, NULL, 1, APP_SINK, NULL, 11, &err);
	app_flow *s = app_connect(a, NULL, IPV4(10, 0, 0, 2), 1,
	                          &(app_spec){ .kind = APP_BULK, .bytes = 300000, .close_after = true }, 11, &err);
	app_spec rr = { .kind = APP_RR, .request = 2000, .response = 2000, .count = 20, .close_after = true };
	app_listener *e = app_serve(a, NULL, 7, APP_RESPONDER, &rr, 12, &err);
	app_flow *r = app_connect(b, NULL, IPV4(10, 0, 0, 1), 7, &rr, 12, &err);
	app_listener *k2 = NULL;
	app_flow *s2 = NULL;
	if (with_second_pair) {
		test_wire *w2 = test_net_add_wire(&n, "lan1", 10 * SIM_US, (sim_ratio){ 10, 100 });
		stack *c = stack_new(n.eng, "c", STACK_LINUX, NULL);
		stack *d = stack_new(n.eng, "d", STACK_LINUX, NULL);
		n.stacks[n.n_stacks++] = c;
		n.stacks[n.n_stacks++] = d;
		test_net_add_netif(&n, c, w2, "eth0", IPV4(10, 0, 0, 1), 24, 0);
		test_net_add_netif(&n, d, w2, "eth0", IPV4(10, 0, 0, 2), 24, 0);
		k2 = app_serve(d, NULL, 1, APP_SINK, NULL, 5, &err);
		s2 = app_connect(c, NULL, IPV4(10, 0, 0, 2), 1,
		                 &(app_spec){ .kind = APP_BULK, .bytes = 200000, .close_after = true }, 5, &err);
	}
	test_net_run(&n, 600 * SIM_S);
	cr_assert(app_end_done(&s->c));
	cr_assert(app_end_done(&r->c));
	cr_assert_eq(app_serve_stats_get(k).mismatches, 0);
	if (s2)
		cr_assert(app_end_done(&s2->c));
	out->wire_hash[0] = test_wire_hash(n.wires[0]);
	out->wire_hash[1] = with_second_pair ? test_wire_hash(n.wires[1]) : 0;
	out->fingerprint = sim_engine_fingerprint(n.eng);
	out->events = sim_engine_events_run(n.eng);
	app_connect_free(s);
	app_listener_close(k);
	app_connect_free(r);
	app_listener_close(e);
	app_connect_free(s2);
	app_listener_close(k2);
	test_net_free(&n);
}

Test(stack, same_seed_gives_identical_frames_and_fingerprint)
{
	run_result x, y;
	busy_run(2024, false, &x);
	busy_run(2024, false, &y);
	cr_assert_eq(x.wire_hash[0], y.wire_hash[0]);
	cr_assert_eq(x.fingerprint, y.fingerprint);
	cr_assert_eq(x.events, y.events);
}

Test(stack, different_seed_gives_a_different_run)
{
	run_result x, y;
	busy_run(2024, false, &x);
	busy_run(2025, false, &y);
	cr_assert_neq(x.wire_hash[0], y.wire_hash[0]);
	cr_assert_neq(x.fingerprint, y.fingerprint);
}

Test(stack, other_stacks_in_the_run_do_not_change_a_pair_s_frames)
{
	run_result alone, crowded;
	busy_run(7, false, &alone);
	busy_run(7, true, &crowded);
	cr_assert_eq(alone.wire_hash[0], crowded.wire_hash[0],
	             "stacks own their random streams and state: no shared globals");
	cr_assert_neq(crowded.wire_hash[1], 0);
}
