/* TCP between two stacks on a test wire: handshake and its options (the SMC option
 * included), transfers, loss, closing in every order, RST, windows. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "model/clc.h"
#include "sim/app_bulk.h"
#include "sim/sock.h"
#include "sim/stack.h"
#include "sim/tcp.h"
#include "sim/tcp_opt.h"
#include "tests/support/capture.h"
#include "tests/support/net.h"

#define A_IP IPV4(10, 0, 0, 1)
#define B_IP IPV4(10, 0, 0, 2)
#define PORT 5000
#define LAT (50 * SIM_US)

static const sim_ratio no_loss = { 0, 1 };

typedef struct two {
	test_net net;
	stack *a, *b;
	capture cap_a; /* everything stack a sends and receives */
} two;

static void two_init(two *t, uint64_t seed, sim_ratio loss, stack_personality pa, stack_personality pb)
{
	test_net_init(&t->net, seed, LAT, loss);
	t->a = test_net_add_stack(&t->net, "a", pa, A_IP, 24, 0);
	t->b = test_net_add_stack(&t->net, "b", pb, B_IP, 24, 0);
	capture_init(&t->cap_a, t->net.eng, t->a->netifs[0], true, true);
}

static void two_free(two *t)
{
	capture_free(&t->cap_a);
	test_net_free(&t->net);
}

/* ---- a minimal scripted application on raw TCP pcbs ---- */

typedef struct peer {
	tcp_pcb *pcb;          /* the connection (client, or accepted child) */
	bool connected, accepted;
	int finished;          /* 1 + err once finished */
	uint8_t rx[1 << 16];
	size_t rx_len;
	bool eof;
	bool read_enabled;
} peer;

static void p_connected(void *user, tcp_pcb *pcb)
{
	peer *p = user;
	p->pcb = pcb;
	p->connected = true;
}

static void p_readable(void *user, tcp_pcb *pcb)
{
	peer *p = user;
	if (!p->read_enabled)
		return;
	for (;;) {
		ssize_t n = tcp_read(pcb, p->rx + p->rx_len, sizeof p->rx - p->rx_len);
		if (n == 0)
			p->eof = true;
		if (n <= 0)
			break;
		p->rx_len += (size_t)n;
	}
}

static void p_finished(void *user, tcp_pcb *pcb, int err)
{
	(void)pcb;
	peer *p = user;
	p->finished = 1 + -err;
}

static const tcp_callbacks peer_cbs;

static void p_accepted(void *user, tcp_pcb *listener, tcp_pcb *child)
{
	(void)listener;
	peer *p = user;
	p->pcb = child;
	p->accepted = true;
	tcp_set_callbacks(child, &peer_cbs, p);
}

static const tcp_callbacks peer_cbs = {
	.connected = p_connected,
	.accepted = p_accepted,
	.readable = p_readable,
	.finished = p_finished,
};

/* Listener on b (SMC as asked), client on a; runs until established. */
static tcp_pcb *open_pair(two *t, peer *cli, peer *srv, bool smc_cli, bool smc_srv)
{
	cli->read_enabled = srv->read_enabled = true;
	tcp_pcb *l = tcp_new(t->b);
	tcp_set_callbacks(l, &peer_cbs, srv);
	tcp_set_smc(l, smc_srv);
	cr_assert_eq(tcp_bind(l, 0, PORT), 0);
	cr_assert_eq(tcp_listen(l, 0), 0);
	tcp_pcb *c = tcp_new(t->a);
	tcp_set_callbacks(c, &peer_cbs, cli);
	tcp_set_smc(c, smc_cli);
	cr_assert_eq(tcp_connect(c, B_IP, PORT), 0);
	cli->pcb = c;
	test_net_run(&t->net, sim_now(t->net.eng) + 10 * SIM_MS);
	cr_assert(cli->connected, "client not connected");
	cr_assert(srv->accepted, "server did not accept");
	return l;
}

