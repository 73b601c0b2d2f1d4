/* IPv4 and Ethernet: VLAN separation, routing through a forwarding stack, TTL, DF,
 * checksums, ICMP echo, loopback. */
#include <criterion/criterion.h>
#include <errno.h>

#include "model/byteorder.h"
#include "sim/app/app.h"
#include "sim/net/icmp.h"
#include "sim/net/inet_csum.h"
#include "sim/net/stack.h"
#include "sim/net/tcp.h"
#include "tests/support/capture.h"
#include "tests/support/net.h"

#define LAT (20 * SIM_US)
static const sim_ratio no_loss = { 0, 1 };

/* (printing them is sim/addr's: tests/sim/addr/test_addr_text.c) */
Test(ipv4, parses_dotted_quads)
{
	uint32_t a;
	cr_assert(ipv4_pton("192.168.7.254", &a));
	cr_assert_eq(a, IPV4(192, 168, 7, 254));
	cr_assert_not(ipv4_pton("192.168.7", &a));
	cr_assert_not(ipv4_pton("256.1.1.1", &a));
	cr_assert_not(ipv4_pton("1.2.3.4x", &a));
	cr_assert_not(ipv4_pton("", &a));
}

Test(ipv4, checksum_matches_the_rfc1071_example)
{
	/* RFC 1071 section 3: the words 0001 f203 f4f5 f6f7 sum to ddf2 (one's complement) */
	const uint8_t d[] = { 0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7 };
	cr_assert_eq(inet_csum(d, sizeof d), (uint16_t)~0xddf2);
}

Test(ipv4, stacks_on_different_vlans_cannot_talk)
{
	test_net n;
	test_net_init(&n, 1, LAT, no_loss);
	stack *a = test_net_add_stack(&n, "a", STACK_LINUX, IPV4(10, 2, 0, 1), 24, 10);
	stack *b = test_net_add_stack(&n, "b", STACK_LINUX, IPV4(10, 2, 0, 2), 24, 20);
	stack_ping(a, IPV4(10, 2, 0, 2), 1);
	test_net_run(&n, 5 * SIM_S);
	cr_assert_eq(a->icmp.echo_replies_received, 0);
	cr_assert_eq(b->icmp.echo_requests_received, 0);
	cr_assert_eq(b->netifs[0]->ctr.rx_vlan_mismatch, 3, "three ARP requests tagged 10");
	cr_assert_eq(a->netifs[0]->arp.ctr.failed, 1);
	test_net_free(&n);
}

Test(ipv4, stacks_on_the_same_vlan_talk_with_tagged_frames)
{
	test_net n;
	test_net_init(&n, 2, LAT, no_loss);
	stack *a = test_net_add_stack(&n, "a", STACK_LINUX, IPV4(10, 2, 0, 1), 24, 10);
	test_net_add_stack(&n, "b", STACK_LINUX, IPV4(10, 2, 0, 2), 24, 10);
	stack *c = test_net_add_stack(&n, "c", STACK_LINUX, IPV4(10, 2, 0, 3), 24, 0);
	capture cap;
	capture_init(&cap, n.eng, a->netifs[0], true, true);
	stack_ping(a, IPV4(10, 2, 0, 2), 1);
	test_net_run(&n, SIM_S);
	cr_assert_eq(a->icmp.echo_replies_received, 1);
	cr_assert_geq(cap.n, 4);
	for (size_t i = 0; i < cap.n; i++) {
		uint16_t vlan;
		cap_ethertype(&cap.f[i], &vlan);
		cr_assert_eq(vlan, 10, "frame %zu", i);
		cr_assert_eq(get_be16(cap.f[i].data + 12), 0x8100);
	}
	cr_assert_gt(c->netifs[0]->ctr.rx_vlan_mismatch, 0, "the untagged stack drops tagged frames");
	capture_free(&cap);
	test_net_free(&n);
}

/* a -- lan1 -- r -- lan2 -- b, with r forwarding */
typedef struct routed {
	test_net net;
	stack *a, *r, *b;
	netif *r2;
} routed;

