/* The application library (sim/app/app.h) used alone: bulk and sink, echo client and
 * server, request/response and responder. They only use sockets, verify what they receive
 * and count bytes. */
#include <criterion/criterion.h>
#include <errno.h>

#include "sim/app/app.h"
#include "sim/engine/pattern.h"
#include "sim/net/stack.h"
#include "tests/support/net.h"

#define A_IP IPV4(10, 7, 0, 1)
#define B_IP IPV4(10, 7, 0, 2)
#define LAT (25 * SIM_US)

Test(apps, pattern_is_a_function_of_seed_and_offset)
{
	uint8_t whole[100], part[40];
	pattern_fill(5, 0, whole, sizeof whole);
	pattern_fill(5, 37, part, sizeof part);
	cr_assert_arr_eq(part, whole + 37, sizeof part);
	cr_assert_eq(pattern_check(5, 0, whole, sizeof whole), sizeof whole);
	cr_assert_eq(pattern_check(6, 0, whole, sizeof whole) < sizeof whole, true);
	whole[63] ^= 1;
	cr_assert_eq(pattern_check(5, 0, whole, sizeof whole), 63);
}

typedef struct pair {
	test_net net;
	stack *a, *b;
} pair;

static void pair_init(pair *p, uint64_t seed, sim_ratio loss)
{
	test_net_init(&p->net, seed, LAT, loss);
	p->a = test_net_add_stack(&p->net, "a", STACK_LINUX, A_IP, 24, 0);
	p->b = test_net_add_stack(&p->net, "b", STACK_LINUX, B_IP, 24, 0);
}

static app_spec rr_spec(uint64_t request, uint64_t response, uint64_t count)
{
	return (app_spec){ .kind = APP_RR, .request = request, .response = response, .count = count, .close_after = true };
}

static app_spec bulk_spec(uint64_t bytes)
{
	return (app_spec){ .kind = APP_BULK, .bytes = bytes, .close_after = true };
}

Test(apps, request_response_against_a_responder_verifies_every_answer)
{
	pair p;
	pair_init(&p, 1, (sim_ratio){ 0, 1 });
	int err;
	app_spec sp = rr_spec(1000, 300, 200);
	app_listener *l = app_serve(p.b, NULL, 7, APP_RESPONDER, &sp, 42, &err);
	cr_assert_not_null(l);
	app_flow *r = app_connect(p.a, NULL, B_IP, 7, &sp, 42, &err);
	cr_assert_not_null(r);
	test_net_run(&p.net, 10 * SIM_S);
	const app_end *c = &r->c;
	app_serve_stats ls = app_serve_stats_get(l);
	cr_assert(app_end_done(c), "err %d after %llu", c->err, (unsigned long long)c->txns);
	cr_assert_eq(c->txns, 200);
	cr_assert_not(c->bad);
	cr_assert_eq(c->sent, 200000);
	cr_assert_eq(c->received, 60000);
	cr_assert_eq(ls.bytes_in, 200000);
	cr_assert_eq(ls.verified, 200000);
	cr_assert_eq(ls.bytes_out, 60000);
	cr_assert_eq(ls.txns, 200);
	cr_assert_eq(ls.mismatches, 0);
	cr_assert_eq(ls.completed, 1);
	app_connect_free(r);
	app_listener_close(l);
	test_net_free(&p.net);
}

Test(apps, large_requests_exercise_back_pressure_under_loss)
{
	pair p;
	pair_init(&p, 2, (sim_ratio){ 2, 100 });
	int err;
	app_spec sp = rr_spec(700000, 700000, 3);
	app_listener *l = app_serve(p.b, NULL, 7, APP_RESPONDER, &sp, 43, &err);
	app_flow *r = app_connect(p.a, NULL, B_IP, 7, &sp, 43, &err);
	test_net_run(&p.net, 600 * SIM_S);
	cr_assert(app_end_done(&r->c), "err %d after %llu", r->c.err, (unsigned long long)r->c.txns);
	cr_assert_eq(r->c.txns, 3);
	app_serve_stats ls = app_serve_stats_get(l);
	cr_assert_eq(ls.mismatches, 0);
	app_connect_free(r);
	app_listener_close(l);
	test_net_free(&p.net);
}

