/* Sockets: the mode each side reports (TCP, SMC-R, TCP fallback with its reason), and
 * the seam for an SMC-R layer (raw TCP stream for CLC, fallback, backend data path). */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "model/clc.h"
#include "sim/app/app.h"
#include "sim/net/sock.h"
#include "sim/net/stack.h"
#include "sim/net/tcp.h"
#include "tests/support/capture.h"
#include "tests/support/net.h"

#define A_IP IPV4(10, 9, 0, 1)
#define B_IP IPV4(10, 9, 0, 2)
#define PORT 12345
#define LAT (30 * SIM_US)

typedef struct world {
	test_net net;
	stack *a, *b;
	app_listener *sink;
	app_flow *sender;
} world;

static void world_init(world *w, uint64_t seed, bool smc_a, bool smc_b)
{
	test_net_init(&w->net, seed, LAT, (sim_ratio){ 0, 1 });
	w->a = test_net_add_stack(&w->net, "a", STACK_LINUX, A_IP, 24, 0);
	w->b = test_net_add_stack(&w->net, "b", STACK_ZOS, B_IP, 24, 0);
	stack_smcr(w->a)->enabled = smc_a;
	stack_smcr(w->b)->enabled = smc_b;
	w->sink = NULL;
	w->sender = NULL;
}

/* A bulk transfer a -> b, run to completion and checked. */
static void transfer(world *w, bool smc_sock_a, bool smc_sock_b, uint64_t bytes)
{
	sock_opts oa, ob;
	sock_opts_default(&oa);
	sock_opts_default(&ob);
	oa.smc = smc_sock_a;
	ob.smc = smc_sock_b;
	int err = 0;
	w->sink = app_serve(w->b, &ob, PORT, APP_SINK, NULL, 3, &err);
	cr_assert_not_null(w->sink, "%d", err);
	w->sender = app_connect(w->a, &oa, B_IP, PORT,
	                        &(app_spec){ .kind = APP_BULK, .bytes = bytes, .close_after = true }, 3, &err);
	cr_assert_not_null(w->sender, "%d", err);
	test_net_run(&w->net, sim_now(w->net.eng) + 10 * SIM_S);
	const app_end *s = &w->sender->c;
	app_serve_stats k = app_serve_stats_get(w->sink);
	cr_assert(app_end_done(s), "err %d", s->err);
	cr_assert_eq(k.verified, bytes);
	cr_assert_eq(k.mismatches, 0);
}

static void world_free(world *w)
{
	app_connect_free(w->sender);
	app_listener_close(w->sink);
	test_net_free(&w->net);
}

Test(sock, option_default_asks_for_smc_and_no_nagle)
{
	sock_opts o;
	sock_opts_default(&o);
	cr_assert(o.smc);
	cr_assert(o.nodelay);
	cr_assert_str_eq(sock_mode_name(SOCK_MODE_FALLBACK), "TCP-fallback");
}

Test(sock, plain_tcp_when_smc_is_disabled_on_both_stacks)
{
	world w;
	world_init(&w, 1, false, false);
	transfer(&w, true, true, 100000);
	cr_assert_eq(w.sender->c.mode, SOCK_MODE_TCP);
	cr_assert_eq(app_serve_stats_get(w.sink).last_mode, SOCK_MODE_TCP);
	cr_assert_eq(tcp_get_counters(w.a)->smc_syn_sent, 0);
	world_free(&w);
}

Test(sock, client_falls_back_with_peernosmc_when_the_server_stack_is_not_enabled)
{
	world w;
	world_init(&w, 2, true, false);
	transfer(&w, true, true, 100000);
	const app_end *s = &w.sender->c;
	cr_assert_eq(s->mode, SOCK_MODE_FALLBACK);
	cr_assert_eq(s->reason, 0x03010000u);
	cr_assert_eq(s->reason, SMCR_DECL_PEERNOSMC);
	cr_assert_eq(app_serve_stats_get(w.sink).last_mode, SOCK_MODE_TCP);
	world_free(&w);
}