static void routed_init(routed *t, uint64_t seed, bool forwarding)
{
	test_net_init(&t->net, seed, LAT, no_loss);
	test_wire *lan2 = test_net_add_wire(&t->net, "lan2", LAT, no_loss);
	t->a = test_net_add_stack(&t->net, "a", STACK_ZOS, IPV4(10, 0, 1, 1), 24, 0);
	t->r = test_net_add_stack(&t->net, "r", STACK_LINUX, IPV4(10, 0, 1, 254), 24, 0);
	t->r2 = test_net_add_netif(&t->net, t->r, lan2, "eth1", IPV4(10, 0, 2, 254), 24, 0);
	t->b = stack_new(t->net.eng, "b", STACK_LINUX, NULL);
	t->net.stacks[t->net.n_stacks++] = t->b;
	test_net_add_netif(&t->net, t->b, lan2, "eth0", IPV4(10, 0, 2, 1), 24, 0);
	stack_set_default_gateway(t->a, IPV4(10, 0, 1, 254));
	stack_add_route(t->b, IPV4(10, 0, 1, 0), 24, IPV4(10, 0, 2, 254));
	stack_set_forwarding(t->r, forwarding);
}

Test(ipv4, routes_through_a_forwarding_stack)
{
	routed t;
	routed_init(&t, 3, true);
	capture cap;
	capture_init(&cap, t.net.eng, t.b->netifs[0], false, true);
	sock_opts o;
	sock_opts_default(&o);
	int err;
	app_listener *k = app_serve(t.b, &o, 7000, APP_SINK, NULL, 9, &err);
	app_flow *s = app_connect(t.a, &o, IPV4(10, 0, 2, 1), 7000,
	                          &(app_spec){ .kind = APP_BULK, .bytes = 1u << 20, .close_after = true }, 9, &err);
	cr_assert_not_null(s);
	test_net_run(&t.net, 30 * SIM_S);
	cr_assert(app_end_done(&s->c));
	cr_assert_eq(app_serve_stats_get(k).bytes_in, 1u << 20);
	cr_assert_eq(app_serve_stats_get(k).mismatches, 0);
	cr_assert_gt(t.r->ip.forwarded, 700);
	cap_tcp seg;
	cr_assert_geq(cap_find_tcp(&cap, 0, 0x02, 0, &seg), 0);
	cr_assert_eq(seg.ttl, 63, "one hop: TTL 64 - 1");
	cr_assert_eq(seg.src, IPV4(10, 0, 1, 1));
	app_connect_free(s);
	app_listener_close(k);
	capture_free(&cap);
	test_net_free(&t.net);
}

Test(ipv4, a_stack_without_forwarding_drops_transit_packets)
{
	routed t;
	routed_init(&t, 4, false);
	stack_ping(t.a, IPV4(10, 0, 2, 1), 1);
	test_net_run(&t.net, SIM_S);
	cr_assert_eq(t.a->icmp.echo_replies_received, 0);
	cr_assert_eq(t.r->ip.in_not_ours, 1);
	cr_assert_eq(t.r->ip.forwarded, 0);
	test_net_free(&t.net);
}

Test(ipv4, expired_ttl_is_answered_with_time_exceeded)
{
	routed t;
	routed_init(&t, 5, true);
	t.a->cfg.ip.ttl = 1;
	stack_ping(t.a, IPV4(10, 0, 2, 1), 1);
	test_net_run(&t.net, SIM_S);
	cr_assert_eq(t.r->ip.fwd_ttl_expired, 1);
	cr_assert_eq(t.a->icmp.errors_received, 1);
	cr_assert_eq(t.b->icmp.echo_requests_received, 0);
	test_net_free(&t.net);
}

Test(ipv4, oversized_df_packet_gets_fragmentation_needed)
{
	routed t;
	routed_init(&t, 6, true);
	t.r2->mtu = 1000;
	capture cap;
	capture_init(&cap, t.net.eng, t.a->netifs[0], false, true);
	cr_assert_eq(icmp_send_echo(t.a, IPV4(10, 0, 2, 1), 1, 1, 1200), 0);
	test_net_run(&t.net, SIM_S);
	cr_assert_eq(t.r->ip.fwd_too_big, 1);
	cr_assert_eq(t.a->icmp.errors_received, 1);
	/* find the ICMP error and its next-hop MTU */
	bool found = false;
	for (size_t i = 0; i < cap.n; i++) {
		const uint8_t *ip = cap.f[i].data + 14;
		if (cap.f[i].len < 14 + 28 || get_be16(cap.f[i].data + 12) != 0x0800 || ip[9] != 1)
			continue;
		const uint8_t *icmp = ip + 20;
		if (icmp[0] == ICMP_DEST_UNREACH && icmp[1] == ICMP_FRAG_NEEDED) {
			cr_assert_eq(get_be16(icmp + 6), 1000);
			found = true;
		}
	}
	cr_assert(found);
	cr_assert_eq(icmp_send_echo(t.a, IPV4(10, 0, 2, 1), 1, 2, 1500), -EMSGSIZE, "larger than our own MTU");
	capture_free(&cap);
	test_net_free(&t.net);
}

