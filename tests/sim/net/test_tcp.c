/* TCP between two stacks on a test wire: handshake and its options (the SMC option
 * included), transfers, loss, closing in every order, RST, windows. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/clc.h"
#include "sim/app/app.h"
#include "sim/net/sock.h"
#include "sim/net/stack.h"
#include "sim/net/icmp.h"
#include "sim/net/tcp.h"
#include "sim/net/tcp_opt.h"
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
	tcp_pcb *pcb; /* the connection (client, or accepted child) */
	bool connected, accepted;
	int finished; /* 1 + err once finished */
	uint8_t rx[1 << 19];
	size_t rx_len;
	bool eof;
	bool read_enabled;
	uint8_t *tx; /* bytes to send, pumped on writable */
	size_t tx_len, tx_off;
	bool close_after_tx; /* shutdown once everything is queued */
	bool in_place;       /* tcp_write_fill / tcp_read_visit instead of tcp_write / tcp_read */
	unsigned spans;      /* spans those handed out */
} peer;

static void p_fill(void *ctx, uint8_t *dst, size_t len)
{
	peer *p = ctx;
	memcpy(dst, p->tx + p->tx_off, len);
	p->tx_off += len;
	p->spans++;
}

static void p_visit(void *ctx, const uint8_t *src, size_t len)
{
	peer *p = ctx;
	memcpy(p->rx + p->rx_len, src, len);
	p->rx_len += len;
	p->spans++;
}

static void p_pump(peer *p)
{
	while (p->tx_off < p->tx_len) {
		if (p->in_place) {
			size_t before = p->tx_off;
			ssize_t n = tcp_write_fill(p->pcb, p->tx_len - p->tx_off, p_fill, p);
			cr_assert_eq(p->tx_off - before, n > 0 ? (size_t)n : 0, "fill wrote what the write took");
			if (n <= 0)
				return;
			continue;
		}
		ssize_t n = tcp_write(p->pcb, p->tx + p->tx_off, p->tx_len - p->tx_off);
		if (n <= 0)
			return;
		p->tx_off += (size_t)n;
	}
	if (p->close_after_tx) {
		p->close_after_tx = false;
		tcp_shutdown(p->pcb);
	}
}

static void p_writable(void *user, tcp_pcb *pcb)
{
	(void)pcb;
	p_pump(user);
}

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
		size_t before = p->rx_len;
		ssize_t n = p->in_place ? tcp_read_visit(pcb, sizeof p->rx - p->rx_len, p_visit, p)
		                        : tcp_read(pcb, p->rx + p->rx_len, sizeof p->rx - p->rx_len);
		if (n == 0)
			p->eof = true;
		if (n <= 0)
			break;
		if (p->in_place)
			cr_assert_eq(p->rx_len - before, (size_t)n, "the spans visited are the bytes read");
		else
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
	.writable = p_writable,
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

/* The peer's address answered ARP, then the peer went silent: the SYN is resent until the
 * retries run out (1+2+...+64 s). A z/OS client keeps its ARP entry 20 minutes, so the
 * retries run out before the entry is asked again. */