Test(apps, echo_sends_back_a_megabyte_under_loss)
{
	pair p;
	pair_init(&p, 6, (sim_ratio){ 1, 100 });
	int err;
	app_spec sp = { .kind = APP_ECHO, .bytes = 1 << 20, .close_after = true };
	app_listener *l = app_serve(p.b, NULL, 7, APP_ECHO, NULL, 44, &err);
	app_flow *c = app_connect(p.a, NULL, B_IP, 7, &sp, 44, &err);
	test_net_run(&p.net, 600 * SIM_S);
	cr_assert(app_end_done(&c->c), "err %d, %llu back", c->c.err, (unsigned long long)c->c.received);
	app_serve_stats ls = app_serve_stats_get(l);
	cr_assert_eq(ls.bytes_out, 1 << 20);
	cr_assert_eq(ls.verified, 1 << 20);
	cr_assert_eq(ls.completed, 1);
	app_connect_free(c);
	app_listener_close(l);
	test_net_free(&p.net);
}

Test(apps, echo_detects_a_stream_that_is_not_the_pattern)
{
	pair p;
	pair_init(&p, 3, (sim_ratio){ 0, 1 });
	int err;
	app_spec sp = { .kind = APP_ECHO, .bytes = 100, .close_after = true };
	app_listener *l = app_serve(p.b, NULL, 7, APP_ECHO, NULL, 1, &err);
	app_flow *c = app_connect(p.a, NULL, B_IP, 7, &sp, 2, &err); /* other seed */
	test_net_run(&p.net, SIM_S);
	app_serve_stats ls = app_serve_stats_get(l);
	cr_assert_eq(ls.mismatches, 1);
	cr_assert_eq(ls.bytes_out, 100, "echoed all the same");
	cr_assert_not(c->c.bad, "the echo is what the client sent");
	cr_assert_eq(c->c.received, 100);
	app_connect_free(c);
	app_listener_close(l);
	test_net_free(&p.net);
}

Test(apps, sink_serves_several_senders_at_once)
{
	pair p;
	pair_init(&p, 4, (sim_ratio){ 0, 1 });
	int err;
	app_listener *k = app_serve(p.b, NULL, 9, APP_SINK, NULL, 7, &err);
	app_flow *s[3];
	app_spec sp[3];
	for (int i = 0; i < 3; i++) {
		sp[i] = bulk_spec(300000u + (unsigned)i);
		s[i] = app_connect(p.a, NULL, B_IP, 9, &sp[i], 7, &err);
	}
	test_net_run(&p.net, 10 * SIM_S);
	app_serve_stats ks = app_serve_stats_get(k);
	cr_assert_eq(ks.accepted, 3);
	cr_assert_eq(ks.completed, 3);
	cr_assert_eq(ks.verified, 900003);
	cr_assert_eq(ks.mismatches, 0);
	for (int i = 0; i < 3; i++) {
		cr_assert(app_end_done(&s[i]->c));
		app_connect_free(s[i]);
	}
	app_listener_close(k);
	test_net_free(&p.net);
}

Test(apps, sink_reports_where_a_stream_first_differs)
{
	pair p;
	pair_init(&p, 7, (sim_ratio){ 0, 1 });
	int err;
	app_listener *k = app_serve(p.b, NULL, 9, APP_SINK, NULL, 7, &err);
	app_spec sp = bulk_spec(5000);
	app_flow *s = app_connect(p.a, NULL, B_IP, 9, &sp, 8, &err); /* other seed */
	test_net_run(&p.net, SIM_S);
	app_serve_stats ks = app_serve_stats_get(k);
	cr_assert_eq(ks.mismatches, 1);
	cr_assert_eq(ks.bytes_in, 5000);
	cr_assert_eq(ks.first_mismatch_offset, ks.verified);
	cr_assert_lt(ks.verified, 5000);
	app_connect_free(s);
	app_listener_close(k);
	test_net_free(&p.net);
}

Test(apps, sender_reports_a_refused_connection)
{
	pair p;
	pair_init(&p, 5, (sim_ratio){ 0, 1 });
	int err;
	app_spec sp = bulk_spec(1000);
	app_flow *s = app_connect(p.a, NULL, B_IP, 9, &sp, 7, &err);
	test_net_run(&p.net, SIM_S);
	cr_assert_eq(s->c.err, -ECONNREFUSED);
	cr_assert_not(s->c.connected);
	cr_assert(s->c.ended);
	cr_assert_not(app_end_done(&s->c));
	app_connect_free(s);
	test_net_free(&p.net);
}