Test(ipv4, longest_prefix_wins_and_unroutable_is_refused)
{
	test_net n;
	test_net_init(&n, 7, LAT, no_loss);
	stack *a = test_net_add_stack(&n, "a", STACK_LINUX, IPV4(10, 3, 0, 1), 24, 0);
	netif *nif;
	uint32_t hop;
	cr_assert_not(route_lookup(&a->routes, IPV4(192, 168, 1, 1), &nif, &hop));
	cr_assert_eq(stack_ping(a, IPV4(192, 168, 1, 1), 1), -EHOSTUNREACH);
	stack_set_default_gateway(a, IPV4(10, 3, 0, 254));
	stack_add_route(a, IPV4(192, 168, 0, 0), 16, IPV4(10, 3, 0, 253));
	cr_assert(route_lookup(&a->routes, IPV4(192, 168, 1, 1), &nif, &hop));
	cr_assert_eq(hop, IPV4(10, 3, 0, 253));
	cr_assert(route_lookup(&a->routes, IPV4(8, 8, 8, 8), &nif, &hop));
	cr_assert_eq(hop, IPV4(10, 3, 0, 254));
	cr_assert(route_lookup(&a->routes, IPV4(10, 3, 0, 77), &nif, &hop));
	cr_assert_eq(hop, IPV4(10, 3, 0, 77), "connected: the destination itself");
	cr_assert_eq(nif, a->netifs[0]);
	stack_set_default_gateway(a, IPV4(10, 3, 0, 252));
	cr_assert(route_lookup(&a->routes, IPV4(8, 8, 8, 8), &nif, &hop));
	cr_assert_eq(hop, IPV4(10, 3, 0, 252), "the default gateway is replaced, not added");
	test_net_free(&n);
}

Test(ipv4, bad_checksum_and_fragments_are_dropped_and_counted)
{
	test_net n;
	test_net_init(&n, 8, LAT, no_loss);
	stack *a = test_net_add_stack(&n, "a", STACK_LINUX, IPV4(10, 4, 0, 1), 24, 0);
	netif *nif = a->netifs[0];
	uint8_t f[14 + 28] = { 0 };
	memcpy(f, nif->mac, 6);
	f[12] = 0x08;
	uint8_t *ip = f + 14;
	ip[0] = 0x45;
	put_be16(ip + 2, 28);
	ip[8] = 64;
	ip[9] = 1;
	put_be32(ip + 12, IPV4(10, 4, 0, 2));
	put_be32(ip + 16, IPV4(10, 4, 0, 1));
	put_be16(ip + 10, 0x1234); /* wrong */
	netif_input(nif, f, sizeof f);
	cr_assert_eq(a->ip.in_bad_checksum, 1);
	put_be16(ip + 10, 0);
	put_be16(ip + 6, 0x2000); /* more fragments */
	put_be16(ip + 10, inet_csum(ip, 20));
	netif_input(nif, f, sizeof f);
	cr_assert_eq(a->ip.in_fragments_dropped, 1);
	put_be16(ip + 2, 4000); /* longer than the frame */
	netif_input(nif, f, sizeof f);
	cr_assert_eq(a->ip.in_malformed, 1);
	cr_assert_eq(a->ip.in_delivered, 0);
	test_net_free(&n);
}

Test(ipv4, a_stack_talks_to_itself_through_loopback)
{
	test_net n;
	test_net_init(&n, 9, LAT, no_loss);
	stack *a = test_net_add_stack(&n, "a", STACK_LINUX, IPV4(10, 5, 0, 1), 24, 0);
	sock_opts o;
	sock_opts_default(&o);
	int err;
	app_listener *k = app_serve(a, &o, 80, APP_SINK, NULL, 5, &err);
	app_flow *s = app_connect(a, &o, IPV4(10, 5, 0, 1), 80,
	                          &(app_spec){ .kind = APP_BULK, .bytes = 100000, .close_after = true }, 5, &err);
	test_net_run(&n, SIM_S);
	cr_assert(app_end_done(&s->c));
	cr_assert_eq(app_serve_stats_get(k).bytes_in, 100000);
	cr_assert_eq(a->netifs[0]->ctr.tx_frames, 0, "nothing left through the interface");
	cr_assert_gt(a->ip.loopback, 0);
	app_connect_free(s);
	app_listener_close(k);
	test_net_free(&n);
}