Test(tcp, connect_gives_up_after_syn_retries)
{
	two t;
	two_init(&t, 7, no_loss, STACK_ZOS, STACK_LINUX);
	cr_assert_eq(icmp_send_echo(t.a, B_IP, 1, 1, 8), 0); /* ARP resolves B now */
	test_net_run(&t.net, SIM_MS);
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

/* Nobody answers ARP for the peer's address (it is down, or on another VLAN): the connect
 * fails with "no route to host" when ARP gives up (3 requests 1 s apart), as Linux's
 * arp_error_report -> tcp_v4_err, not after two minutes of SYNs; the pcb names the next
 * hop that never answered. */
Test(tcp, connect_fails_when_arp_gives_up)
{
	two t;
	two_init(&t, 7, no_loss, STACK_LINUX, STACK_LINUX);
	netif_set_up(t.b->netifs[0], false);
	peer cli = { 0 };
	tcp_pcb *c = tcp_new(t.a);
	tcp_set_callbacks(c, &peer_cbs, &cli);
	cr_assert_eq(tcp_connect(c, B_IP, PORT), 0);
	test_net_run(&t.net, 2900 * SIM_MS);
	cr_assert_eq(cli.finished, 0, "still resolving before the third request's second");
	test_net_run(&t.net, 3100 * SIM_MS);
	cr_assert_eq(cli.finished, 1 + EHOSTUNREACH);
	tcp_info ti;
	tcp_get_info(c, &ti);
	cr_assert_eq(ti.unreach_nexthop, B_IP);
	tcp_close(c);
	two_free(&t);
}

/* ---- data transfer ---- */

static uint8_t *pattern_buf(size_t len, uint32_t seed)
{
	uint8_t *b = malloc(len);
	uint32_t x = seed * 2654435761u + 1;
	for (size_t i = 0; i < len; i++) {
		x = x * 1664525u + 1013904223u;
		b[i] = (uint8_t)(x >> 24);
	}
	return b;
}

static void bulk(uint64_t seed, sim_ratio loss, uint64_t bytes, sim_time deadline, uint64_t *rexmit)
{
	two t;
	two_init(&t, seed, loss, STACK_LINUX, STACK_LINUX);
	sock_opts o;
	sock_opts_default(&o);
	int err = 0;
	app_listener *k = app_serve(t.b, &o, PORT, APP_SINK, NULL, seed, &err);
	cr_assert_not_null(k, "sink: %d", err);
	app_flow *s = app_connect(t.a, &o, B_IP, PORT,
	                          &(app_spec){ .kind = APP_BULK, .bytes = bytes, .close_after = true }, seed, &err);
	cr_assert_not_null(s, "sender: %d", err);
	test_net_run(&t.net, deadline);
	const app_end *ss = &s->c;
	app_serve_stats ks = app_serve_stats_get(k);
	cr_assert_eq(ss->err, 0, "sender error %d", ss->err);
	cr_assert(app_end_done(ss), "sender not done: sent %llu", (unsigned long long)ss->sent);
	cr_assert_eq(ks.verified, bytes, "sink got %llu of %llu", (unsigned long long)ks.verified,
	             (unsigned long long)bytes);
	cr_assert_eq(ks.mismatches, 0, "first mismatch at %llu", (unsigned long long)ks.first_mismatch_offset);
	cr_assert_eq(ks.completed, 1);
	cr_assert_eq(ks.errors, 0);
	*rexmit = tcp_get_counters(t.a)->retransmits;
	/* after TIME_WAIT (2 x 30 s) nothing is left */
	test_net_run(&t.net, sim_now(t.net.eng) + 61 * SIM_S);
	cr_assert_eq(tcp_pcb_count(t.a), 0, "the sender closed its socket once the sink's FIN came");
	app_connect_free(s);
	app_listener_close(k);
	cr_assert_eq(tcp_pcb_count(t.a), 0);
	cr_assert_eq(tcp_pcb_count(t.b), 0);
	two_free(&t);
}

Test(tcp, transfers_several_mib_with_content_verified)
{
	uint64_t rexmit;
	bulk(11, no_loss, 8u << 20, 60 * SIM_S, &rexmit);
	cr_assert_eq(rexmit, 0);
}

Test(tcp, delivers_every_byte_once_in_order_under_5_percent_loss)
{
	uint64_t rexmit;
	bulk(12, (sim_ratio){ 5, 100 }, 2u << 20, 3600 * SIM_S, &rexmit);
	cr_assert_gt(rexmit, 0);
}

Test(tcp, delivers_every_byte_once_in_order_under_20_percent_loss)
{
	uint64_t rexmit;
	bulk(13, (sim_ratio){ 20, 100 }, 512u << 10, 4 * 3600 * SIM_S, &rexmit);
	cr_assert_gt(rexmit, 0);
}

/* Writing and reading in place (tcp_write_fill, tcp_read_visit) moves the same bytes
 * in the same segments as tcp_write and tcp_read: under loss (retransmissions read the
 * ring again) the frames stack a sent and received are identical byte for byte, and so
 * is the run's fingerprint. */
static void transfer_ways(bool in_place, capture *frames, uint64_t *fingerprint, unsigned *spans)
{
	two t;
	two_init(&t, 21, (sim_ratio){ 3, 100 }, STACK_LINUX, STACK_LINUX);
	static peer cli, srv;
	memset(&cli, 0, sizeof cli);
	memset(&srv, 0, sizeof srv);
	cli.in_place = srv.in_place = in_place;
	tcp_pcb *l = open_pair(&t, &cli, &srv, false, false);
	size_t len = 300000;
	cli.tx = pattern_buf(len, 5);
	cli.tx_len = len;
	cli.close_after_tx = true;
	p_pump(&cli);
	test_net_run(&t.net, sim_now(t.net.eng) + 600 * SIM_S);
	cr_assert(srv.eof, "the FIN arrived after everything");
	cr_assert_eq(srv.rx_len, len);
	cr_assert_eq(memcmp(srv.rx, cli.tx, len), 0);
	cr_assert_gt(tcp_get_counters(t.a)->retransmits, 0, "the ring was read again");
	*fingerprint = sim_engine_fingerprint(t.net.eng);
	*spans = cli.spans + srv.spans;
	*frames = t.cap_a;
	t.cap_a = (capture){ 0 }; /* kept for the comparison */
	tcp_close(cli.pcb);
	tcp_close(srv.pcb);
	tcp_close(l);
	free(cli.tx);
	two_free(&t);
}

Test(tcp, writing_and_reading_in_place_sends_the_same_frames)
{
	capture copied, in_place;
	uint64_t fp_copied, fp_in_place;
	unsigned spans_copied, spans_in_place;
	transfer_ways(false, &copied, &fp_copied, &spans_copied);
	transfer_ways(true, &in_place, &fp_in_place, &spans_in_place);
	cr_assert_eq(spans_copied, 0);
	cr_assert_gt(spans_in_place, 0);
	cr_assert_eq(fp_in_place, fp_copied);
	cr_assert_eq(in_place.n, copied.n);
	cr_assert_gt(copied.n, 300); /* a real transfer: 207 segments and their ACKs */
	for (size_t i = 0; i < copied.n; i++) {
		cr_assert_eq(in_place.f[i].at, copied.f[i].at, "frame %zu", i);
		cr_assert_eq(in_place.f[i].len, copied.f[i].len, "frame %zu", i);
		cr_assert_eq(memcmp(in_place.f[i].data, copied.f[i].data, copied.f[i].len), 0, "frame %zu", i);
	}
	capture_free(&copied);
	capture_free(&in_place);
}

/* ---- closing ---- */

Test(tcp, client_closes_first_and_holds_time_wait)
{
	two t;
	two_init(&t, 20, no_loss, STACK_LINUX, STACK_LINUX);
	peer cli = { 0 }, srv = { 0 };
	tcp_pcb *l = open_pair(&t, &cli, &srv, false, false);
	tcp_shutdown(cli.pcb);
	test_net_run(&t.net, sim_now(t.net.eng) + 100 * SIM_MS);
	cr_assert(srv.eof);
	cr_assert_eq(tcp_get_state(cli.pcb), TCP_FIN_WAIT_2);
	cr_assert_eq(tcp_get_state(srv.pcb), TCP_CLOSE_WAIT);
	tcp_shutdown(srv.pcb);
	test_net_run(&t.net, sim_now(t.net.eng) + 100 * SIM_MS);
	cr_assert(cli.eof);
	cr_assert_eq(tcp_get_state(cli.pcb), TCP_TIME_WAIT);
	cr_assert_eq(tcp_get_state(srv.pcb), TCP_CLOSED);
	cr_assert_eq(cli.finished, 1);
	cr_assert_eq(srv.finished, 1);
	sim_time tw = sim_now(t.net.eng);
	test_net_run(&t.net, tw + 59 * SIM_S);
	cr_assert_eq(tcp_get_state(cli.pcb), TCP_TIME_WAIT, "2*MSL = 60 s not over yet");
	test_net_run(&t.net, tw + 61 * SIM_S);
	cr_assert_eq(tcp_get_state(cli.pcb), TCP_CLOSED);
	tcp_close(cli.pcb);
	tcp_close(srv.pcb);
	tcp_close(l);
	cr_assert_eq(tcp_pcb_count(t.a) + tcp_pcb_count(t.b), 0);
	two_free(&t);
}

Test(tcp, server_closes_first_and_holds_time_wait)
{
	two t;
	two_init(&t, 21, no_loss, STACK_LINUX, STACK_LINUX);
	peer cli = { 0 }, srv = { 0 };
	tcp_pcb *l = open_pair(&t, &cli, &srv, false, false);
	tcp_close(l);
	tcp_close(srv.pcb); /* released: it finishes on its own */
	test_net_run(&t.net, sim_now(t.net.eng) + 100 * SIM_MS);
	cr_assert(cli.eof);
	cr_assert_eq(tcp_get_state(cli.pcb), TCP_CLOSE_WAIT);
	tcp_close(cli.pcb);
	test_net_run(&t.net, sim_now(t.net.eng) + 100 * SIM_MS);
	cr_assert_eq(tcp_pcb_count(t.a), 0, "the client went LAST_ACK -> CLOSED");
	cr_assert_eq(tcp_pcb_count(t.b), 1, "the server is in TIME_WAIT");
	test_net_run(&t.net, sim_now(t.net.eng) + 61 * SIM_S);
	cr_assert_eq(tcp_pcb_count(t.b), 0);
	two_free(&t);
}

Test(tcp, simultaneous_close_goes_through_closing_on_both_sides)
{
	two t;
	two_init(&t, 22, no_loss, STACK_LINUX, STACK_LINUX);
	peer cli = { 0 }, srv = { 0 };
	tcp_pcb *l = open_pair(&t, &cli, &srv, false, false);
	tcp_shutdown(cli.pcb);
	tcp_shutdown(srv.pcb);
	cr_assert_eq(tcp_get_state(cli.pcb), TCP_FIN_WAIT_1);
	cr_assert_eq(tcp_get_state(srv.pcb), TCP_FIN_WAIT_1);
	/* both FINs cross on the wire; each side sees the other's FIN before its ACK */
	test_net_run(&t.net, sim_now(t.net.eng) + LAT + 1);
	cr_assert_eq(tcp_get_state(cli.pcb), TCP_CLOSING);
	cr_assert_eq(tcp_get_state(srv.pcb), TCP_CLOSING);
	test_net_run(&t.net, sim_now(t.net.eng) + 10 * SIM_MS);
	cr_assert_eq(tcp_get_state(cli.pcb), TCP_TIME_WAIT);
	cr_assert_eq(tcp_get_state(srv.pcb), TCP_TIME_WAIT);
	cr_assert_eq(cli.finished, 1);
	cr_assert_eq(srv.finished, 1);
	test_net_run(&t.net, sim_now(t.net.eng) + 61 * SIM_S);
	cr_assert_eq(tcp_get_state(cli.pcb), TCP_CLOSED);
	cr_assert_eq(tcp_get_state(srv.pcb), TCP_CLOSED);
	tcp_close(cli.pcb);
	tcp_close(srv.pcb);
	tcp_close(l);
	two_free(&t);
}

Test(tcp, half_closed_connection_still_carries_data_the_other_way)
{
	two t;
	two_init(&t, 23, no_loss, STACK_LINUX, STACK_LINUX);
	peer cli = { 0 }, srv = { 0 };
	tcp_pcb *l = open_pair(&t, &cli, &srv, false, false);
	tcp_shutdown(cli.pcb);
	test_net_run(&t.net, sim_now(t.net.eng) + 10 * SIM_MS);
	cr_assert(srv.eof);
	cr_assert_eq(tcp_write(cli.pcb, "x", 1), -EPIPE);
	srv.tx = pattern_buf(60000, 23);
	srv.tx_len = 60000;
	srv.close_after_tx = true;
	p_pump(&srv);
	test_net_run(&t.net, sim_now(t.net.eng) + SIM_S);
	cr_assert_eq(cli.rx_len, 60000);
	cr_assert_arr_eq(cli.rx, srv.tx, 60000);
	cr_assert(cli.eof);
	cr_assert_eq(tcp_get_state(cli.pcb), TCP_TIME_WAIT);
	free(srv.tx);
	tcp_close(cli.pcb);
	tcp_close(srv.pcb);
	tcp_close(l);
	two_free(&t);
}

Test(tcp, time_wait_lasts_twice_the_configured_msl)
{
	test_net net;
	test_net_init(&net, 24, LAT, no_loss);
	stack_config cfg;
	stack_config_defaults(&cfg, STACK_LINUX);
	cfg.tcp.msl = 5 * SIM_S;
	stack *a = stack_new(net.eng, "a", STACK_LINUX, &cfg);
	net.stacks[net.n_stacks++] = a;
	test_net_add_netif(&net, a, net.wires[0], "eth0", A_IP, 24, 0);
	stack *b = test_net_add_stack(&net, "b", STACK_LINUX, B_IP, 24, 0);
	two t = { .net = net, .a = a, .b = b };
	capture_init(&t.cap_a, net.eng, a->netifs[0], true, true);
	peer cli = { 0 }, srv = { 0 };
	tcp_pcb *l = open_pair(&t, &cli, &srv, false, false);
	tcp_close(cli.pcb);
	tcp_close(srv.pcb);
	test_net_run(&t.net, sim_now(t.net.eng) + 10 * SIM_MS);
	sim_time closed_at = sim_now(t.net.eng);
	cr_assert_eq(tcp_pcb_count(a), 1);
	test_net_run(&t.net, closed_at + 9900 * SIM_MS);
	cr_assert_eq(tcp_pcb_count(a), 1);
	test_net_run(&t.net, closed_at + 10 * SIM_S);
	cr_assert_eq(tcp_pcb_count(a), 0);
	tcp_close(l);
	two_free(&t);
}

Test(tcp, closing_with_unread_data_resets_the_connection)
{
	two t;
	two_init(&t, 25, no_loss, STACK_LINUX, STACK_LINUX);
	peer cli = { 0 }, srv = { 0 };
	tcp_pcb *l = open_pair(&t, &cli, &srv, false, false);
	srv.read_enabled = false;
	cr_assert_eq(tcp_write(cli.pcb, "hello", 5), 5);
	test_net_run(&t.net, sim_now(t.net.eng) + 10 * SIM_MS);
	cr_assert_eq(tcp_readable(srv.pcb), 5);
	tcp_close(srv.pcb);
	test_net_run(&t.net, sim_now(t.net.eng) + 10 * SIM_MS);
	cr_assert_eq(cli.finished, 1 + ECONNRESET);
	cr_assert_eq(tcp_get_counters(t.a)->rst_in, 1);
	cr_assert_eq(tcp_pcb_count(t.b), 1, "only the listener");
	tcp_close(cli.pcb);
	tcp_close(l);
	two_free(&t);
}

Test(tcp, abort_sends_rst_and_the_peer_sees_a_reset)
{
	two t;
	two_init(&t, 26, no_loss, STACK_LINUX, STACK_LINUX);
	peer cli = { 0 }, srv = { 0 };
	tcp_pcb *l = open_pair(&t, &cli, &srv, false, false);
	tcp_abort(cli.pcb);
	cr_assert_eq(tcp_pcb_count(t.a), 0);
	test_net_run(&t.net, sim_now(t.net.eng) + 10 * SIM_MS);
	cr_assert_eq(srv.finished, 1 + ECONNRESET);
	cr_assert_eq(tcp_get_state(srv.pcb), TCP_CLOSED);
	tcp_close(srv.pcb);
	tcp_close(l);
	two_free(&t);
}

/* ---- windows ---- */

typedef struct drop_wnd_update {
	const netif *from;
	bool armed;
	int dropped;
} drop_wnd_update;

/* Drops the first pure ACK with an open window that `from` sends once armed. */
static bool drop_update(void *ctx, const netif *from, const uint8_t *frame, size_t len, uint64_t index)
{
	(void)index;
	drop_wnd_update *d = ctx;
	if (!d->armed || from != d->from || d->dropped)
		return false;
	cap_frame f = { .len = len, .data = (uint8_t *)frame };
	cap_tcp tc;
	if (!cap_parse_tcp(&f, &tc) || tc.payload_len || tc.flags != 0x10 || !tc.wnd)
		return false;
	d->dropped++;
	return true;
}

static void window_full(uint64_t seed, bool lose_update)
{
	two t;
	two_init(&t, seed, no_loss, STACK_LINUX, STACK_LINUX);
	drop_wnd_update d = { .from = t.b->netifs[0] };
	test_wire_set_drop(t.net.wires[0], drop_update, &d);
	peer cli = { 0 }, srv = { 0 };
	tcp_pcb *l = open_pair(&t, &cli, &srv, false, false);
	srv.read_enabled = false;
	size_t total = 400000;
	cli.tx = pattern_buf(total, 30);
	cli.tx_len = total;
	p_pump(&cli);
	test_net_run(&t.net, sim_now(t.net.eng) + 30 * SIM_S);
	tcp_info ci;
	tcp_get_info(cli.pcb, &ci);
	cr_assert_eq(ci.snd_wnd, 0, "the receiver's buffer is full");
	cr_assert_leq(tcp_readable(srv.pcb), 128 * 1024);
	cr_assert_gt(tcp_readable(srv.pcb), 128 * 1024 - 128,
	             "the buffer is full to within one window-scale unit (2^7), not %zu", tcp_readable(srv.pcb));
	cr_assert_gt(ci.zero_window_probes, 2, "probes while the window is shut");
	cr_assert_eq(ci.rto_expiries, 0, "a shut window is not a loss");
	uint64_t probes = ci.zero_window_probes;
	d.armed = lose_update;
	srv.read_enabled = true;
	p_readable(&srv, srv.pcb); /* the application reads: a window update goes out */
	test_net_run(&t.net, sim_now(t.net.eng) + 120 * SIM_S);
	cr_assert_eq(srv.rx_len, total);
	cr_assert_arr_eq(srv.rx, cli.tx, total > sizeof srv.rx ? sizeof srv.rx : total);
	tcp_get_info(cli.pcb, &ci);
	cr_assert_eq(ci.bytes_acked, total);
	if (lose_update) {
		cr_assert_eq(d.dropped, 1);
		cr_assert_gt(ci.zero_window_probes, probes, "a probe found the open window");
	}
	free(cli.tx);
	tcp_close(cli.pcb);
	tcp_close(srv.pcb);
	tcp_close(l);
	two_free(&t);
}

Test(tcp, full_window_is_probed_and_reopens_when_the_application_reads)
{
	window_full(31, false);
}

Test(tcp, lost_window_update_is_recovered_by_a_zero_window_probe)
{
	window_full(32, true);
}

/* ---- keepalive ---- */

Test(tcp, keepalive_probes_an_idle_connection_and_the_peer_answers)
{
	two t;
	two_init(&t, 40, no_loss, STACK_LINUX, STACK_LINUX);
	peer cli = { 0 }, srv = { 0 };
	tcp_pcb *l = open_pair(&t, &cli, &srv, false, false);
	tcp_set_keepalive(cli.pcb, true, 10 * SIM_S, 2 * SIM_S);
	test_net_run(&t.net, sim_now(t.net.eng) + 35 * SIM_S);
	cr_assert_eq(tcp_get_counters(t.a)->keepalive_probes, 3, "one probe per 10 s of idleness");
	cr_assert_eq(tcp_get_state(cli.pcb), TCP_ESTABLISHED);
	cr_assert_eq(cli.finished, 0);
	tcp_close(cli.pcb);
	tcp_close(srv.pcb);
	tcp_close(l);
	two_free(&t);
}

Test(tcp, keepalive_resets_a_connection_whose_peer_went_away)
{
	two t;
	two_init(&t, 41, no_loss, STACK_LINUX, STACK_LINUX);
	peer cli = { 0 }, srv = { 0 };
	tcp_pcb *l = open_pair(&t, &cli, &srv, false, false);
	tcp_set_keepalive(cli.pcb, true, 10 * SIM_S, 2 * SIM_S);
	sim_time t0 = sim_now(t.net.eng);
	netif_set_up(t.b->netifs[0], false);
	/* idle 10 s, then 9 probes 2 s apart, then the reset */
	test_net_run(&t.net, t0 + 10 * SIM_S + 17 * SIM_S);
	cr_assert_eq(cli.finished, 0);
	test_net_run(&t.net, t0 + 10 * SIM_S + 18 * SIM_S + SIM_MS);
	cr_assert_eq(cli.finished, 1 + ETIMEDOUT);
	cr_assert_eq(tcp_get_counters(t.a)->keepalive_probes, 9);
	tcp_close(cli.pcb);
	tcp_close(srv.pcb);
	tcp_close(l);
	two_free(&t);
}

Test(tcp, data_retries_exhausted_reset_the_connection)
{
	two t;
	two_init(&t, 42, no_loss, STACK_LINUX, STACK_LINUX);
	peer cli = { 0 }, srv = { 0 };
	tcp_pcb *l = open_pair(&t, &cli, &srv, false, false);
	netif_set_up(t.b->netifs[0], false);
	cr_assert_eq(tcp_write(cli.pcb, "lost", 4), 4);
	test_net_run(&t.net, sim_now(t.net.eng) + 3600 * SIM_S);
	cr_assert_eq(cli.finished, 1 + ETIMEDOUT);
	tcp_info ci;
	tcp_get_info(cli.pcb, &ci);
	cr_assert_eq(ci.rto_expiries, 16, "15 retransmissions, then the 16th expiry gives up");
	tcp_close(cli.pcb);
	tcp_close(srv.pcb);
	tcp_close(l);
	two_free(&t);
}

Test(tcp, rto_backs_off_exponentially_and_retransmits_are_not_timed)
{
	two t;
	two_init(&t, 43, no_loss, STACK_LINUX, STACK_LINUX);
	peer cli = { 0 }, srv = { 0 };
	tcp_pcb *l = open_pair(&t, &cli, &srv, false, false);
	tcp_info ci;
	tcp_get_info(cli.pcb, &ci);
	cr_assert_eq(ci.rto, 200 * SIM_MS, "RTT 100 us: the RTO is the 200 ms minimum");
	netif_set_up(t.b->netifs[0], false);
	sim_time t0 = sim_now(t.net.eng);
	size_t before = t.cap_a.n;
	tcp_write(cli.pcb, "x", 1);
	test_net_run(&t.net, t0 + 200 * SIM_MS + 400 * SIM_MS + 800 * SIM_MS + SIM_MS);
	/* the original and three retransmissions at 200, 600, 1400 ms */
	size_t sent = 0;
	sim_time at[8];
	for (size_t i = before; i < t.cap_a.n; i++) {
		cap_tcp s;
		if (t.cap_a.f[i].dir == NETIF_TX && cap_parse_tcp(&t.cap_a.f[i], &s) && s.payload_len == 1 && sent < 8)
			at[sent++] = t.cap_a.f[i].at - t0;
	}
	cr_assert_eq(sent, 4);
	cr_assert_eq(at[1], 200 * SIM_MS);
	cr_assert_eq(at[2], 600 * SIM_MS);
	cr_assert_eq(at[3], 1400 * SIM_MS);
	netif_set_up(t.b->netifs[0], true);
	test_net_run(&t.net, sim_now(t.net.eng) + 2 * SIM_S);
	cr_assert_eq(srv.rx_len, 1);
	tcp_get_info(cli.pcb, &ci);
	cr_assert_eq(ci.rto_expiries, 4, "the fourth retransmission, at 3 s, got through");
	cr_assert_eq(ci.rto, 3200 * SIM_MS,
	             "Karn: the ACK of a retransmission gives no RTT sample, the backed-off RTO stays");
	tcp_close(cli.pcb);
	tcp_close(srv.pcb);
	tcp_close(l);
	two_free(&t);
}

/* ---- both directions at once, under loss: data segments carry SACK blocks ---- */

Test(tcp, data_segments_with_sack_blocks_still_fit_the_mtu)
{
	two t;
	two_init(&t, 50, (sim_ratio){ 5, 100 }, STACK_LINUX, STACK_LINUX);
	peer cli = { 0 }, srv = { 0 };
	cli.read_enabled = srv.read_enabled = true;
	tcp_pcb *l = tcp_new(t.b);
	tcp_set_callbacks(l, &peer_cbs, &srv);
	tcp_bind(l, 0, PORT);
	tcp_listen(l, 0);
	tcp_pcb *c = tcp_new(t.a);
	tcp_set_callbacks(c, &peer_cbs, &cli);
	tcp_connect(c, B_IP, PORT);
	cli.pcb = c;
	test_net_run(&t.net, 60 * SIM_S);
	cr_assert(cli.connected && srv.accepted);
	size_t total = 400000;
	cli.tx = pattern_buf(total, 1);
	srv.tx = pattern_buf(total, 2);
	cli.tx_len = srv.tx_len = total;
	p_pump(&cli);
	p_pump(&srv);
	test_net_run(&t.net, sim_now(t.net.eng) + 600 * SIM_S);
	cr_assert_eq(srv.rx_len, total);
	cr_assert_eq(cli.rx_len, total);
	cr_assert_arr_eq(srv.rx, cli.tx, total);
	cr_assert_arr_eq(cli.rx, srv.tx, total);
	cr_assert_eq(tcp_get_counters(t.a)->out_errors, 0);
	cr_assert_eq(tcp_get_counters(t.b)->out_errors, 0);
	size_t with_sack = 0;
	for (size_t i = 0; i < t.cap_a.n; i++) {
		cap_tcp s;
		if (t.cap_a.f[i].dir != NETIF_TX || !cap_parse_tcp(&t.cap_a.f[i], &s) || !s.payload_len)
			continue;
		cr_assert_leq(t.cap_a.f[i].len, 1514);
		tcp_opts o;
		tcp_opts_parse(s.opt, s.opt_len, false, &o);
		if (o.n_sack)
			with_sack++;
	}
	cr_assert_gt(with_sack, 0, "some data segments carried SACK blocks");
	free(cli.tx);
	free(srv.tx);
	tcp_close(c);
	tcp_close(srv.pcb);
	tcp_close(l);
	two_free(&t);
}