Test(tcp, syn_carries_mss_sack_timestamps_wscale_and_smc_option_in_linux_order)
{
	two t;
	two_init(&t, 1, no_loss, STACK_LINUX, STACK_LINUX);
	peer cli = { 0 }, srv = { 0 };
	tcp_pcb *l = open_pair(&t, &cli, &srv, true, true);
	cap_tcp syn;
	cr_assert_geq(cap_find_tcp(&t.cap_a, 0, 0x02, 0x10, &syn), 0);
	cr_assert_eq(syn.opt_len, 28);
	const uint8_t head[] = { 0x02, 0x04, 0x05, 0xb4, 0x04, 0x02, 0x08, 0x0a };
	cr_assert_arr_eq(syn.opt, head, sizeof head, "MSS 1460 then SACK-permitted + TS");
	const uint8_t tsecr[] = { 0, 0, 0, 0 };
	cr_assert_arr_eq(syn.opt + 12, tsecr, 4, "TSecr is zero in a SYN");
	const uint8_t tail[] = { 0x01, 0x03, 0x03, 0x07, 0x01, 0x01, 0xfe, 0x06, 0xe2, 0xd4, 0xc3, 0xd9 };
	cr_assert_arr_eq(syn.opt + 16, tail, sizeof tail, "NOP WS 7, then NOP NOP 254 6 E2D4C3D9");
	cr_assert_eq(syn.wnd, 65535);
	tcp_close(l);
	two_free(&t);
}

Test(tcp, syn_ack_answers_with_the_smc_option_when_both_enable_it)
{
	two t;
	two_init(&t, 2, no_loss, STACK_LINUX, STACK_LINUX);
	peer cli = { 0 }, srv = { 0 };
	tcp_pcb *l = open_pair(&t, &cli, &srv, true, true);
	cap_tcp sa;
	cr_assert_geq(cap_find_tcp(&t.cap_a, 0, 0x12, 0, &sa), 0);
	cr_assert_eq(sa.opt_len, 28);
	const uint8_t smc[] = { 0x01, 0x01, 0xfe, 0x06, 0xe2, 0xd4, 0xc3, 0xd9 };
	cr_assert_arr_eq(sa.opt + 20, smc, sizeof smc);
	tcp_info ci, si;
	tcp_get_info(cli.pcb, &ci);
	tcp_get_info(srv.pcb, &si);
	cr_assert(ci.smc_sent && ci.smc_peer && ci.smc_negotiated);
	cr_assert(si.smc_sent && si.smc_peer && si.smc_negotiated);
	cr_assert(tcp_smc_negotiated(cli.pcb) && tcp_smc_negotiated(srv.pcb));
	cr_assert_eq(ci.snd_wscale, 7);
	cr_assert(ci.sack_ok && ci.ts_ok);
	cr_assert_eq(ci.mss, 1448, "1460 less the 12-byte timestamp option");
	cr_assert_eq(tcp_get_counters(t.b)->smc_syn_received, 1);
	tcp_close(l);
	two_free(&t);
}

Test(tcp, syn_ack_has_no_smc_option_when_the_syn_lacked_it)
{
	two t;
	two_init(&t, 3, no_loss, STACK_LINUX, STACK_LINUX);
	peer cli = { 0 }, srv = { 0 };
	tcp_pcb *l = open_pair(&t, &cli, &srv, false, true);
	cap_tcp syn, sa;
	cr_assert_geq(cap_find_tcp(&t.cap_a, 0, 0x02, 0x10, &syn), 0);
	cr_assert_eq(syn.opt_len, 20);
	cr_assert_geq(cap_find_tcp(&t.cap_a, 0, 0x12, 0, &sa), 0);
	cr_assert_eq(sa.opt_len, 20);
	tcp_opts o;
	tcp_opts_parse(sa.opt, sa.opt_len, true, &o);
	cr_assert_not(o.smc);
	cr_assert_not(tcp_smc_negotiated(cli.pcb));
	cr_assert_not(tcp_smc_negotiated(srv.pcb));
	tcp_close(l);
	two_free(&t);
}

Test(tcp, listener_without_smc_answers_without_the_option)
{
	two t;
	two_init(&t, 4, no_loss, STACK_LINUX, STACK_LINUX);
	peer cli = { 0 }, srv = { 0 };
	tcp_pcb *l = open_pair(&t, &cli, &srv, true, false);
	cap_tcp syn, sa;
	cr_assert_geq(cap_find_tcp(&t.cap_a, 0, 0x02, 0x10, &syn), 0);
	tcp_opts o;
	tcp_opts_parse(syn.opt, syn.opt_len, true, &o);
	cr_assert(o.smc);
	cr_assert_geq(cap_find_tcp(&t.cap_a, 0, 0x12, 0, &sa), 0);
	tcp_opts_parse(sa.opt, sa.opt_len, true, &o);
	cr_assert_not(o.smc);
	tcp_info ci;
	tcp_get_info(cli.pcb, &ci);
	cr_assert(ci.smc_sent);
	cr_assert_not(ci.smc_peer);
	cr_assert_not(ci.smc_negotiated);
	tcp_close(l);
	two_free(&t);
}