Test(sock, server_falls_back_with_peernosmc_when_the_client_is_not_enabled)
{
	world w;
	world_init(&w, 3, false, true);
	transfer(&w, true, true, 100000);
	cr_assert_eq(w.sender->c.mode, SOCK_MODE_TCP);
	app_serve_stats k = app_serve_stats_get(w.sink);
	cr_assert_eq(k.last_mode, SOCK_MODE_FALLBACK);
	cr_assert_eq(k.last_fallback_reason, SMCR_DECL_PEERNOSMC);
	world_free(&w);
}

Test(sock, a_non_smc_socket_on_an_enabled_stack_is_plain_tcp)
{
	world w;
	world_init(&w, 4, true, true);
	transfer(&w, false, true, 1000);
	cr_assert_eq(w.sender->c.mode, SOCK_MODE_TCP);
	cr_assert_eq(app_serve_stats_get(w.sink).last_fallback_reason, SMCR_DECL_PEERNOSMC);
	world_free(&w);
}

Test(sock, excluded_port_answers_without_the_option)
{
	world w;
	world_init(&w, 5, true, true);
	cr_assert_eq(smcr_config_exclude_port(stack_smcr(w.b), PORT), 0);
	transfer(&w, true, true, 1000);
	cr_assert_eq(w.sender->c.reason, SMCR_DECL_PEERNOSMC);
	cr_assert_eq(app_serve_stats_get(w.sink).last_mode, SOCK_MODE_TCP);
	cr_assert_eq(tcp_get_counters(w.b)->smc_syn_received, 1, "the SYN had it, the SYN-ACK did not");
	cr_assert_eq(tcp_get_counters(w.b)->smc_negotiated, 0);
	world_free(&w);
}

Test(sock, negotiated_smc_without_an_smc_layer_falls_back_with_nosmcdev)
{
	world w;
	world_init(&w, 6, true, true);
	transfer(&w, true, true, 200000);
	cr_assert_eq(w.sender->c.mode, SOCK_MODE_FALLBACK);
	cr_assert_eq(w.sender->c.reason, SMCR_DECL_NOSMCDEV);
	cr_assert_eq(app_serve_stats_get(w.sink).last_fallback_reason, SMCR_DECL_NOSMCDEV);
	cr_assert_eq(tcp_get_counters(w.a)->smc_negotiated, 1);
	cr_assert_eq(tcp_get_counters(w.b)->smc_negotiated, 1);
	world_free(&w);
}

/* ---- connect errors through the socket API ---- */

typedef struct conn_result {
	int calls;
	int err;
} conn_result;

static void on_connect_rec(sock *s, int err, void *user)
{
	(void)s;
	conn_result *r = user;
	r->calls++;
	r->err = err;
}

static const sock_callbacks rec_cbs = { .on_connect = on_connect_rec };

Test(sock, connect_to_a_closed_port_reports_econnrefused)
{
	world w;
	world_init(&w, 7, true, true);
	conn_result r = { 0 };
	int err = 0;
	sock *s = sock_connect(w.a, NULL, B_IP, 9, &rec_cbs, &r, &err);
	cr_assert_not_null(s);
	test_net_run(&w.net, SIM_S);
	cr_assert_eq(r.calls, 1);
	cr_assert_eq(r.err, -ECONNREFUSED);
	cr_assert_eq(sock_send(s, "x", 1), -ECONNREFUSED);
	sock_close(s);
	cr_assert_eq(tcp_pcb_count(w.a), 0);
	world_free(&w);
}

Test(sock, unroutable_destination_fails_at_once)
{
	world w;
	world_init(&w, 8, true, true);
	int err = 0;
	cr_assert_null(sock_connect(w.a, NULL, IPV4(172, 16, 0, 1), 80, &rec_cbs, NULL, &err));
	cr_assert_eq(err, -EHOSTUNREACH);
	err = 0;
	sock *l1 = sock_listen(w.a, NULL, 81, &rec_cbs, NULL, &err);
	cr_assert_not_null(l1);
	cr_assert_null(sock_listen(w.a, NULL, 81, &rec_cbs, NULL, &err));
	cr_assert_eq(err, -EADDRINUSE);
	sock_close(l1);
	world_free(&w);
}

/* ---- a stand-in SMC layer on the hooks ---- */

#define CLC_LEN 8

typedef struct fake_smc {
	int mode; /* FAKE_DECLINE, FAKE_PASSTHRU, FAKE_HOLD */
	int established, readable, finished;
	sock *held;
	uint32_t reason;
} fake_smc;

