/* ARP: resolution, retries after a lost request or reply, held packets, expiry, failure. */
#include <criterion/criterion.h>
#include <errno.h>

#include "model/byteorder.h"
#include "sim/net/arp.h"
#include "sim/net/stack.h"
#include "tests/support/capture.h"
#include "tests/support/net.h"

#define A_IP IPV4(10, 1, 0, 1)
#define B_IP IPV4(10, 1, 0, 2)
#define LAT (20 * SIM_US)

typedef struct arp_net {
	test_net net;
	stack *a, *b;
	capture cap;
} arp_net;

static void arp_net_init(arp_net *t, uint64_t seed)
{
	test_net_init(&t->net, seed, LAT, (sim_ratio){ 0, 1 });
	t->a = test_net_add_stack(&t->net, "a", STACK_LINUX, A_IP, 24, 0);
	t->b = test_net_add_stack(&t->net, "b", STACK_LINUX, B_IP, 24, 0);
	capture_init(&t->cap, t->net.eng, t->a->netifs[0], true, true);
}

static void arp_net_free(arp_net *t)
{
	capture_free(&t->cap);
	test_net_free(&t->net);
}

static uint16_t arp_op(const cap_frame *f)
{
	uint16_t vlan;
	if (cap_ethertype(f, &vlan) != 0x0806)
		return 0;
	return get_be16(f->data + (vlan ? 18 : 14) + 6);
}

typedef struct drop_arp {
	uint16_t op; /* drop frames with this ARP opcode */
	int left;    /* this many */
} drop_arp;

static bool drop_arp_fn(void *ctx, const netif *from, const uint8_t *frame, size_t len, uint64_t index)
{
	(void)from;
	(void)index;
	drop_arp *d = ctx;
	cap_frame f = { .len = len, .data = (uint8_t *)frame };
	if (d->left > 0 && arp_op(&f) == d->op) {
		d->left--;
		return true;
	}
	return false;
}

Test(arp, resolves_the_next_hop_before_the_first_packet)
{
	arp_net t;
	arp_net_init(&t, 1);
	cr_assert_eq(stack_ping(t.a, B_IP, 1), 0);
	test_net_run(&t.net, SIM_MS);
	cr_assert_eq(t.a->icmp.echo_replies_received, 1);
	cr_assert_geq(t.cap.n, 4);
	cr_assert_eq(arp_op(&t.cap.f[0]), 1, "a broadcasts a request first");
	cr_assert_eq(memcmp(t.cap.f[0].data, "\xff\xff\xff\xff\xff\xff", 6), 0);
	cr_assert_eq(t.cap.f[0].len, 60, "padded to the Ethernet minimum");
	cr_assert_eq(arp_op(&t.cap.f[1]), 2, "b answers");
	uint8_t mac[6];
	cr_assert(arp_lookup(t.a->netifs[0], B_IP, mac));
	cr_assert_arr_eq(mac, t.b->netifs[0]->mac, 6);
	cr_assert(arp_lookup(t.b->netifs[0], A_IP, mac), "b learned a from its request");
	cr_assert_eq(t.a->netifs[0]->arp.ctr.requests_sent, 1);
	cr_assert_eq(t.b->netifs[0]->arp.ctr.replies_sent, 1);
	cr_assert_eq(t.b->netifs[0]->arp.ctr.requests_sent, 0, "b needs no request to answer");
	arp_net_free(&t);
}

static void lost_once(uint16_t op, uint64_t seed)
{
	arp_net t;
	arp_net_init(&t, seed);
	drop_arp d = { .op = op, .left = 1 };
	test_wire_set_drop(t.net.wires[0], drop_arp_fn, &d);
	cr_assert_eq(stack_ping(t.a, B_IP, 1), 0);
	test_net_run(&t.net, 999 * SIM_MS);
	cr_assert_eq(t.a->icmp.echo_replies_received, 0, "held while unresolved");
	cr_assert_eq(t.a->netifs[0]->arp.ctr.requests_sent, 1);
	test_net_run(&t.net, 1001 * SIM_MS);
	cr_assert_eq(t.a->netifs[0]->arp.ctr.requests_sent, 2, "retried after 1 s");
	cr_assert_eq(t.a->icmp.echo_replies_received, 1, "the held ping went out once resolved");
	cr_assert_eq(t.a->netifs[0]->arp.ctr.held_dropped, 0);
	arp_net_free(&t);
}

Test(arp, lost_request_is_retried)
{
	lost_once(1, 2);
}

Test(arp, lost_reply_is_retried)
{
	lost_once(2, 3);
}

Test(arp, holds_several_packets_and_sends_them_in_order)
{
	arp_net t;
	arp_net_init(&t, 4);
	for (uint16_t i = 1; i <= 3; i++)
		cr_assert_eq(stack_ping(t.a, B_IP, i), 0);
	test_net_run(&t.net, SIM_MS);
	cr_assert_eq(t.a->icmp.echo_replies_received, 3);
	cr_assert_eq(t.a->icmp.last_reply_seq, 3);
	cr_assert_eq(t.a->netifs[0]->arp.ctr.requests_sent, 1, "one request for all three");
	arp_net_free(&t);
}

