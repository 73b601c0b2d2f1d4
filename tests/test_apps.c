/* Scenario applications: bulk sender and sink, echo server, request/response client.
 * They only use sockets, verify what they receive and count bytes. */
#include <criterion/criterion.h>
#include <errno.h>

#include "sim/app/app_bulk.h"
#include "sim/app/app_echo.h"
#include "sim/app/app_rr.h"
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

Test(apps, request_response_against_echo_verifies_every_reply)
{
	pair p;
	pair_init(&p, 1, (sim_ratio){ 0, 1 });
	int err;
	app_echo *e = app_echo_start(p.b, NULL, 7, true, 42, &err);
	cr_assert_not_null(e);
	app_rr *r = app_rr_start(p.a, NULL, B_IP, 7, 1000, 200, 42, &err);
	cr_assert_not_null(r);
	test_net_run(&p.net, 10 * SIM_S);
	const app_rr_stats *rs = app_rr_stats_get(r);
	const app_echo_stats *es = app_echo_stats_get(e);
	cr_assert(rs->done, "err %d after %llu", rs->err, (unsigned long long)rs->transactions);
	cr_assert_eq(rs->transactions, 200);
	cr_assert_eq(rs->mismatches, 0);
	cr_assert_eq(rs->bytes_sent, 200000);
	cr_assert_eq(rs->bytes_received, 200000);
	cr_assert_eq(es->bytes_in, 200000);
	cr_assert_eq(es->bytes_out, 200000);
	cr_assert_eq(es->mismatches, 0);
	cr_assert_eq(es->completed, 1);
	cr_assert_geq(rs->lat_min, 2 * LAT, "a round trip at least");
	cr_assert_leq(rs->lat_min, rs->lat_max);
	app_rr_free(r);
	app_echo_free(e);
	test_net_free(&p.net);
}

Test(apps, large_requests_exercise_back_pressure_under_loss)
{
	pair p;
	pair_init(&p, 2, (sim_ratio){ 2, 100 });
	int err;
	app_echo *e = app_echo_start(p.b, NULL, 7, true, 43, &err);
	app_rr *r = app_rr_start(p.a, NULL, B_IP, 7, 700000, 3, 43, &err);
	test_net_run(&p.net, 600 * SIM_S);
	const app_rr_stats *rs = app_rr_stats_get(r);
	cr_assert(rs->done, "err %d after %llu", rs->err, (unsigned long long)rs->transactions);
	cr_assert_eq(rs->transactions, 3);
	cr_assert_eq(rs->mismatches, 0);
	cr_assert_eq(app_echo_stats_get(e)->mismatches, 0);
	app_rr_free(r);
	app_echo_free(e);
	test_net_free(&p.net);
}

Test(apps, echo_detects_a_stream_that_is_not_the_pattern)
{
	pair p;
	pair_init(&p, 3, (sim_ratio){ 0, 1 });
	int err;
	app_echo *e = app_echo_start(p.b, NULL, 7, true, 1, &err);
	app_rr *r = app_rr_start(p.a, NULL, B_IP, 7, 100, 1, 2, &err); /* other seed */
	test_net_run(&p.net, SIM_S);
	cr_assert_eq(app_echo_stats_get(e)->mismatches, 1);
	cr_assert_eq(app_rr_stats_get(r)->mismatches, 0, "the echo is still what the client sent");
	app_rr_free(r);
	app_echo_free(e);
	test_net_free(&p.net);
}

Test(apps, sink_serves_several_senders_at_once)
{
	pair p;
	pair_init(&p, 4, (sim_ratio){ 0, 1 });
	int err;
	app_bulk_sink *k = app_bulk_sink_start(p.b, NULL, 9, 7, &err);
	app_bulk_sender *s[3];
	for (int i = 0; i < 3; i++)
		s[i] = app_bulk_sender_start(p.a, NULL, B_IP, 9, 300000u + (unsigned)i, 7, &err);
	test_net_run(&p.net, 10 * SIM_S);
	const app_bulk_sink_stats *ks = app_bulk_sink_stats_get(k);
	cr_assert_eq(ks->accepted, 3);
	cr_assert_eq(ks->completed, 3);
	cr_assert_eq(ks->bytes, 900003);
	cr_assert_eq(ks->mismatches, 0);
	for (int i = 0; i < 3; i++) {
		cr_assert(app_bulk_sender_stats_get(s[i])->done);
		app_bulk_sender_free(s[i]);
	}
	app_bulk_sink_free(k);
	test_net_free(&p.net);
}

Test(apps, sender_reports_a_refused_connection)
{
	pair p;
	pair_init(&p, 5, (sim_ratio){ 0, 1 });
	int err;
	app_bulk_sender *s = app_bulk_sender_start(p.a, NULL, B_IP, 9, 1000, 7, &err);
	test_net_run(&p.net, SIM_S);
	cr_assert_eq(app_bulk_sender_stats_get(s)->err, -ECONNREFUSED);
	cr_assert_not(app_bulk_sender_stats_get(s)->connected);
	app_bulk_sender_free(s);
	test_net_free(&p.net);
}
