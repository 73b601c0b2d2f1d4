/* Stacks on the real simulated fabric (sim/fabric/switch.h, sim/fabric/wire.h) through the netif
 * adapter: TCP over a faulty wire (loss, duplicates, reordering, bit flips), VLANs on a
 * switch with access and trunk ports. */
#include <criterion/criterion.h>

#include "sim/app/app.h"
#include "sim/fabric/fabric.h"
#include "sim/net/netif_fabric.h"
#include "sim/net/stack.h"
#include "sim/fabric/switch.h"
#include "sim/net/tcp.h"
#include "sim/fabric/wire.h"

#define MAX_PORTS 4

typedef struct fab_net {
	sim_engine *eng;
	sim_fabric *fab;
	stack *st[MAX_PORTS];
	netif_fabric_port port[MAX_PORTS];
	int n;
} fab_net;

static void fab_init(fab_net *t, uint64_t seed)
{
	t->eng = sim_engine_new(seed);
	t->fab = sim_fabric_new(t->eng);
	t->n = 0;
}

static stack *fab_stack(fab_net *t, const char *name, uint32_t ip, uint16_t vlan, sim_plug *where)
{
	stack *st = stack_new(t->eng, name, STACK_LINUX, NULL);
	netif *nif = stack_add_netif(st, "osa0", NULL, 1500, vlan);
	cr_assert_eq(netif_set_ipv4(nif, ip, 24), 0);
	cr_assert_eq(netif_fabric_attach(&t->port[t->n], nif, t->fab, where), 0);
	t->st[t->n++] = st;
	return st;
}

static void fab_free(fab_net *t)
{
	for (int i = 0; i < t->n; i++) {
		netif_fabric_detach(&t->port[i]);
		stack_free(t->st[i]);
	}
	sim_fabric_free(t->fab);
	sim_engine_free(t->eng);
}

Test(netif_fabric, tcp_survives_loss_duplicates_reordering_and_bit_flips_on_a_wire)
{
	fab_net t;
	fab_init(&t, 1);
	sim_wire_params wp;
	sim_wire_params_default(&wp);
	wp.bandwidth_bps = 10ull * 1000 * 1000 * 1000;
	wp.latency = 20 * SIM_US;
	wp.loss = (sim_ratio){ 2, 100 };
	wp.duplicate = (sim_ratio){ 2, 100 };
	wp.reorder = (sim_ratio){ 5, 100 };
	wp.reorder_delay = 100 * SIM_US;
	wp.corrupt = (sim_ratio){ 1, 100 };
	sim_wire *w = sim_wire_new(t.fab, "a-b", &wp);
	stack *a = fab_stack(&t, "a", IPV4(10, 0, 0, 1), 0, sim_wire_end(w, 0));
	stack *b = fab_stack(&t, "b", IPV4(10, 0, 0, 2), 0, sim_wire_end(w, 1));
	int err;
	app_listener *k = app_serve(b, NULL, 5000, APP_SINK, NULL, 3, &err);
	app_flow *s = app_connect(a, NULL, IPV4(10, 0, 0, 2), 5000,
	                          &(app_spec){ .kind = APP_BULK, .bytes = 2u << 20, .close_after = true }, 3, &err);
	sim_engine_run(t.eng, 3600 * SIM_S, 0);
	cr_assert(app_end_done(&s->c), "err %d", s->c.err);
	cr_assert_eq(app_serve_stats_get(k).bytes_in, 2u << 20);
	cr_assert_eq(app_serve_stats_get(k).mismatches, 0);
	const sim_wire_stats *ws = sim_wire_stats_get(w, 0);
	cr_assert_gt(ws->lost, 0);
	cr_assert_gt(ws->duplicated, 0);
	cr_assert_gt(ws->reordered, 0);
	cr_assert_gt(ws->corrupted, 0);
	uint64_t caught = b->ip.in_bad_checksum + tcp_get_counters(b)->bad_checksum +
	                  b->netifs[0]->ctr.rx_not_ours + b->netifs[0]->ctr.rx_malformed +
	                  b->ip.in_malformed + b->ip.in_not_ours;
	cr_assert_gt(caught, 0, "flipped bits were caught by checksums and filters");
	/* the sender vouches for its sums (NETIF_SUMS_OK), but a flipped frame loses that on
	 * the wire: the bits that land in a payload are caught by the TCP checksum */
	cr_assert_gt(tcp_get_counters(b)->bad_checksum, 0);
	cr_assert_gt(tcp_get_counters(b)->ooo_segments, 0);
	app_connect_free(s);
	app_listener_close(k);
	fab_free(&t);
}

static sim_plug *switch_port_via_wire(fab_net *t, sim_switch *sw, uint32_t port, const char *name)
{
	sim_wire_params wp;
	sim_wire_params_default(&wp);
	sim_wire *w = sim_wire_new(t->fab, name, &wp);
	cr_assert_eq(sim_plug_connect(sim_wire_end(w, 1), sim_switch_port(sw, port)), 0);
	return sim_wire_end(w, 0);
}

Test(netif_fabric, switch_vlans_separate_stacks_and_trunks_carry_tagged_frames)
{
	fab_net t;
	fab_init(&t, 2);
	sim_switch_params sp;
	sim_switch_params_default(&sp);
	sim_switch *sw = sim_switch_new(t.fab, "sw1", &sp);
	sim_switch_port_access(sw, 0, 10);
	sim_switch_port_access(sw, 1, 10);
	sim_switch_port_access(sw, 2, 20);
	const uint16_t allowed[] = { 10 };
	sim_switch_port_trunk(sw, 3, 0, allowed, 1);
	stack *a = fab_stack(&t, "a", IPV4(10, 0, 0, 1), 0, switch_port_via_wire(&t, sw, 0, "w0"));
	stack *b = fab_stack(&t, "b", IPV4(10, 0, 0, 2), 0, switch_port_via_wire(&t, sw, 1, "w1"));
	stack *c = fab_stack(&t, "c", IPV4(10, 0, 0, 3), 0, switch_port_via_wire(&t, sw, 2, "w2"));
	stack *d = fab_stack(&t, "d", IPV4(10, 0, 0, 4), 10, switch_port_via_wire(&t, sw, 3, "w3"));
	int err;
	app_listener *k = app_serve(b, NULL, 80, APP_SINK, NULL, 4, &err);
	app_flow *s = app_connect(a, NULL, IPV4(10, 0, 0, 2), 80,
	                          &(app_spec){ .kind = APP_BULK, .bytes = 500000, .close_after = true }, 4, &err);
	stack_ping(a, IPV4(10, 0, 0, 3), 1); /* other VLAN */
	stack_ping(a, IPV4(10, 0, 0, 4), 2); /* same VLAN, tagged on the trunk */
	sim_engine_run(t.eng, 10 * SIM_S, 0);
	cr_assert(app_end_done(&s->c));
	cr_assert_eq(app_serve_stats_get(k).mismatches, 0);
	cr_assert_eq(c->icmp.echo_requests_received, 0);
	cr_assert_eq(d->icmp.echo_requests_received, 1);
	cr_assert_eq(a->icmp.echo_replies_received, 1);
	cr_assert_eq(a->icmp.last_reply_seq, 2);
	app_connect_free(s);
	app_listener_close(k);
	fab_free(&t);
}