Test(arp, queue_keeps_the_newest_packets_when_full)
{
	arp_net t;
	arp_net_init(&t, 5);
	t.a->cfg.arp.queue_len = 3; /* the mechanism, not the default (101, as Linux) */
	for (uint16_t i = 1; i <= 5; i++)
		stack_ping(t.a, B_IP, i);
	test_net_run(&t.net, SIM_MS);
	cr_assert_eq(t.a->netifs[0]->arp.ctr.held_dropped, 2, "queue of 3");
	cr_assert_eq(t.a->icmp.echo_replies_received, 3);
	cr_assert_eq(t.a->icmp.last_reply_seq, 5);
	arp_net_free(&t);
}

Test(arp, gives_up_after_three_requests_and_drops_what_it_held)
{
	arp_net t;
	arp_net_init(&t, 6);
	cr_assert_eq(stack_ping(t.a, IPV4(10, 1, 0, 99), 1), 0);
	test_net_run(&t.net, 10 * SIM_S);
	const arp_counters *c = &t.a->netifs[0]->arp.ctr;
	cr_assert_eq(c->requests_sent, 3);
	cr_assert_eq(c->failed, 1);
	cr_assert_eq(c->held_dropped, 1);
	cr_assert_eq(t.a->netifs[0]->arp.n, 0, "a failed entry is forgotten");
	arp_net_free(&t);
}

Test(arp, resolved_entry_expires_and_is_resolved_again)
{
	arp_net t;
	arp_net_init(&t, 7);
	stack_ping(t.a, B_IP, 1);
	test_net_run(&t.net, SIM_S);
	uint8_t mac[6];
	cr_assert(arp_lookup(t.a->netifs[0], B_IP, mac));
	test_net_run(&t.net, 61 * SIM_S);
	cr_assert_not(arp_lookup(t.a->netifs[0], B_IP, mac), "60 s Linux-like lifetime");
	stack_ping(t.a, B_IP, 2);
	test_net_run(&t.net, 62 * SIM_S);
	cr_assert_eq(t.a->netifs[0]->arp.ctr.requests_sent, 2);
	cr_assert_eq(t.a->icmp.echo_replies_received, 2);
	arp_net_free(&t);
}

Test(arp, malformed_packets_are_counted_and_ignored)
{
	arp_net t;
	arp_net_init(&t, 8);
	netif *nb = t.b->netifs[0];
	uint8_t f[60] = { 0 };
	memcpy(f, "\xff\xff\xff\xff\xff\xff", 6);
	memcpy(f + 6, "\x02\x00\x00\x00\x00\x01", 6);
	f[12] = 0x08;
	f[13] = 0x06;
	f[14] = 0x00;
	f[15] = 0x06; /* hardware type 6: not Ethernet */
	netif_input(nb, f, sizeof f);
	netif_input(nb, f, 20); /* truncated */
	cr_assert_eq(nb->arp.ctr.malformed, 2);
	cr_assert_eq(nb->arp.n, 0);
	arp_net_free(&t);
}

/* An ARP request from (mac, ip) for tpa, as it arrives on the wire. */
static void inject_request(netif *nif, const uint8_t mac[6], uint32_t ip, uint32_t tpa)
{
	uint8_t f[60] = { 0 };
	memset(f, 0xff, 6);
	memcpy(f + 6, mac, 6);
	put_be16(f + 12, 0x0806);
	uint8_t *m = f + 14;
	put_be16(m, 1);
	put_be16(m + 2, 0x0800);
	m[4] = 6;
	m[5] = 4;
	put_be16(m + 6, 1);
	memcpy(m + 8, mac, 6);
	put_be32(m + 14, ip);
	put_be32(m + 24, tpa);
	netif_input(nif, f, sizeof f);
}

Test(arp, many_neighbours_each_found_and_the_oldest_evicted_when_full)
{
	arp_net t;
	arp_net_init(&t, 9);
	netif *na = t.a->netifs[0];
	t.a->cfg.arp.cache_size = 100;
	for (uint32_t i = 0; i < 200; i++) {
		uint8_t mac[6] = { 0x02, 0x10, 0, 0, (uint8_t)(i >> 8), (uint8_t)i };
		inject_request(na, mac, IPV4(10, 1, 0, 10) + i, A_IP);
	}
	test_net_run(&t.net, SIM_MS);
	cr_assert_eq(na->arp.n, 100);
	cr_assert_eq(na->arp.ctr.evicted, 100);
	for (uint32_t i = 0; i < 200; i++) {
		uint8_t mac[6];
		bool known = arp_lookup(na, IPV4(10, 1, 0, 10) + i, mac);
		cr_assert_eq(known, i >= 100, "neighbour %u", i);
		if (known)
			cr_assert_eq(mac[5], (uint8_t)i);
	}
	/* an evicted neighbour talks again: learned anew, the oldest remaining one goes */
	uint8_t mac0[6] = { 0x02, 0x10, 0, 0, 0, 0x77 };
	inject_request(na, mac0, IPV4(10, 1, 0, 10), A_IP);
	uint8_t mac[6];
	cr_assert(arp_lookup(na, IPV4(10, 1, 0, 10), mac));
	cr_assert_eq(mac[5], 0x77);
	cr_assert_not(arp_lookup(na, IPV4(10, 1, 0, 110), mac));
	cr_assert(arp_lookup(na, IPV4(10, 1, 0, 111), mac));
	cr_assert_eq(na->arp.n, 100);
	arp_net_free(&t);
}