Test(tcp, zos_personality_offers_mss_and_window_scale_only)
{
	two t;
	two_init(&t, 5, no_loss, STACK_ZOS, STACK_LINUX);
	peer cli = { 0 }, srv = { 0 };
	tcp_pcb *l = open_pair(&t, &cli, &srv, true, true);
	cap_tcp syn;
	cr_assert_geq(cap_find_tcp(&t.cap_a, 0, 0x02, 0x10, &syn), 0);
	const uint8_t want[] = { 0x02, 0x04, 0x05, 0xb4, 0x01, 0x03, 0x03, 0x02,
	                         0x01, 0x01, 0xfe, 0x06, 0xe2, 0xd4, 0xc3, 0xd9 };
	cr_assert_eq(syn.opt_len, sizeof want);
	cr_assert_arr_eq(syn.opt, want, sizeof want);
	tcp_info ci;
	tcp_get_info(cli.pcb, &ci);
	cr_assert_not(ci.sack_ok);
	cr_assert_not(ci.ts_ok);
	cr_assert_eq(ci.mss, 1460);
	tcp_close(l);
	two_free(&t);
}

Test(tcp, isn_comes_from_the_seed)
{
	uint32_t iss[3];
	for (int i = 0; i < 3; i++) {
		two t;
		two_init(&t, i < 2 ? 77 : 78, no_loss, STACK_LINUX, STACK_LINUX);
		peer cli = { 0 }, srv = { 0 };
		tcp_pcb *l = open_pair(&t, &cli, &srv, false, false);
		tcp_info ci;
		tcp_get_info(cli.pcb, &ci);
		iss[i] = ci.iss;
		tcp_close(l);
		two_free(&t);
	}
	cr_assert_eq(iss[0], iss[1], "same seed, same ISN");
	cr_assert_neq(iss[0], iss[2], "different seed, different ISN");
}

Test(tcp, connect_to_a_closed_port_is_refused_with_rst)
{
	two t;
	two_init(&t, 6, no_loss, STACK_LINUX, STACK_LINUX);
	peer cli = { 0 };
	tcp_pcb *c = tcp_new(t.a);
	tcp_set_callbacks(c, &peer_cbs, &cli);
	cr_assert_eq(tcp_connect(c, B_IP, 4444), 0);
	test_net_run(&t.net, 10 * SIM_MS);
	cr_assert_eq(cli.finished, 1 + ECONNREFUSED);
	cr_assert_eq(tcp_get_state(c), TCP_CLOSED);
	cap_tcp rst;
	cr_assert_geq(cap_find_tcp(&t.cap_a, 0, 0x14, 0, &rst), 0, "RST|ACK from b");
	cr_assert_eq(rst.seq, 0);
	tcp_info ci;
	tcp_get_info(c, &ci);
	cr_assert_eq(rst.ack, ci.iss + 1);
	cr_assert_eq(tcp_get_counters(t.b)->rst_out, 1);
	tcp_close(c);
	cr_assert_eq(tcp_pcb_count(t.a), 0);
	two_free(&t);
}

Test(tcp, connect_gives_up_after_syn_retries)
{
	two t;
	two_init(&t, 7, no_loss, STACK_LINUX, STACK_LINUX);
	netif_set_up(t.b->netifs[0], false);
	peer cli = { 0 };
	tcp_pcb *c = tcp_new(t.a);
	tcp_set_callbacks(c, &peer_cbs, &cli);
	cr_assert_eq(tcp_connect(c, B_IP, PORT), 0);
	test_net_run(&t.net, 126 * SIM_S);
	cr_assert_eq(cli.finished, 0, "still trying before 1+2+4+...+64 s");
	test_net_run(&t.net, 128 * SIM_S);
	cr_assert_eq(cli.finished, 1 + ETIMEDOUT);
	tcp_close(c);
	two_free(&t);
}