enum { FAKE_DECLINE,
       FAKE_PASSTHRU,
       FAKE_HOLD };

/* pass-through backend: the SMC "data path" is the TCP stream itself */
static ssize_t pt_send(void *be, const void *buf, size_t len, unsigned flags)
{
	(void)flags;
	return sock_tcp_send(be, buf, len);
}

static ssize_t pt_recv(void *be, void *buf, size_t len)
{
	return sock_tcp_recv(be, buf, len);
}

static size_t pt_space(void *be)
{
	return tcp_writable(sock_tcp_pcb(be));
}

static int pt_shutdown(void *be)
{
	return tcp_shutdown(sock_tcp_pcb(be));
}

static void pt_close(void *be, bool abort)
{
	sock_release(be, abort);
}

static const sock_backend_ops pt_ops = {
	.send = pt_send,
	.recv = pt_recv,
	.send_space = pt_space,
	.shutdown = pt_shutdown,
	.close = pt_close,
};

static void f_established(void *ctx, sock *s)
{
	fake_smc *f = ctx;
	f->established++;
	switch (f->mode) {
	case FAKE_DECLINE:
		if (!sock_is_server(s))
			cr_assert_eq(sock_tcp_send(s, "PROPOSAL", CLC_LEN), CLC_LEN);
		break;
	case FAKE_PASSTHRU:
		cr_assert_eq(sock_smc_established(s, &pt_ops, s), 0);
		break;
	case FAKE_HOLD:
		if (sock_is_server(s))
			f->held = s;
		break;
	}
}

static void f_readable(void *ctx, sock *s)
{
	fake_smc *f = ctx;
	f->readable++;
	if (f->mode == FAKE_PASSTHRU) {
		sock_notify_readable(s);
		return;
	}
	if (f->mode != FAKE_DECLINE || sock_tcp_readable(s) < CLC_LEN)
		return;
	char msg[CLC_LEN];
	cr_assert_eq(sock_tcp_recv(s, msg, CLC_LEN), CLC_LEN);
	if (sock_is_server(s)) {
		cr_assert_eq(memcmp(msg, "PROPOSAL", CLC_LEN), 0);
		cr_assert_eq(sock_tcp_send(s, "DECLINE!", CLC_LEN), CLC_LEN);
	} else {
		cr_assert_eq(memcmp(msg, "DECLINE!", CLC_LEN), 0);
	}
	cr_assert_eq(sock_smc_fallback(s, f->reason), 0);
}

static void f_writable(void *ctx, sock *s)
{
	fake_smc *f = ctx;
	if (f->mode == FAKE_PASSTHRU)
		sock_notify_writable(s);
}

static void f_finished(void *ctx, sock *s, int err)
{
	fake_smc *f = ctx;
	f->finished++;
	if (f->mode == FAKE_PASSTHRU)
		sock_notify_closed(s, err);
	else
		sock_release(s, false);
}

static void f_app_closed(void *ctx, sock *s, bool abort)
{
	(void)ctx;
	sock_release(s, abort);
}

static const sock_smc_hooks fake_hooks = {
	.tcp_established = f_established,
	.tcp_readable = f_readable,
	.tcp_writable = f_writable,
	.tcp_finished = f_finished,
	.app_closed = f_app_closed,
};

Test(sock, smc_layer_runs_its_handshake_on_the_raw_stream_then_falls_back)
{
	world w;
	world_init(&w, 10, true, true);
	fake_smc fa = { .mode = FAKE_DECLINE, .reason = SMCR_DECL_NOSMCRDEV };
	fake_smc fb = fa;
	stack_set_smc_hooks(w.a, &fake_hooks, &fa);
	stack_set_smc_hooks(w.b, &fake_hooks, &fb);
	capture cap;
	capture_init(&cap, w.net.eng, w.a->netifs[0], true, true);
	transfer(&w, true, true, 300000);
	cr_assert_eq(fa.established, 1);
	cr_assert_eq(fb.established, 1);
	const app_end *s = &w.sender->c;
	cr_assert_eq(s->mode, SOCK_MODE_FALLBACK);
	cr_assert_eq(s->reason, SMCR_DECL_NOSMCRDEV);
	cr_assert_eq(app_serve_stats_get(w.sink).last_fallback_reason, SMCR_DECL_NOSMCRDEV);
	/* on the wire: the first payload each way is the handshake, application data after */
	long i = -1;
	cap_tcp seg;
	do
		i = cap_find_tcp(&cap, (size_t)(i + 1), 0x10, 0x07, &seg);
	while (i >= 0 && !seg.payload_len);
	cr_assert_geq(i, 0);
	cr_assert_eq(seg.src, A_IP);
	cr_assert_eq(seg.payload_len, CLC_LEN);
	cr_assert_eq(memcmp(seg.opt + seg.opt_len, "PROPOSAL", CLC_LEN), 0);
	do
		i = cap_find_tcp(&cap, (size_t)(i + 1), 0x10, 0x07, &seg);
	while (i >= 0 && !seg.payload_len);
	cr_assert_eq(seg.src, B_IP);
	cr_assert_eq(memcmp(seg.opt + seg.opt_len, "DECLINE!", CLC_LEN), 0);
	capture_free(&cap);
	world_free(&w);
}

Test(sock, smc_backend_carries_application_data_in_smcr_mode)
{
	world w;
	world_init(&w, 11, true, true);
	fake_smc fa = { .mode = FAKE_PASSTHRU }, fb = fa;
	stack_set_smc_hooks(w.a, &fake_hooks, &fa);
	stack_set_smc_hooks(w.b, &fake_hooks, &fb);
	transfer(&w, true, true, 1u << 20);
	cr_assert_eq(w.sender->c.mode, SOCK_MODE_SMCR);
	cr_assert_eq(w.sender->c.reason, 0);
	cr_assert_eq(app_serve_stats_get(w.sink).last_mode, SOCK_MODE_SMCR);
	cr_assert_gt(fb.readable, 0, "the data came up through the layer");
	/* closing went through the backend and the layer released both sockets */
	app_connect_free(w.sender);
	w.sender = NULL;
	test_net_run(&w.net, sim_now(w.net.eng) + 61 * SIM_S);
	cr_assert_eq(tcp_pcb_count(w.a), 0);
	cr_assert_eq(tcp_pcb_count(w.b), 1, "the listener");
	world_free(&w);
}

Test(sock, plain_sockets_never_reach_the_smc_layer)
{
	world w;
	world_init(&w, 12, true, true);
	fake_smc fa = { .mode = FAKE_PASSTHRU }, fb = fa;
	stack_set_smc_hooks(w.a, &fake_hooks, &fa);
	stack_set_smc_hooks(w.b, &fake_hooks, &fb);
	transfer(&w, false, true, 5000);
	cr_assert_eq(fa.established + fb.established, 0);
	cr_assert_eq(app_serve_stats_get(w.sink).last_fallback_reason, SMCR_DECL_PEERNOSMC);
	world_free(&w);
}

Test(sock, child_in_handshake_is_reset_when_its_listener_is_gone)
{
	world w;
	world_init(&w, 13, true, true);
	fake_smc fa = { .mode = FAKE_HOLD }, fb = fa;
	stack_set_smc_hooks(w.a, &fake_hooks, &fa);
	stack_set_smc_hooks(w.b, &fake_hooks, &fb);
	conn_result r = { 0 };
	int err;
	sock *l = sock_listen(w.b, NULL, PORT, &rec_cbs, NULL, &err);
	sock *c = sock_connect(w.a, NULL, B_IP, PORT, &rec_cbs, &r, &err);
	test_net_run(&w.net, SIM_S);
	cr_assert_not_null(fb.held);
	cr_assert_eq(r.calls, 0, "the client waits for the handshake");
	cr_assert_eq(sock_send(c, "x", 1), -ENOTCONN);
	sock_close(l);
	cr_assert_eq(sock_smc_fallback(fb.held, SMCR_DECL_NOSMCRDEV), -ECONNABORTED);
	test_net_run(&w.net, 2 * SIM_S);
	cr_assert_eq(fa.finished, 1, "the client's layer saw the reset");
	cr_assert_eq(r.calls, 1);
	cr_assert_eq(r.err, -ECONNRESET);
	sock_close(c);
	cr_assert_eq(tcp_pcb_count(w.a) + tcp_pcb_count(w.b), 0);
	world_free(&w);
}
